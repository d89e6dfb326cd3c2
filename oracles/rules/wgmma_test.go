package rules

import (
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

// wgOf builds a legal-shaped instruction on sm_90a (PTX 8.4 when sparse).
func wgOf(a, b wg.Type, d wg.AccType, n uint16, sparse bool) wg.Value {
	k := wg.NaturalK(a, sparse)
	v := wg.Value{Rank: 2, M: 64, N: n, K: k, BK: k, AType: a, BType: b, DType: d, ResultType: d,
		ScaleD: true, ScaleA: 1, ScaleB: 1, Sparse: sparse, Tgt: target.MustParse("sm_90a", "")}
	if sparse {
		v.Tgt = target.MustParse("sm_90a", "8.4")
	}
	return v
}

func wgWith(v wg.Value, f func(*wg.Value)) wg.Value { f(&v); return v }

var wgBase = wgOf(wg.F16, wg.F16, wg.AccF32, 128, false)

func TestWGMMASeedRules(t *testing.T) {
	d := func(f func(*wg.Value)) wg.Value { return wgWith(wgBase, f) }
	runLadderCases(t, wgmmaSeed, []ladderCase[wg.Value]{
		{"the lowering's own form", wgBase, "", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
		{"e4m3 x e5m2", wgOf(wg.E4M3, wg.E5M2, wg.AccF32, 256, false), "", "", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2"},
		{"the cross product allows f16 x e4m3", d(func(v *wg.Value) { v.BType = wg.E4M3 }),
			"", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.e4m3"},
		{"a floor admits sm_100a", d(func(v *wg.Value) { v.Tgt = target.MustParse("sm_100a", "") }),
			"", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
		{"transposed f16", d(func(v *wg.Value) { v.TransA, v.TransB = true, true }),
			"", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
		{"rank 3", d(func(v *wg.Value) { v.Rank = 3 }), "seed.wgmma.rank", "matrix fragments must be rank 2, got rank 3", ""},
		{"B with K 32", d(func(v *wg.Value) { v.BK = 32 }),
			"seed.wgmma.mnk", "M/N/K must be compatible: A is MxK and B is KxN: A has K=16, B has K=32", ""},
		{"M 128", d(func(v *wg.Value) { v.M = 128 }), "seed.wgmma.tile-shape",
			"unsupported tile shape: the lowering emits m64nXkY, X a multiple of 8 up to 256, Y one 32-byte row of A, got m128n128k16", ""},
		{"result f16", d(func(v *wg.Value) { v.ResultType = wg.AccF16 }),
			"seed.wgmma.acc-result", "accumulator and result types must match: f32 vs f16", ""},
		{"transposed e4m3", wgWith(wgOf(wg.E4M3, wg.E4M3, wg.AccF32, 64, false), func(v *wg.Value) { v.TransB = true }),
			"seed.wgmma.transpose", "transpose flags are legal only for f16/bf16", ""},
		{"f16 accumulator", d(func(v *wg.Value) { v.DType, v.ResultType = wg.AccF16, wg.AccF16 }), "seed.wgmma.types",
			"the lowering emits only wgmma.mma_async.sync.aligned.m64nXkY.f32.{f16,bf16,e4m3,e5m2}.{f16,bf16,e4m3,e5m2}", ""},
		{"A in registers", d(func(v *wg.Value) { v.ARegister = true }),
			"seed.wgmma.a-descriptor", "nvgpu.warpgroup.mma takes A as a shared-memory descriptor (descriptorA)", ""},
		{"negated A", d(func(v *wg.Value) { v.ScaleA = -1 }),
			"seed.wgmma.imm-scales", "the lowering passes imm-scale-a = imm-scale-b = 1", ""},
		{"satfinite", d(func(v *wg.Value) { v.Satfinite = true }),
			"seed.wgmma.qualifiers", "nvgpu.warpgroup.mma has no .sp or .satfinite form", ""},
		{"plain sm_90", d(func(v *wg.Value) { v.Tgt = target.MustParse("sm_90", "") }), "seed.wgmma.arch-floor",
			"nvgpu.warpgroup.mma requires sm_90a (plain sm_90 rejects it) and PTX ISA 8.0: sm_90 (PTX 7.8)", ""},
		{"fail-first: sparse reports its K as a tile shape", wgOf(wg.F16, wg.F16, wg.AccF32, 64, true), "seed.wgmma.tile-shape",
			"unsupported tile shape: the lowering emits m64nXkY, X a multiple of 8 up to 256, Y one 32-byte row of A, got m64n64k32", ""},
	})
}

func TestWGMMAPTXISARules(t *testing.T) {
	d := func(f func(*wg.Value)) wg.Value { return wgWith(wgBase, f) }
	i8 := wgOf(wg.S8, wg.S8, wg.AccS32, 32, false)
	sp := wgOf(wg.F16, wg.F16, wg.AccF32, 64, true)
	runLadderCases(t, wgmmaPTXISA, []ladderCase[wg.Value]{
		{"f16 from a descriptor", wgBase, "", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
		{"f16 A in registers, negated, B transposed", d(func(v *wg.Value) { v.ARegister, v.ScaleA, v.TransB = true, -1, true }),
			"", "", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"},
		{"integer satfinite", wgWith(i8, func(v *wg.Value) { v.Satfinite = true }),
			"", "", "wgmma.mma_async.sync.aligned.m64n32k32.satfinite.s32.s8.s8"},
		{"b1", wgOf(wg.B1, wg.B1, wg.AccS32, 256, false), "", "", "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc"},
		{"sparse tf32 with sp-sel 1", wgWith(wgOf(wg.TF32, wg.TF32, wg.AccF32, 8, true), func(v *wg.Value) { v.SpSel = 1 }),
			"", "", "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32"},
		{"dense s8 N 256", wgOf(wg.S8, wg.S8, wg.AccS32, 256, false), "", "", "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8"},
		{"ptx older than sm_90a", d(func(v *wg.Value) { v.Tgt = target.MustParse("sm_90a", "7.8") }),
			"ptxisa.wgmma.target-ptx-version", "PTX ISA version does not know the .target: sm_90a (PTX 7.8)", ""},
		{"sm_100a", d(func(v *wg.Value) { v.Tgt = target.MustParse("sm_100a", "") }),
			"ptxisa.wgmma.target", "wgmma.mma_async requires sm_90a, got sm_100a", ""},
		{"rank 1", d(func(v *wg.Value) { v.Rank = 1 }), "ptxisa.wgmma.rank", "A (MxK), B (KxN) and D (MxN) are 2-D matrices", ""},
		{"B with K 8", d(func(v *wg.Value) { v.BK = 8 }), "ptxisa.wgmma.mnk", "A and B must share K: one .shape names both", ""},
		{"result s32", d(func(v *wg.Value) { v.ResultType = wg.AccS32 }),
			"ptxisa.wgmma.acc-result", "d is both accumulator and destination: one .dtype", ""},
		{"f64", wgOf(wg.F64, wg.F64, wg.AccF64, 64, false),
			"ptxisa.wgmma.input-type", "no wgmma.mma_async takes this .atype/.btype: .f64/.f64", ""},
		{"f16 x bf16", d(func(v *wg.Value) { v.BType = wg.BF16 }),
			"ptxisa.wgmma.type-pair", ".atype and .btype must match, or both be FP8 or both 8-bit integers", ""},
		{"sparse b1", wgWith(wgOf(wg.B1, wg.B1, wg.AccS32, 64, false), func(v *wg.Value) { v.Sparse = true }),
			"ptxisa.wgmma.sparse-b1", "wgmma.mma_async.sp has no .b1 form", ""},
		{"bf16 into f16", wgOf(wg.BF16, wg.BF16, wg.AccF16, 64, false),
			"ptxisa.wgmma.dtype", ".dtype not allowed for this .atype: .f16 with .bf16", ""},
		{"M 32", d(func(v *wg.Value) { v.M = 32 }), "ptxisa.wgmma.m", "M must be 64", ""},
		{"K 32 for f16", d(func(v *wg.Value) { v.K, v.BK = 32, 32 }), "ptxisa.wgmma.k",
			"K must be one 32-byte row of A (16 .f16/.bf16, 8 .tf32, 32 8-bit, 256 .b1), doubled with .sp: got 32, want 16", ""},
		{"N 40 for s8", wgWith(i8, func(v *wg.Value) { v.N = 40 }), "ptxisa.wgmma.n", "N not allowed for this .atype: n40 with .s8", ""},
		{"N 40 for f16", d(func(v *wg.Value) { v.N = 40 }), "", "", "wgmma.mma_async.sync.aligned.m64n40k16.f32.f16.f16"},
		{"sp-sel 1 for e4m3", wgWith(wgOf(wg.E4M3, wg.E4M3, wg.AccF32, 64, true), func(v *wg.Value) { v.SpSel = 1 }),
			"ptxisa.wgmma.sp-sel", "sp-sel must be 0 or 1 for .tf32/.f16/.bf16 and 0 for FP8 and .s8/.u8", ""},
		{"transposed tf32", wgWith(wgOf(wg.TF32, wg.TF32, wg.AccF32, 64, false), func(v *wg.Value) { v.TransA = true }),
			"ptxisa.wgmma.transpose", "imm-trans-a/b apply only to .f16/.bf16", ""},
		{"transposed register A", d(func(v *wg.Value) { v.ARegister, v.TransA = true, true }),
			"ptxisa.wgmma.trans-a-register", "imm-trans-a needs A from a shared-memory descriptor", ""},
		{"scale 0", d(func(v *wg.Value) { v.ScaleB = 0 }), "ptxisa.wgmma.scale-values", "imm-scale-a/b must be -1 or 1", ""},
		{"negated s8", wgWith(i8, func(v *wg.Value) { v.ScaleA = -1 }),
			"ptxisa.wgmma.scale-integer", "integer and .b1 forms take no imm-scale-a/b: no negation", ""},
		{"satfinite f16", d(func(v *wg.Value) { v.Satfinite = true }),
			"ptxisa.wgmma.satfinite", ".satfinite applies only to .s8/.u8", ""},
		{"sparse on PTX 8.1", wgWith(sp, func(v *wg.Value) { v.Tgt = target.MustParse("sm_90a", "8.1") }),
			"ptxisa.wgmma.sparse-ptx", "wgmma.mma_async.sp requires PTX ISA 8.2", ""},
		{"s8 x u8 on PTX 8.3", wgWith(i8, func(v *wg.Value) { v.BType, v.Tgt = wg.U8, target.MustParse("sm_90a", "8.3") }),
			"ptxisa.wgmma.mixed-int-ptx", ".u8.s8 and .s8.u8 require PTX ISA 8.4", ""},
	})
}

// TestWGMMAShapeClosedForm brute-forces the N closed form against the
// transcribed PTX lists, and checks K, for every input type.
func TestWGMMAShapeClosedForm(t *testing.T) {
	for ty := range wgmmaKTable {
		list := wgmmaNLists[wgmmaIntForm(ty)]
		for n := range wg.MaxDim + 1 {
			if got, want := wgmmaNOK(ty, n), slices.Contains(list, n); got != want {
				t.Errorf(".%s N=%d: closed form %v, PTX list %v", ty, n, got, want)
			}
			if err := checkWGMMAShapeLists(wg.Value{AType: ty, N: uint16(n)}); err != nil {
				t.Error(err)
			}
		}
	}
}
