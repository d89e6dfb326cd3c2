package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

func init() { register(wgmma.Name, renderWGMMA) }

// renderWGMMA spells one wgmma.mma_async between wgmma.fence and
// commit_group / wait_group 0:
// wgmma.mma_async{.sp}.sync.aligned.mMnNkK{.satfinite}.dtype.atype.btype
// {.and.popc} d, a-desc|{a}, b-desc{, sp-meta, sp-sel}, scale-d, imms. The
// immediates follow the PTX form of A's type: floating-point forms take
// imm-scale-a/b, .f16/.bf16 forms also imm-trans (only imm-trans-b when A
// is in registers). Immediates a form lacks are written all the same when
// the value sets them (a scale other than 1, a transpose), so ptxas judges
// them. The fragment rank, B's separate K and a result type other than the
// accumulator's are MLIR notions with no PTX spelling.
func renderWGMMA(v wgmma.Value, k *kernel) error {
	switch {
	case v.Rank != 2:
		return noSpelling("rank", "not-2", "for rank-%d wgmma fragments", v.Rank)
	case v.BK != v.K:
		return noSpelling("b_k", "differs", "for B's K %d differing from A's K %d", v.BK, v.K)
	case v.ResultType != v.DType:
		return noSpelling("result_type", "differs", "for a result type %s differing from the accumulator type %s", v.ResultType, v.DType)
	}
	var sp, sat, popc string
	if v.Sparse {
		sp = "sp"
	}
	if v.Satfinite {
		sat = "satfinite"
	}
	if v.AType == wgmma.B1 {
		popc = "and.popc"
	}
	name := mods("wgmma", "mma_async", sp, "sync", "aligned", v.ShapeName(), sat,
		v.DType.String(), v.AType.String(), v.BType.String(), popc)
	ops := []string{wgmmaAccumulator(k, v)}
	if v.ARegister {
		elems := int(v.M) * int(v.K)
		if v.Sparse {
			elems /= 2
		}
		ops = append(ops, fragment(k, b32, elems*v.AType.Bits()/(128*32)))
	} else {
		ops = append(ops, k.zero(b64))
	}
	ops = append(ops, k.zero(b64))
	if v.Sparse {
		ops = append(ops, k.zero(b32), fmt.Sprint(v.SpSel))
	}
	scaleD := k.reg(pred)
	k.emit("setp.ne.b32 %s, %d, 0;", scaleD, b2i(v.ScaleD))
	ops = append(append(ops, scaleD), wgmmaImmediates(v)...)
	k.emit("wgmma.fence.sync.aligned;")
	k.emit("%s %s;", name, join(ops))
	k.emit("wgmma.commit_group.sync.aligned;")
	k.emit("wgmma.wait_group.sync.aligned 0;")
	return nil
}

// wgmmaAccumulator allocates d: M×N/128 elements per thread, in .f32, .f64
// or .b32 registers (two .f16 per register).
func wgmmaAccumulator(k *kernel, v wgmma.Value) string {
	elems := int(v.M) * int(v.N) / 128
	switch v.DType {
	case wgmma.AccF32:
		return fragment(k, f32, elems)
	case wgmma.AccF64:
		return fragment(k, f64, elems)
	case wgmma.AccF16:
		elems /= 2
	}
	return fragment(k, b32, elems)
}

// wgmmaImmediates spells imm-scale-a/b and imm-trans-a/b as A's type form
// takes them, plus any the value sets that the form lacks.
func wgmmaImmediates(v wgmma.Value) []string {
	var imms []string
	integer := v.AType.Int8() || v.AType == wgmma.B1 || v.AType == wgmma.S4
	if !integer || v.ScaleA != 1 || v.ScaleB != 1 {
		imms = append(imms, fmt.Sprint(v.ScaleA), fmt.Sprint(v.ScaleB))
	}
	if v.AType == wgmma.F16 || v.AType == wgmma.BF16 || v.TransA || v.TransB {
		if !v.ARegister || v.TransA {
			imms = append(imms, fmt.Sprint(b2i(v.TransA)))
		}
		imms = append(imms, fmt.Sprint(b2i(v.TransB)))
	}
	return imms
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
