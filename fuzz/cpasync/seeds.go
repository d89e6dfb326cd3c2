package cpasync

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Seeds are seed 004's dstElements table (4, 8, 16) and its lowering
// (cp_size = dstElements × element bytes, bypassL1 → .cg), one copy that
// fires each rule of both sets, and legal copies with every optional part.
func Seeds() []domain.Value {
	sm80 := target.MustParse("sm_80", "")
	base := Value{Elem: F32, SrcElem: F32, DstElements: 4, DstStride: 1, SrcStride: 1,
		DstAddr: 0x100, SrcAddr: 0x7f0000001000, Tgt: sm80}
	with := func(f func(*Value)) domain.Value { v := base; f(&v); return v }
	elems := func(e ElemType, n uint8) func(*Value) {
		return func(v *Value) { v.Elem, v.SrcElem, v.DstElements = e, e, n }
	}
	vals := []domain.Value{
		base, // cp.async.ca 16 bytes
		with(func(v *Value) { v.Cache = CG }),
		with(elems(F16, 8)),
		with(func(v *Value) { elems(F16, 8)(v); v.Cache = CG }),
		with(elems(I8, 4)),  // 4 bytes: both sets accept
		with(elems(F16, 4)), // 8 bytes
		with(elems(I8, 16)), // 16 bytes
		// Seed 004's table counts elements, PTX counts bytes.
		with(elems(F32, 16)), // 64 bytes: the seed accepts, PTX has no such cp-size
		with(elems(F64, 8)),  // 64 bytes
		with(elems(F32, 2)),  // 8 bytes: PTX accepts, the seed refuses
		with(elems(F16, 2)),  // 4 bytes
		with(elems(I8, 0)),   // empty copy
	}
	return append(vals, ruleBoundaries(base, with)...)
}

// ruleBoundaries are one-field changes of a legal copy that each cross one
// rule of either set.
func ruleBoundaries(base Value, with func(func(*Value)) domain.Value) []domain.Value {
	ptx := func(p string) target.Target { return target.MustParse("sm_80", p) }
	return []domain.Value{
		with(func(v *Value) { v.SrcElem = F16 }),
		with(func(v *Value) { v.DstStride = 2 }),
		with(func(v *Value) { v.SrcStride = 0 }),
		with(func(v *Value) { v.Cache, v.Elem, v.SrcElem = CG, F16, F16 }), // .cg with 8 bytes
		with(func(v *Value) { v.Tgt = ptx("6.5") }),
		with(func(v *Value) { v.Cache = CS }),
		with(func(v *Value) { v.Cache = LU }),
		with(func(v *Value) { v.HasSrcElements, v.SrcElements, v.IgnoreSrc = true, 2, true }),
		with(func(v *Value) { v.HasSrcElements, v.SrcElements = true, 5 }),
		with(func(v *Value) { v.HasSrcElements, v.SrcElements = true, 4 }), // src-size == cp-size
		with(func(v *Value) { v.HasSrcElements, v.SrcElements = true, 0 }), // zero fill
		with(func(v *Value) { v.IgnoreSrc, v.Tgt = true, ptx("7.4") }),
		with(func(v *Value) { v.IgnoreSrc, v.Tgt = true, ptx("7.5") }),
		with(func(v *Value) { v.CacheHint, v.Tgt = true, ptx("7.3") }),
		with(func(v *Value) { v.Prefetch, v.Tgt = Prefetch128B, ptx("7.0") }),
		with(func(v *Value) { v.Prefetch, v.CacheHint, v.Tgt = Prefetch256B, true, ptx("7.4") }),
		with(func(v *Value) { v.DstAddr = 0x108 }),
		with(func(v *Value) { v.SrcAddr = 0x7f0000001004 }),
		with(func(v *Value) { v.Elem, v.SrcElem, v.DstElements, v.SrcAddr = F32, F32, 2, 0x7f0000001008 }),
		with(func(v *Value) {
			v.Cache, v.Prefetch, v.CacheHint, v.HasSrcElements, v.SrcElements = CG, Prefetch64B, true, true, 2
			v.Tgt = target.MustParse("sm_90a", "")
		}),
	}
}
