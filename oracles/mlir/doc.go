// Package mlir is the "mlir" oracle: MLIR 19's nvgpu and nvvm verifiers
// (mlir-opt-19) and, optionally, the lowering of what they accept down to a
// cubin: nvgpu → nvvm → LLVM dialect (mlir-opt-19 and Pipeline), LLVM IR
// (mlir-translate-19), one linked module (llvm-link-19), PTX (llc-19
// -mcpu=<target>) and ptxas.
//
// Rendering. Each case is one MLIR module with one kernel, spelled by
// package render (see there) as the installation's major release reads
// it; a case it cannot spell is Unsupported with the reason. This package
// runs the tools on the rendered modules and judges; render promises it
// a pure, release-keyed rendering, the kernel's name and parameters, and
// what the PTX must hold (render.Wants).
//
// Replay. Package reproduce (mlir/reproduce) replays these verdicts by
// hand and reduces their modules; this package promises it the commands
// it ran (VerifyCommand, Pipeline, LLCArgs, PtxasArgs, ToolsOf, ReplayOf)
// and Rules in oracles.Stage's spelling, and imports nothing of it.
//
// Installations. Each LLVM installation (package toolchain) is an oracle,
// mlir@LABEL, running the same stages with its own tools. It renders as
// its major release spells the ops (render.Of). At discovery a parse-only
// probe (probe.go) marks a domain an installation does not read as
// unspelled.
// From 22 on, every domain is judged on every target its LLVM knows, so an
// op MLIR lets through on a target below or beside its floor (a
// tcgen05-era target for wgmma) is a finding.
// llc's "Cannot select" abort is llc refusing the case, like a ptxas error.
//
// Verdicts. Many cases go into one file separated by "// -----";
// mlir-opt-19 --split-input-file judges each chunk and reports an error
// "within split at FILE:N", N being the chunk's first line (1) or its
// marker's line. Rule names the stage that decided, as oracles.Stage
// spells it. The parser's and verifiers' errors give Reject at "verify"
// (MLIR 19 cannot parse without verifying, so the two are one stage).
// With Lower set (Discover sets it when the tools are found), a case the
// verifier accepts goes on through the lowering, one batch per step. A
// pass that refuses it in its own words gives Reject at "pass:NAME" (the
// pass is found by running the case alone with the IR printed after each
// pass). Everything after that is MLIR's fault, whatever the spec says,
// for its verifier let the case through: an Error whose Rule is
// "STAGE/FAULT" (DESIGN.md: when a tool accepts a case and a later tool
// rejects that tool's own output, the first tool is wrong):
//   - "translate/refused", "link/refused", "llc/refused",
//     "ptxas/refused": that tool refused what MLIR emitted;
//   - "pass:NAME/exit-0": the lowering printed an error and went on as if
//     it had succeeded (exit status 0, or the chunk's output written);
//   - "pass:NAME/unconverted": the lowering exited 0 and left an nvgpu op;
//   - "ptx/dropped": llc's PTX for the kernel lacks the instructions the
//     op asked for, or has fewer or smaller ones (a 64x24 f16
//     nvgpu.warpgroup.mma lowered to one m64n128k16): a silent
//     miscompile, whatever ptxas then said;
//   - "ptx/value": the instructions are there but compute something else:
//     a type, qualifier or immediate the op does not mean, or a wgmma
//     descriptor that does not point at its part of the tile (values.go;
//     the PTX is evaluated by package emitted).
//
// A tool that exits 1 having said why without naming a place (LLVM's IR
// verifier inside mlir-translate) refused the case it was run on alone.
// A crash or hang of a tool is an Error at its stage with no fault. The
// Diagnostic is prefixed by the step ("lowering: ...", "translate: ...",
// "llc: ...", "ptxas: ..."). A case that passes every step is Accept with
// Rule "ptxas" (or "llc" when ptxas cannot read the case's PTX version;
// the Diagnostic says so). Where the lowering computes a value the spec
// also computes (the 64-bit descriptor of
// nvgpu.warpgroup.generate.descriptor, domain matdesc) it is read from
// the emitted LLVM IR into Value ("0x%016x").
//
// Failures. A tool that crashes, hangs or prints what cannot be attributed
// never decides for a batch: mlir-opt runs with --mlir-timing, whose
// per-chunk reports on stderr show which chunk it stopped in, so the chunks
// before keep their verdicts, the culprit is run alone (it gets Error or
// Timeout with the crashing function from the stack dump) and the rest runs
// again; a run that says nothing of its progress is cut into eight pieces.
// llvm-link and llc failures bisect the same way; ptxas errors are
// attributed by the .entry their line falls in, and the cases not named are
// assembled again until ptxas exits cleanly on them.
//
// Cost (2-core machine, quick manual runs): verifying a 1,000-case batch is
// one mlir-opt run of well under a second; one case per process is about
// 20-30 ms each. The lowering adds four more batched runs (mlir-opt,
// mlir-translate, llvm-link + llc, ptxas) for the accepted cases, roughly
// doubling a batch's time; one case per process it costs about five
// processes per accepted case. BenchmarkJudge1000 measures all four.
//
// Pass judges (passes.go: mlir-passes@LABEL). A compiler built on
// MLIR runs more GPU passes than Pipeline: optimizations on nvgpu IR before
// the lowering and, after it, the host's GPU calls to LLVM and MLIR's own
// serialization of the gpu.module to PTX. The pass judges run each alone
// (the verifier off, its output verified in a run of its own): the first on
// the cases MLIR's verifier accepts, the others on those the mlir oracle's
// whole chain accepts, so a root cause that chain shows is reported once,
// by the mlir oracle (gpu-module-to-binary segfaults on the inline asm
// llvm-link refuses in that chain). Policies compare them
// with spec/ptxisa on crashes only (policy.OnCrash): a crash, a hang, IR
// the verifier rejects or an error at exit status 0 is a finding whose
// Rule names the pass.
package mlir
