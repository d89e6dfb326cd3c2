package mma

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// form is one PTX shape row: shape, A/B type and accumulator type.
type form struct {
	m, n, k uint16
	ab, acc Type
	tf32    bool
}

// denseForms are the dense mma.sync rows of PTX ISA 9.7.14.5.14, one per
// shape and input type.
var denseForms = []form{
	{8, 8, 4, F16, F32, false}, {16, 8, 8, F16, F16, false}, {16, 8, 16, F16, F32, false},
	{16, 8, 8, BF16, F32, false}, {16, 8, 16, BF16, F32, false},
	{16, 8, 4, F32, F32, true}, {16, 8, 8, F32, F32, true},
	{8, 8, 4, F64, F64, false}, {16, 8, 4, F64, F64, false}, {16, 8, 8, F64, F64, false}, {16, 8, 16, F64, F64, false},
	{16, 8, 32, E4M3, F32, false}, {16, 8, 16, E5M2, F32, false},
	{8, 8, 16, S8, S32, false}, {16, 8, 16, U8, S32, false}, {16, 8, 32, S8, S32, false},
	{8, 8, 32, S4, S32, false}, {16, 8, 32, U4, S32, false}, {16, 8, 64, S4, S32, false},
	{8, 8, 128, B1, S32, false}, {16, 8, 128, B1, S32, false}, {16, 8, 256, B1, S32, false},
}

// sparseForms are the mma.sp rows of PTX ISA 9.7.14.6.3.
var sparseForms = []form{
	{16, 8, 16, F16, F16, false}, {16, 8, 32, F16, F32, false},
	{16, 8, 16, BF16, F32, false}, {16, 8, 32, BF16, F32, false},
	{16, 8, 8, F32, F32, true}, {16, 8, 16, F32, F32, true},
	{16, 8, 64, E4M3, F32, false},
	{16, 8, 32, S8, S32, false}, {16, 8, 64, U8, S32, false},
	{16, 8, 64, S4, S32, false}, {16, 8, 128, U4, S32, false},
}

// Seeds are seed 004's lowering shapes (m16n8k{16,32}, dense and sparse),
// every PTX shape row on a target that has it, and one value crossing each
// rule of both sets.
func Seeds() []domain.Value {
	var vals []domain.Value
	for _, f := range denseForms {
		vals = append(vals, f.value(Dense, formTarget(f)))
	}
	for _, f := range sparseForms {
		vals = append(vals, f.value(SP, formTarget(f)), f.value(SPOrdered, target.MustParse("sm_90", "8.5")))
	}
	return append(vals, ruleBoundaries()...)
}

func (f form) value(s Sparsity, t target.Target) Value {
	v := Value{Sparsity: s, ShapeRank: 3, Shape: [MaxShapeRank]uint16{f.m, f.n, f.k}, BLayout: Col,
		AType: f.ab, BType: f.ab, CType: f.acc, DType: f.acc, TF32: f.tf32, Tgt: t}
	if f.ab == B1 {
		v.BitOp = AndPopc
	}
	return v
}

// formTarget is the oldest known target and PTX version that has f: FP8
// needs sm_89 and PTX 8.4, the large f64 shapes sm_90.
func formTarget(f form) target.Target {
	switch {
	case f.ab == E4M3 && f.k == 16, f.ab == E5M2 && f.k == 16:
		return target.MustParse("sm_89", "8.7")
	case f.ab == E4M3 || f.ab == E5M2:
		return target.MustParse("sm_89", "8.4")
	case f.ab == F64 && f.m == 16:
		return target.MustParse("sm_90", "")
	}
	return target.MustParse("sm_80", "7.1")
}

