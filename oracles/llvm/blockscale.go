package llvm

import (
	"fmt"
	"github.com/legalfuzz/legalfuzz/oracles/intrinsic"

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

// renderBlockScaleMMA renders one block-scaled mma.sync. A kind, shape,
// type or scale vector LLVM lacks is still written and compiles as an
// external call (unsupported).
func renderBlockScaleMMA(b bs.Value, k *kernel) error {
	n, err := intrinsic.ScaleVec(b)
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
