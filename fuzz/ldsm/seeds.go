package ldsm

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// New builds a well-formed movement of num matrices of shape s: the seed
// mode that names (s, trans), a rank-1 result of ElementsPerLane elements,
// the op's natural spaces, 16-byte alignment, RegistersPerLane registers
// and an equal cosize. Tests and seeds then change one field at a time.
func New(op Op, s Shape, num int, trans bool, size Size, t target.Target) Value {
	v := Value{
		Op: op, Mode: ModeOf(s, trans), Shape: s, NumMatrices: uint8(num), Transpose: trans, Size: size,
		ResultRank: 1, ResultDim0: uint8(ElementsPerLane(s, num)),
		Src: Shared, Dst: Register, Align: 16,
		RegisterCount: uint8(RegistersPerLane(s, num)), Tgt: t,
	}
	if op == Store {
		v.Src, v.Dst = Register, Shared
	}
	v.Cosize = v.RegisterCount
	return v
}

// Seeds are seed 001's table rows (every accepted size of every mode), a
// value that fires each rule of the seed's three verifiers, the PTX forms
// of ldmatrix and stmatrix on their first targets, and one-field changes
// that cross each PTX ISA rule.
func Seeds() []domain.Value {
	var vals []domain.Value
	for _, group := range [][]Value{seedTable(), seedRuleBoundaries(), ptxForms(), ptxBoundaries()} {
		for _, v := range group {
			vals = append(vals, v)
		}
	}
	return vals
}

var (
	sm90a  = target.MustParse("sm_90a", "")
	sm100a = target.MustParse("sm_100a", "")
)

// seedTable is every (mode, size) the seed's table accepts, at each count
// the table lists.
func seedTable() []Value {
	rows := []struct {
		s     Shape
		trans bool
		nums  []int
		sizes []Size
	}{
		{M8N8, false, []int{1, 2, 4}, []Size{U16}},
		{M8N8, true, []int{1, 2, 4}, []Size{U16}},
		{M8N16, false, []int{1, 2, 4}, []Size{U4to8, S4to8, B6P32, B4P64}},
		{M8N32, false, []int{1, 2, 4}, []Size{U2to4, S2to4}},
		{M16N16, true, []int{1, 2}, []Size{U8, B6P32, B4P64}},
	}
	var vals []Value
	for _, r := range rows {
		for _, n := range r.nums {
			for _, sz := range r.sizes {
				vals = append(vals, New(Load, r.s, n, r.trans, sz, sm90a))
			}
		}
	}
	return vals
}

// with returns v changed by f.
func with(v Value, f func(*Value)) Value { f(&v); return v }

// seedRuleBoundaries fire the seed's rules one by one.
func seedRuleBoundaries() []Value {
	m88 := New(Load, M8N8, 4, false, U16, sm90a)
	st := New(Store, M8N8, 4, false, U16, sm90a)
	return []Value{
		with(m88, func(v *Value) { v.NumMatrices = 3 }),
		with(m88, func(v *Value) { v.NumMatrices = 8 }),
		with(m88, func(v *Value) { v.NumMatrices = 0 }),
		with(m88, func(v *Value) { v.Transpose = true }), // M88 with .trans
		with(New(Load, M16N16, 1, true, U8, sm90a), func(v *Value) { v.Transpose = false }),
		with(New(Load, M8N16, 1, false, B4P64, sm90a), func(v *Value) { v.Transpose = true }),
		with(m88, func(v *Value) { v.Size = B16 }), // PTX's spelling
		New(Load, M16N16, 2, true, B8, sm90a),      // PTX's spelling
		New(Store, M16N8, 1, true, B8, sm100a),     // no seed mode
		with(m88, func(v *Value) { v.ResultRank = 2 }),
		with(m88, func(v *Value) { v.ResultRank, v.ResultDim0 = 0, 0 }),
		with(m88, func(v *Value) { v.ResultDim0 = 4 }),
		with(m88, func(v *Value) { v.Src = Global }),
		with(m88, func(v *Value) { v.Dst = Local }),
		with(st, func(v *Value) { v.Src = Shared }),
		with(st, func(v *Value) { v.Dst = Global }),
		New(Load, M16N16, 4, true, U8, sm90a), // the table's 1, 2 for .MT1616
		with(m88, func(v *Value) { v.Align = 8 }),
		with(m88, func(v *Value) { v.Align = 128 }),
		with(m88, func(v *Value) { v.Cosize = 2 }),
		with(m88, func(v *Value) { v.RegisterCount, v.Cosize = 2, 2 }),
	}
}

