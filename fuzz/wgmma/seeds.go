package wgmma

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Seeds are seed 004's lowering spelling (m64nXkY.f32 over f16, bf16, e4m3,
// e5m2), one legal form per PTX input type, dense and sparse, the N bounds,
// and one value crossing each rule of both sets.
func Seeds() []domain.Value {
	sm90a := target.MustParse("sm_90a", "")
	sparsePTX := target.MustParse("sm_90a", "8.4") // .sp from 8.2, mixed .s8/.u8 from 8.4
	form := func(a, b Type, d AccType, n uint16, sparse bool) Value {
		k := NaturalK(a, sparse)
		v := Value{Rank: 2, M: 64, N: n, K: k, BK: k, AType: a, BType: b, DType: d, ResultType: d,
			ScaleD: true, ScaleA: 1, ScaleB: 1, Sparse: sparse, Tgt: sm90a}
		if sparse {
			v.Tgt = sparsePTX
		}
		return v
	}
	vals := []domain.Value{
		form(F16, F16, AccF32, 128, false), form(BF16, BF16, AccF32, 256, false),
		form(E4M3, E5M2, AccF32, 8, false), form(E5M2, E5M2, AccF32, 64, false),
		form(F16, F16, AccF16, 72, false), form(TF32, TF32, AccF32, 16, false),
		form(E4M3, E4M3, AccF16, 248, false), form(S8, S8, AccS32, 24, false),
		form(U8, U8, AccS32, 224, false), form(B1, B1, AccS32, 256, false),
		form(F16, F16, AccF32, 64, true), form(TF32, TF32, AccF32, 8, true),
		form(E4M3, E4M3, AccF32, 128, true), form(S8, U8, AccS32, 240, true),
		// Dense integer N 240 and 256: past the PTX syntax list, used by CUTLASS, allowed by MLIR.
		form(S8, S8, AccS32, 256, false), form(S8, S8, AccS32, 240, false),
	}
	return append(vals, ruleBoundaries(form(F16, F16, AccF32, 128, false), form)...)
}

// ruleBoundaries are one-field changes of legal forms that each cross one
// rule of either set.
func ruleBoundaries(base Value, form func(a, b Type, d AccType, n uint16, sparse bool) Value) []domain.Value {
	with := func(b Value, f func(*Value)) domain.Value { v := b; f(&v); return v }
	d := func(f func(*Value)) domain.Value { return with(base, f) }
	i8 := form(S8, S8, AccS32, 32, false)
	sp := form(F16, F16, AccF32, 64, true)
	ptx := func(p string) target.Target { return target.MustParse("sm_90a", p) }
	return []domain.Value{
		d(func(v *Value) { v.Rank = 3 }),
		d(func(v *Value) { v.BK = 32 }),
		d(func(v *Value) { v.M = 128 }),
		// MLIR's own example tile (128x128x64, B transposed): the one shape
		// whose descriptor steps its lowering gets right.
		d(func(v *Value) { v.M, v.K, v.BK, v.TransB = 128, 64, 64, true }),
		d(func(v *Value) { v.N = 12 }),
		d(func(v *Value) { v.N = 264 }),
		d(func(v *Value) { v.K = 32; v.BK = 32 }),
		d(func(v *Value) { v.K = 24; v.BK = 24 }), // not a multiple of k16: MLIR must split or refuse, not drop work
		d(func(v *Value) { v.ResultType = AccF16 }),
		d(func(v *Value) { v.TransA, v.TransB = true, true }),
		d(func(v *Value) { v.ARegister, v.TransB = true, true }),
		d(func(v *Value) { v.ARegister, v.TransA = true, true }),
		d(func(v *Value) { v.ScaleA = -1 }),
		d(func(v *Value) { v.ScaleB = 0 }),
		d(func(v *Value) { v.ScaleA = 2 }),
		d(func(v *Value) { v.Satfinite = true }),
		d(func(v *Value) { v.BType = BF16 }),
		d(func(v *Value) { v.BType = E4M3 }), // the seed's cross product allows f16 x e4m3
		d(func(v *Value) { v.AType, v.BType, v.DType, v.ResultType = BF16, BF16, AccF16, AccF16 }),
		d(func(v *Value) { v.AType, v.BType, v.K, v.BK = F64, F64, 4, 4 }),
		d(func(v *Value) { v.AType, v.BType, v.K, v.BK = S4, S4, 64, 64 }),
		d(func(v *Value) { v.DType, v.ResultType = AccS32, AccS32 }),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_90", "") }),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_100a", "") }),
		d(func(v *Value) { v.Tgt = target.MustParse("sm_120a", "") }),
		d(func(v *Value) { v.Tgt = ptx("7.8") }),
		d(func(v *Value) { v.Sparse = true }), // dense K under .sp
		with(form(TF32, TF32, AccF32, 64, false), func(v *Value) { v.TransB = true }),
		with(form(E4M3, E5M2, AccF32, 64, false), func(v *Value) { v.TransA = true }),
		with(form(E4M3, E5M2, AccF16, 64, false), func(v *Value) { v.ScaleA, v.ScaleB = -1, -1 }),
		with(i8, func(v *Value) { v.Satfinite, v.ARegister = true, true }),
		with(i8, func(v *Value) { v.ScaleB = -1 }),
		with(i8, func(v *Value) { v.N = 40 }),
		with(i8, func(v *Value) { v.BType, v.Tgt = U8, ptx("8.3") }),
		with(i8, func(v *Value) { v.BType, v.Tgt = U8, ptx("8.4") }),
		with(i8, func(v *Value) { v.BType = E4M3 }),
		with(i8, func(v *Value) { v.DType, v.ResultType = AccF32, AccF32 }),
		with(form(B1, B1, AccS32, 8, false), func(v *Value) { v.Sparse = true }),
		with(form(B1, B1, AccS32, 8, false), func(v *Value) { v.N = 40 }),
		with(sp, func(v *Value) { v.SpSel = 1 }),
		with(sp, func(v *Value) { v.SpSel = 2 }),
		with(sp, func(v *Value) { v.Tgt = ptx("8.1") }),
		with(form(E4M3, E4M3, AccF32, 64, true), func(v *Value) { v.SpSel = 1 }),
		with(form(S8, S8, AccS32, 256, true), func(v *Value) { v.SpSel = 0; v.Tgt = ptx("8.2") }),
	}
}
