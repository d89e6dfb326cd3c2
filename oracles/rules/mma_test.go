package rules

import (
	"testing"

	mm "github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// mmaOf builds a rank-3 instruction with matching A/B and C/D types.
func mmaOf(s mm.Sparsity, m, n, k uint16, ab, acc mm.Type, arch, ptx string) mm.Value {
	v := mm.Value{Sparsity: s, ShapeRank: 3, Shape: [mm.MaxShapeRank]uint16{m, n, k}, BLayout: mm.Col,
		AType: ab, BType: ab, CType: acc, DType: acc, Tgt: target.MustParse(arch, ptx)}
	if ab == mm.B1 {
		v.BitOp = mm.AndPopc
	}
	return v
}

func mmWith(v mm.Value, f func(*mm.Value)) mm.Value { f(&v); return v }

var (
	mmDense  = mmaOf(mm.Dense, 16, 8, 16, mm.F16, mm.F32, "sm_80", "7.1")
	mmSparse = mmaOf(mm.SP, 16, 8, 16, mm.F16, mm.F32, "sm_80", "7.1")
)

func TestMMASeedRules(t *testing.T) {
	d := func(f func(*mm.Value)) mm.Value { return mmWith(mmDense, f) }
	s := func(f func(*mm.Value)) mm.Value { return mmWith(mmSparse, f) }
	runLadderCases(t, mmaSeed, []ladderCase[mm.Value]{
		{"m16n8k16 f16 on sm_80", mmDense, "", "", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
		{"the lowering keeps any layout", d(func(v *mm.Value) { v.ALayout, v.BLayout = mm.Col, mm.Row }),
			"", "", "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32"},
		{"Hopper path from PTX 8.0", d(func(v *mm.Value) { v.Tgt = target.MustParse("sm_90", "8.0") }),
			"", "", "nvvm.wgmma.mma_async (seed 004's Hopper path)"},
		{"sparse template is row.col without ordered metadata", s(func(v *mm.Value) {
			v.Sparsity, v.ALayout, v.Selector = mm.SPOrdered, mm.Col, 1
		}), "", "", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
		{"signless integers: s8 x u8", d(func(v *mm.Value) { v.AType, v.BType, v.Shape[2] = mm.S8, mm.U8, 32 }),
			"", "", "mma.sync.aligned.m16n8k32.row.col.f32.s8.u8.f32"},
		{"shape of rank 2", d(func(v *mm.Value) { v.ShapeRank, v.Shape[2] = 2, 0 }),
			"seed.mma.shape-rank", "mmaShape must be an array of length 3, got 2 entries", ""},
		{"e4m3 x e5m2", d(func(v *mm.Value) { v.AType, v.BType, v.Shape[2] = mm.E4M3, mm.E5M2, 32 }),
			"seed.mma.element-types", "matrixA and matrixB must have the same element type", ""},
		{"tf32 with s8", d(func(v *mm.Value) { v.AType, v.BType, v.TF32 = mm.S8, mm.S8, true }),
			"seed.mma.tf32-operands", "tf32 only pairs with valid floating-point operands", ""},
		{"tf32 with f16 passes the seed", d(func(v *mm.Value) { v.TF32 = true }),
			"", "", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
		{"selector 2", s(func(v *mm.Value) { v.Selector = 2 }),
			"seed.mma.sparsity-selector", "sparsitySelector must be 0 or 1, got 2", ""},
		{"sparse m16n8k64", s(func(v *mm.Value) { v.AType, v.BType, v.Shape[2] = mm.S8, mm.S8, 64 }),
			"seed.mma.sparse-shape", "nvgpu.mma.sp.sync lowers only to mma.sp.sync.aligned.m16n8k{16,32}, got m16n8k64", ""},
		{"m8n8k4", d(func(v *mm.Value) { v.Shape = [mm.MaxShapeRank]uint16{8, 8, 4} }),
			"seed.mma.dense-shape", "nvgpu.mma.sync lowers to mma.sync.aligned.m16n8kK, got m8n8k4", ""},
		{"any K passes the seed", d(func(v *mm.Value) { v.Shape[2] = 7 }),
			"", "", "mma.sync.aligned.m16n8k7.row.col.f32.f16.f16.f32"},
		{"PTX 6.5", d(func(v *mm.Value) { v.Tgt = target.MustParse("sm_80", "6.5") }),
			"seed.mma.ptx-floor", "nvgpu.mma.sync requires sm_80 and PTX ISA 7.0: sm_80 (PTX 6.5)", ""},
		{"sparse on PTX 7.0", s(func(v *mm.Value) { v.Tgt = target.MustParse("sm_80", "7.0") }),
			"seed.mma.sparse-ptx-floor", "nvgpu.mma.sp.sync requires sm_80 and PTX ISA 7.1: sm_80 (PTX 7.0)", ""},
		{"sm_90 with PTX 7.8", d(func(v *mm.Value) { v.Tgt = target.MustParse("sm_90", "7.8") }),
			"seed.mma.hopper-path", "nvgpu.mma.sync on sm_90 redirects through nvvm.wgmma.mma_async, which needs PTX ISA 8.0: sm_90 (PTX 7.8)", ""},
	})
}

func TestMMAPTXISARules(t *testing.T) {
	d := func(f func(*mm.Value)) mm.Value { return mmWith(mmDense, f) }
	s := func(f func(*mm.Value)) mm.Value { return mmWith(mmSparse, f) }
	runLadderCases(t, mmaPTXISA, append([]ladderCase[mm.Value]{
		{"m16n8k16 f16", mmDense, "", "", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
		{"m8n8k4 col.row with f16 C and f32 D", mmWith(mmaOf(mm.Dense, 8, 8, 4, mm.F16, mm.F16, "sm_80", "7.0"), func(v *mm.Value) {
			v.ALayout, v.BLayout, v.DType = mm.Col, mm.Row, mm.F32
		}), "", "", "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16"},
		{"m8n8k4 with f32 C into f16 D", mmWith(mmaOf(mm.Dense, 8, 8, 4, mm.F16, mm.F32, "sm_80", "7.0"), func(v *mm.Value) { v.DType = mm.F16 }),
			"ptxisa.mma.dtype-ctype", ".dtype must equal .ctype (only m8n8k4 .f16 lets an .f16 C give an .f32 D)", ""},
		{"tf32", mmaOf(mm.Dense, 16, 8, 8, mm.F32, mm.F32, "sm_80", ""),
			"ptxisa.mma.input-type", "no mma takes this .atype/.btype (32-bit floats only as .tf32): .f32/.f32", ""},
		{"tf32 enabled", mmWith(mmaOf(mm.Dense, 16, 8, 8, mm.F32, mm.F32, "sm_80", ""), func(v *mm.Value) { v.TF32 = true }),
			"", "", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"},
		{"b1 xor", mmWith(mmaOf(mm.Dense, 8, 8, 128, mm.B1, mm.S32, "sm_80", "7.0"), func(v *mm.Value) { v.BitOp = mm.XorPopc }),
			"", "", "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc"},
		{"s4 x u4 satfinite", mmWith(mmaOf(mm.Dense, 16, 8, 64, mm.S4, mm.S32, "sm_80", ""), func(v *mm.Value) {
			v.BType, v.Satfinite = mm.U4, true
		}), "", "", "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32"},
		{"sparse ordered fp8", mmWith(mmaOf(mm.SPOrdered, 16, 8, 64, mm.E5M2, mm.F32, "sm_89", "8.5"), func(v *mm.Value) { v.BType = mm.E4M3 }),
			"", "", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32"},
		{"sparse selector 3 at m16n8k16", s(func(v *mm.Value) { v.Selector = 3 }), "", "", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
		{"ptx older than the target", d(func(v *mm.Value) { v.Tgt = target.MustParse("sm_90", "7.1") }),
			"ptxisa.mma.target-ptx-version", "PTX ISA version does not know the .target: sm_90 (PTX 7.1)", ""},
		{"rank 4", d(func(v *mm.Value) { v.ShapeRank, v.Shape[3] = 4, 2 }),
			"ptxisa.mma.shape-rank", "the shape is .mMnNkK: three entries", ""},
		{"tf32 with f16", d(func(v *mm.Value) { v.TF32 = true }),
			"ptxisa.mma.tf32-operands", ".tf32 applies only when A and B are 32-bit floats", ""},
		{"f16 x bf16", d(func(v *mm.Value) { v.BType = mm.BF16 }),
			"ptxisa.mma.type-pair", ".atype and .btype must match, or both be FP8, 8-bit or 4-bit integers", ""},
		{"sparse f64", s(func(v *mm.Value) { v.AType, v.BType, v.CType, v.DType = mm.F64, mm.F64, mm.F64, mm.F64 }),
			"ptxisa.mma.sparse-type", "mma.sp has no .f64 or .b1 form", ""},
		{"m16n8k7", d(func(v *mm.Value) { v.Shape[2] = 7 }),
			"ptxisa.mma.shape", "no mma of this shape for this .atype: .m16n8k7 .f16", ""},
		{"bf16 with f16 accumulators", d(func(v *mm.Value) { v.AType, v.BType, v.CType, v.DType = mm.BF16, mm.BF16, mm.F16, mm.F16 }),
			"ptxisa.mma.accumulator-type", ".ctype/.dtype not allowed for this .atype", ""},
		{"m16n8k16 f32 C into f16 D", d(func(v *mm.Value) { v.DType = mm.F16 }),
			"ptxisa.mma.dtype-ctype", ".dtype must equal .ctype (only m8n8k4 .f16 lets an .f16 C give an .f32 D)", ""},
		{"m16n8k16 col.col", d(func(v *mm.Value) { v.ALayout = mm.Col }),
			"ptxisa.mma.layout", ".row.col is the only layout except for dense .m8n8k4 .f16", ""},
		{"f16 satfinite", d(func(v *mm.Value) { v.Satfinite = true }),
			"ptxisa.mma.satfinite", ".satfinite applies only to .s8/.u8/.s4/.u4", ""},
		{"b1 without an operation", mmWith(mmaOf(mm.Dense, 16, 8, 256, mm.B1, mm.S32, "sm_80", ""), func(v *mm.Value) { v.BitOp = mm.NoBitOp }),
			"ptxisa.mma.bit-op", ".b1 needs .xor.popc or .and.popc, and only .b1 takes them", ""},
		{"selector 2 at m16n8k32", s(func(v *mm.Value) { v.Shape[2], v.Selector = 32, 2 }),
			"ptxisa.mma.selector", "sparsity selector out of range for this shape and type: 2, allowed 0..1", ""},
		{"selector 1 at s8 m16n8k64", mmWith(mmaOf(mm.SP, 16, 8, 64, mm.S8, mm.S32, "sm_80", "7.1"), func(v *mm.Value) { v.Selector = 1 }),
			"ptxisa.mma.selector", "sparsity selector out of range for this shape and type: 1, allowed 0..0", ""},
	}, mmaGateCases()...))
}

// mmaGateCases cross the target and PTX version gates.
func mmaGateCases() []ladderCase[mm.Value] {
	fp8 := mmaOf(mm.Dense, 16, 8, 32, mm.E4M3, mm.F32, "sm_89", "8.4")
	return []ladderCase[mm.Value]{
		{"fp8 on sm_89", fp8, "", "", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
		{"fp8 on sm_86", mmWith(fp8, func(v *mm.Value) { v.Tgt = target.MustParse("sm_86", "8.4") }),
			"ptxisa.mma.fp8-target", ".e4m3/.e5m2 mma requires sm_89 or higher", ""},
		{"fp8 on PTX 8.3", mmWith(fp8, func(v *mm.Value) { v.Tgt = target.MustParse("sm_90", "8.3") }),
			"ptxisa.mma.fp8-ptx", ".e4m3/.e5m2 mma requires PTX ISA 8.4", ""},
		{"fp8 f16 accumulators on PTX 8.4", mmWith(fp8, func(v *mm.Value) { v.CType, v.DType = mm.F16, mm.F16 }),
			"ptxisa.mma.fp8-k16-f16-ptx", ".e4m3/.e5m2 mma with .m16n8k16 or .f16 accumulators requires PTX ISA 8.7", ""},
		{"fp8 m16n8k16 on PTX 8.7", mmWith(fp8, func(v *mm.Value) { v.Shape[2], v.Tgt = 16, target.MustParse("sm_89", "8.7") }),
			"", "", "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32"},
		{"f64 m16n8k8 on sm_89", mmaOf(mm.Dense, 16, 8, 8, mm.F64, mm.F64, "sm_89", ""),
			"ptxisa.mma.f64-target", ".f64 mma with .m16n8k4/k8/k16 requires sm_90 or higher", ""},
		{"f64 m8n8k4 on sm_80", mmaOf(mm.Dense, 8, 8, 4, mm.F64, mm.F64, "sm_80", ""),
			"", "", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"},
		{"and.popc on PTX 7.0", mmaOf(mm.Dense, 16, 8, 128, mm.B1, mm.S32, "sm_80", "7.0"),
			"ptxisa.mma.and-popc-ptx", ".and.popc requires PTX ISA 7.1", ""},
		{"sparse on PTX 7.0", mmWith(mmSparse, func(v *mm.Value) { v.Tgt = target.MustParse("sm_80", "7.0") }),
			"ptxisa.mma.sparse-ptx", "mma.sp requires PTX ISA 7.1", ""},
		{"ordered metadata on PTX 8.4", mmWith(mmSparse, func(v *mm.Value) { v.Sparsity, v.Tgt = mm.SPOrdered, target.MustParse("sm_80", "8.4") }),
			"ptxisa.mma.ordered-metadata-ptx", "mma.sp::ordered_metadata requires PTX ISA 8.5", ""},
	}
}

// TestMMASelectorClosedForm holds the selector closed form to PTX ISA
// 9.7.14.6.1 for every type, with and without tf32.
func TestMMASelectorClosedForm(t *testing.T) {
	for ty := range mm.Type(len(mm.Types)) {
		for _, tf32 := range []bool{false, true} {
			if err := checkMMASelectors(mm.Value{AType: ty, TF32: tf32}); err != nil {
				t.Error(err)
			}
		}
	}
	for f, ks := range mmaSelectorTable {
		for k := range ks {
			if !slicesContainsK(mmaShapes[true][f], k) {
				t.Errorf("selector table has K=%d that family %d has no sparse shape for", k, f)
			}
		}
	}
}

func slicesContainsK(shapes [][3]int, k int) bool {
	for _, s := range shapes {
		if s[2] == k {
			return true
		}
	}
	return false
}