// ptxForms are the PTX ISA's ldmatrix and stmatrix forms on a target that
// has them.
func ptxForms() []Value {
	sm80 := target.MustParse("sm_80", "")
	sm90 := target.MustParse("sm_90", "")
	sm120a := target.MustParse("sm_120a", "")
	vals := []Value{New(Load, M8N8, 1, false, B16, sm80)}
	for _, n := range []int{1, 2, 4} {
		vals = append(vals,
			New(Load, M8N8, n, n == 4, B16, sm90a),
			New(Store, M8N8, n, n == 2, B16, sm90),
			New(Load, M8N16, n, false, B6P32, sm120a),
			New(Load, M8N16, n, false, B4P64, sm100a),
			New(Store, M16N8, n, true, B8, sm100a),
		)
	}
	for _, n := range []int{1, 2} {
		for _, sz := range []Size{B8, B6P32, B4P64} {
			vals = append(vals, New(Load, M16N16, n, true, sz, sm100a))
		}
	}
	return append(vals,
		New(Load, M16N16, 2, true, B8, target.MustParse("sm_100f", "")),
		New(Store, M16N8, 4, true, B8, target.MustParse("sm_120f", "")),
		New(Load, M8N16, 4, false, B4P64, target.MustParse("sm_103a", "")),
	)
}

// ptxBoundaries are one-field changes of a PTX form that cross one PTX ISA
// rule each.
func ptxBoundaries() []Value {
	ld := New(Load, M8N8, 4, false, B16, sm90a)
	st := New(Store, M8N8, 4, false, B16, sm90a)
	m1616 := New(Load, M16N16, 2, true, B8, sm100a)
	return []Value{
		with(ld, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "7.8") }),
		with(ld, func(v *Value) { v.Dst = Shared }),
		with(st, func(v *Value) { v.Src = Local }),
		New(Load, M16N8, 1, true, B8, sm100a),
		New(Store, M16N16, 1, true, B8, sm100a),
		New(Store, M8N16, 1, false, B4P64, sm100a),
		New(Load, M8N32, 1, false, U2to4, sm100a),
		with(ld, func(v *Value) { v.NumMatrices = 3; v.RegisterCount, v.Cosize = 3, 3 }),
		New(Load, M16N16, 4, true, B8, sm100a),
		New(Load, M16N16, 1, false, B8, sm100a),
		New(Store, M16N8, 2, false, B8, sm100a),
		New(Load, M8N16, 2, true, B6P32, sm100a),
		with(ld, func(v *Value) { v.Size = U16 }),
		with(m1616, func(v *Value) { v.Size = U8 }),
		New(Load, M8N16, 1, false, S4to8, sm100a),
		New(Load, M8N16, 1, false, U4to8, sm100a),
		with(ld, func(v *Value) { v.Size = SizeReserved }),
		with(ld, func(v *Value) { v.Size = B8 }),
		with(m1616, func(v *Value) { v.Size = B16 }),
		New(Store, M8N8, 1, false, B16, target.MustParse("sm_80", "")),
		New(Store, M8N8, 1, false, B16, target.MustParse("sm_89", "")),
		with(m1616, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "8.0") }),
		with(m1616, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "8.6") }),
		with(m1616, func(v *Value) { v.Tgt = target.MustParse("sm_100", "") }),
		with(m1616, func(v *Value) { v.Tgt = target.MustParse("sm_120", "") }),
		with(ld, func(v *Value) { v.ResultDim0 = 4 }),
		with(ld, func(v *Value) { v.RegisterCount, v.Cosize = 8, 8 }),
		with(m1616, func(v *Value) { v.RegisterCount, v.Cosize = 2, 2 }),
		with(ld, func(v *Value) { v.Cosize = 3 }),
		with(ld, func(v *Value) { v.Align = 4 }),
	}
}
