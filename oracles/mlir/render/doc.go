// Package render spells a case as the MLIR module the mlir oracles judge,
// in the way each MLIR release reads it, and says what the PTX of its
// lowering must hold. It is the mlir family's rendering, split from the
// oracles that run the tools (package mlir) so that each side can be read,
// and grow, alone; it runs nothing.
//
// Rendering. Each case is one MLIR module: a gpu.module carrying the case's
// own target (#nvvm.target<chip = "sm_90a", features = "+ptx84">) with one
// kernel that uses the nvgpu/nvvm ops the value describes, as literally as
// the dialect allows, and host code beside it where the op lives on the
// host (nvgpu.tma.create.descriptor). Addresses a value names are built
// into the IR as constants, so they reach the PTX; register operands are
// kernel parameters, so none folds into an immediate. A value with no
// MLIR spelling, and every target the release's NVPTX backend cannot emit
// (LLVM 19: past sm_90a or PTX ISA 8.5; LLVM 22: past PTX ISA 9.0; for both
// a PTX version that does not name the target, which llc 19 silently raises
// and llc 22 refuses), has no rendering, with the reason. Each domain's
// file (wgmma.go, tmamode22.go, ...) documents its mapping.
//
// Releases. A Spelling is how one major release spells the cases
// (spelling.go: MLIR 19's renderers, with 22's own TMA copies, stmatrix,
// tcgen05.mma and sm_120's block-scaled mma.sync, and 23's kind attribute
// of the block-scaled tcgen05 ops); ops whose custom syntax changed
// between releases are written in the generic form every release reads
// alike. NVVM is the spelling of the mlir-nvvm oracle: the nvvm ops that
// nvgpu's lower to, alone (nvvm.go).
//
// What this package promises package mlir, its only user:
//   - Spelling.Render returns the whole module's text and its Kernel, whose
//     Params, Host, Value and Target are what the lowering's checks read;
//     the gpu.func is named KernelName(c), unique in a batch, so the
//     oracle finds each case's PTX entry and error by it.
//   - A case Render cannot spell gets an *oracles.NoSpelling of one of
//     Reasons (TestReasonsDeclared renders the generator's values with
//     every spelling); every other error is a harness bug.
//   - Rendering is a pure function of the case and the spelling: the same
//     case renders to the same bytes every time (spelledAs hashes the
//     value's canonical bytes), so a reproducer, a reduction's replay and
//     the probe's cache key see what was judged.
//   - Wants is what the PTX of the case's op must hold, whichever release
//     spelled it; TileLevel says which wgmma op a value was spelled with,
//     for the value check of its descriptors.
//
// What it asks of package mlir in return: nothing it imports. The oracle
// owns which spelling an installation gets (Of by its major release,
// Installed to name that release in messages), whether the installation's
// parser reads a domain at all (its probe), and every verdict.
package render
