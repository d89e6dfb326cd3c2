// Package intrinsic holds what LLVM's NVPTX intrinsics can spell, for the
// two families that reach them: the llc oracle writes the intrinsic calls
// itself, and MLIR's nvvm ops translate to the same intrinsics, so both ask
// here which values an intrinsic names rather than one asking the other.
package intrinsic

import (
	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Reasons are the reasons a value has no intrinsic spelling: a renderer
// that gives them as its own verdicts adds them to its table.
var Reasons = oracles.Reasons{
	{Field: "scale_vec", Class: "before-ptx-8.8", Gap: oracles.ToolLacks},
	{Field: "scale_vec", Class: "gated-on-target", Gap: oracles.ToolLacks},
	{Field: "scale_vec", Class: "not-for-kind", Gap: oracles.ToolLacks},
	{Field: "scale_vec_size", Class: "not-whole-scale-vec", Gap: oracles.ToolLacks},
	{Field: "sf_bits", Class: "not-implied", Gap: oracles.ToolLacks},
	{Field: "type", Class: "placeholder-other", Gap: oracles.ToolLacks},
}

// ScaleVec is the N of the .scale_vec::NX a value's instruction names, or
// why the value names no instruction (llc's llvm.nvvm.mma.block.scale and MLIR
// 22's nvvm.mma.block_scale, which translates to it): the seed's placeholder
// types have no spelling, nor has a scale vector that does not split K
// whole; and the seed's scale_fragment_bits is not part of the instruction,
// so only the value whose fragment is what .scale_vec::NX implies (N 8-bit
// scale factors) is judged.
func ScaleVec(b bs.Value) (int, error) {
	n, ok := b.ScaleVecN()
	switch {
	case b.AType == bs.TypeOther || b.BType == bs.TypeOther || b.SFType == bs.SFOther:
		return 0, Reasons.New("type", "placeholder-other", "no LLVM spelling for the seed's placeholder type %q", "other")
	case !ok || n == 0:
		return 0, Reasons.New("scale_vec_size", "not-whole-scale-vec", "no LLVM spelling for a scale vector of %d elements at K = %d (not a whole .scale_vec::NX)", b.ScaleVecSize, b.K)
	case int(b.ScaleFragmentBits) != 8*n:
		return 0, Reasons.New("sf_bits", "not-implied", "no LLVM spelling for a %d-bit scale fragment with .scale_vec::%dX (the instruction implies %d bits)",
			b.ScaleFragmentBits, n, 8*n)
	}
	return n, nil
}

// BlockSuffix is LLVM's spelling of an explicit scale vector (MLIR 22's
// blockScale attribute names the same suffix). LLVM has no .scale_vec::NX;
// it has the PTX ISA 8.8 aliases .block32 and .block16. The two spellings
// are gated alike on sm_XXXa targets but not on the f-targets (.blockN is
// allowed there, .scale_vec::NX is not), so the alias stands in for the
// value only from PTX 8.8 and never on an f-target. The error says why a
// value has no such spelling.
func BlockSuffix(w kw.Value) (string, error) {
	explicit := map[kw.Kind]map[kw.ScaleVec]string{
		kw.MXF8F6F4: {kw.Scale1X: ".block32"},
		kw.MXF4:     {kw.Scale2X: ".block32"},
		kw.MXF4NVF4: {kw.Scale2X: ".block32", kw.Scale4X: ".block16"},
	}
	if w.ScaleVec == kw.ScaleDefault && w.Kind != kw.MXF4NVF4 {
		return "", nil
	}
	s, ok := explicit[w.Kind][w.ScaleVec]
	switch {
	case !ok:
		return "", Reasons.New("scale_vec", "not-for-kind", "no LLVM spelling for kind::%s with scale vector %q", w.Kind, w.ScaleVec.String())
	case w.Tgt.PTX < 88:
		return "", Reasons.New("scale_vec", "before-ptx-8.8", "no LLVM spelling for .scale_vec::%s before PTX ISA 8.8 (LLVM writes it as %s)", w.ScaleVec, s)
	case w.Tgt.Arch.FamilySpecific():
		return "", Reasons.New("scale_vec", "gated-on-target", "no LLVM spelling for .scale_vec::%s on %s (LLVM's %s is gated differently there)", w.ScaleVec, w.Tgt.Arch, s)
	}
	return s, nil
}