// ruleBoundaries are one-field changes of legal instructions that each
// cross one rule of either set.
func ruleBoundaries() []domain.Value {
	sm80 := target.MustParse("sm_80", "7.1")
	dense := form{16, 8, 16, F16, F32, false}.value(Dense, sm80)
	sparse := form{16, 8, 16, F16, F32, false}.value(SP, sm80)
	with := func(base Value, f func(*Value)) domain.Value { v := base; f(&v); return v }
	d := func(f func(*Value)) domain.Value { return with(dense, f) }
	s := func(f func(*Value)) domain.Value { return with(sparse, f) }
	return []domain.Value{
		d(func(v *Value) { v.ShapeRank, v.Shape[2] = 2, 0 }),
		d(func(v *Value) { v.ShapeRank, v.Shape[3] = 4, 1 }),
		d(func(v *Value) { v.BType = BF16 }),
		d(func(v *Value) { v.AType, v.BType, v.Shape[2] = S8, U8, 32; v.CType, v.DType = S32, S32 }),
		d(func(v *Value) {
			v.AType, v.BType, v.Shape[2] = E4M3, E5M2, 32
			v.Tgt = target.MustParse("sm_89", "8.4")
		}),
		d(func(v *Value) { v.AType, v.BType, v.Shape[2] = E4M3, E5M2, 32; v.Tgt = target.MustParse("sm_86", "") }),
		d(func(v *Value) {
			v.AType, v.BType, v.Shape[2] = E4M3, E4M3, 32
			v.Tgt = target.MustParse("sm_89", "7.8")
		}),
		d(func(v *Value) { v.TF32 = true }),                                           // tf32 with f16 operands
		d(func(v *Value) { v.AType, v.BType, v.TF32, v.Shape[2] = S8, S8, true, 32 }), // tf32 with integers
		d(func(v *Value) { v.AType, v.BType, v.Shape[2] = F32, F32, 8 }),              // f32 without tf32
		d(func(v *Value) { v.AType, v.BType = S32, S32 }),
		d(func(v *Value) { v.Shape = [MaxShapeRank]uint16{8, 8, 16} }),
		d(func(v *Value) { v.Shape = [MaxShapeRank]uint16{16, 8, 7} }),
		d(func(v *Value) { v.Shape = [MaxShapeRank]uint16{16, 16, 16} }),
		d(func(v *Value) { v.CType, v.DType = S32, S32 }),
		d(func(v *Value) { v.CType, v.DType = F32, F16 }),
		d(func(v *Value) { v.Shape, v.CType, v.DType = [MaxShapeRank]uint16{8, 8, 4}, F32, F16 }),
		d(func(v *Value) { v.Shape, v.CType, v.DType = [MaxShapeRank]uint16{8, 8, 4}, F16, F32 }),
		d(func(v *Value) { v.Shape, v.ALayout, v.BLayout = [MaxShapeRank]uint16{8, 8, 4}, Col, Row }),
		d(func(v *Value) { v.ALayout = Col }),
		d(func(v *Value) { v.BLayout = Row }),
		d(func(v *Value) { v.Satfinite = true }),
		d(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.Satfinite, v.Shape[2] = S8, S8, S32, S32, true, 32
		}),
		d(func(v *Value) { v.AType, v.BType, v.CType, v.DType, v.Shape[2] = B1, B1, S32, S32, 128 }),
		d(func(v *Value) { v.BitOp = XorPopc }),
		d(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape[2], v.BitOp = B1, B1, S32, S32, 256, AndPopc
			v.Tgt = target.MustParse("sm_80", "7.0")
		}),
		d(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape[2], v.BitOp = B1, B1, S32, S32, 256, XorPopc
			v.Tgt = target.MustParse("sm_80", "7.0")
		}),
		d(func(v *Value) { v.AType, v.BType, v.CType, v.DType, v.Shape[2] = F64, F64, F64, F64, 8 }),
		d(func(v *Value) { v.AType, v.BType, v.Shape[2], v.Tgt = E4M3, E4M3, 16, target.MustParse("sm_89", "8.4") }),
		d(func(v *Value) {
			v.AType, v.BType, v.Shape[2], v.CType, v.DType = E4M3, E5M2, 32, F16, F16
			v.Tgt = target.MustParse("sm_89", "8.7")
		}),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_80", "6.5") }),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_90", "7.8") }), // the seed's Hopper path
		d(func(v *Value) { v.Tgt = target.MustParse("sm_90a", "8.0") }),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_120a", "") }),
		s(func(v *Value) { v.Selector = 1 }),
		s(func(v *Value) { v.Selector = 3 }), // PTX allows 0..3 at m16n8k16
		s(func(v *Value) { v.Shape[2], v.Selector = 32, 2 }),
		s(func(v *Value) { v.AType, v.BType, v.CType, v.DType, v.Shape[2], v.Selector = S8, S8, S32, S32, 64, 1 }),
		s(func(v *Value) { v.Shape[2] = 8 }),
		s(func(v *Value) { v.AType, v.BType, v.TF32, v.Shape[2] = F32, F32, true, 8 }),
		s(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape = F64, F64, F64, F64, [MaxShapeRank]uint16{16, 8, 16}
		}),
		s(func(v *Value) { v.AType, v.BType, v.CType, v.DType, v.Shape[2] = B1, B1, S32, S32, 128 }),
		s(func(v *Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape[2] = E4M3, E5M2, F16, F16, 64
			v.Tgt = target.MustParse("sm_89", "8.4")
		}),
		s(func(v *Value) { v.ALayout = Col }),
		s(func(v *Value) { v.Tgt = target.MustParse("sm_80", "7.0") }),
		s(func(v *Value) { v.Sparsity, v.Tgt = SPOrdered, target.MustParse("sm_80", "8.4") }),
	}
}
