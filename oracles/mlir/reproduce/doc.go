// Package reproduce replays the verdicts of the mlir family's oracles by
// hand: the files and commands of a bundle (Reproducer, PassesReproducer),
// repro.sh's plan stopping at the stage a verdict names (the verifier
// alone, the fewest lowering passes that still show the bug, the chain
// through llc and ptxas), the reduction of case.mlir that keeps the op
// under test, and the RUN lines of a lit test. It is split from package
// mlir, which judges, so that running and replaying can be read apart;
// only the registry and corpus/repro's tests name it.
//
// What package mlir promises it, in exported names:
//   - NewRelease(name, major, tool).VerifyCommand writes the module and
//     the verifier's arguments exactly as the oracle named name judged
//     the case; Pipeline, LLCArgs, PtxasArgs and PtxasSpec are the
//     lowering's commands as the oracle runs them, and ToolsOf an
//     installation's tools, so a replay runs what judged.
//   - A verdict's Rule is oracles.Stage's spelling of the stage that
//     decided ("verify", "pass:NAME", "llc/refused"); a pass judge's
//     pipelines before a pass are ReplayOf(judge, pass).
//   - Package render (mlir/render) gives what the PTX must hold (Wants)
//     and the op a module is about (SubjectOp), the same checks the
//     oracle made.
//
// What it promises in return: it judges nothing and package mlir imports
// nothing of it; a replay whose earlier stage fails ends in the script's
// "cannot" with why, never in a "reproduces" of another bug; and every
// LLVM tool it runs is the installation's that judged (toolchain.In,
// replay.Case.Installation), never one found by a release name.
package reproduce
