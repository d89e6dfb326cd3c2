// Package layout holds the test that keeps the repository's layout rules
// (CONTRIBUTING.md, "Where things live"): imports run downward, oracle
// families are siblings, and no package grows past what one concept needs.
//
// Under oracles/, a package is one of three kinds, each subpackage counted
// with its parent unless it is classified itself:
//
//   - a family: the judges of one tool and its reproducer (algo, amdgpu,
//     cuda, exec, llvm, mlir, nvvmop, ptxas, spec; ptxas/sass reads back
//     the cubins ptxas wrote, so it is ptxas's). A family imports no other
//     family: what two share lives in a shared piece below both.
//   - a shared piece: what families share, knowing none of them (the
//     oracles package itself, batch, diag, emitted, intrinsic, ptx, replay,
//     rules, spelltest, testoracle, tool, toolchain, valuecheck).
//     rules is here and the oracle spec is a family: the rule sets
//     are the reference the families are judged against (batch predicts
//     with them, algo judges its pass's output with them), the oracles
//     spec/seed and spec/ptxisa judge cases with them like any other.
//   - an assembly: what puts the families together (registry, bench).
//     cuda/gpucheck, the GPU machine's check, is cuda's: the ptxas builds
//     it records are named by its caller.
//
// Outside oracles/, coordinator/... imports nothing of reports/... (the
// store keeps its own counts; reports read them), and no package's
// non-test Go code passes MaxLines.
package layout
