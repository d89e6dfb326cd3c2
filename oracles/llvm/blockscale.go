package llvm

import (
	"fmt"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
)

// LLVM 22 spells sm_120's block-scaled mma.sync as
//
//	llvm.nvvm.mma.block.scale.m16n8k<K>.row.col.<kind>[.scale.<N>x].f32.<atype>.<btype>.f32.<stype>
//
// with A as four i32 registers, B as two, C and D as four floats, then
// scale-a-data (i32), byte-id-a and thread-id-a (i16), and the same three
// for B. The form without .scale.<N>x is the kind's default scale vector;
// the value always knows its N, so the explicit form is written. LLVM 19
// has no block-scale intrinsics.
const blockScalePrefix = "llvm.nvvm.mma.block.scale"

// ScaleVec is the N of the .scale_vec::NX a value's instruction names, or
// why the value names no instruction (MLIR 22's nvvm.mma.block_scale, which
// translates to the same intrinsics, asks the same): the seed's placeholder
// types have no spelling, nor has a scale vector that does not split K
// whole; and the seed's scale_fragment_bits is not part of the instruction,
// so only the value whose fragment is what .scale_vec::NX implies (N 8-bit
// scale factors) is judged.
func ScaleVec(b bs.Value) (int, error) {
	n, ok := b.ScaleVecN()
	switch {
	case b.AType == bs.TypeOther || b.BType == bs.TypeOther || b.SFType == bs.SFOther:
		return 0, noSpelling("type", "placeholder-other", "no LLVM spelling for the seed's placeholder type %q", "other")
	case !ok || n == 0:
		return 0, noSpelling("scale_vec_size", "not-whole-scale-vec", "no LLVM spelling for a scale vector of %d elements at K = %d (not a whole .scale_vec::NX)", b.ScaleVecSize, b.K)
	case int(b.ScaleFragmentBits) != 8*n:
		return 0, noSpelling("sf_bits", "not-implied", "no LLVM spelling for a %d-bit scale fragment with .scale_vec::%dX (the instruction implies %d bits)",
			b.ScaleFragmentBits, n, 8*n)
	}
	return n, nil
}

// renderBlockScaleMMA renders one block-scaled mma.sync. A kind, shape,
// type or scale vector LLVM lacks is still written and compiles as an
// external call (unsupported).
func renderBlockScaleMMA(b bs.Value, k *kernel) error {
	n, err := ScaleVec(b)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s.%s.row.col.%s.scale.%dx.f32.%s.%s.f32.%s", blockScalePrefix, b.Shape(), b.Kind, n,
		b.AType, b.BType, b.SFType)
	var ops []operand
	for _, f := range []struct {
		part string
		frag frag
	}{{"a", frag{i32, 4}}, {"b", frag{i32, 2}}, {"c", frag{f32, 4}}} {
		for j := range f.frag.count {
			ops = append(ops, k.param(f.frag.typ, fmt.Sprintf("%s%d", f.part, j)))
		}
	}
	for _, s := range []string{"a", "b"} {
		ops = append(ops, k.param(i32, "scale_"+s), k.param("i16", "byte_id_"+s), k.param("i16", "thread_id_"+s))
	}
	k.sink(k.call(regsType(frag{f32, 4}), name, ops...))
	return nil
}
