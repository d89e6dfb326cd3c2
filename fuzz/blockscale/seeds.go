package blockscale

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var sm120a = target.MustParse("sm_120a", "")

// New builds the usual instruction of kind k with A and B of types a and b
// and scale factors sf: K the kind's K, .scale_vec::NX as ParseJSON picks
// it, scale_vector_size K / N, scale_fragment_bits 8 × N, target sm_120a.
func New(k Kind, a, b Type, sf SF) Value {
	n := usualScaleVecN(k, sf)
	return Value{K: uint8(k.K()), AType: a, BType: b, SFType: sf, ScaleVecSize: uint8(k.K() / n),
		ScaleFragmentBits: uint8(8 * n), Kind: k, Tgt: sm120a}
}

// with returns v changed by f.
func with(v Value, f func(*Value)) Value { f(&v); return v }

// Seeds are the seed's lattice rows (every FP4/FP6/FP8 pair at K = 32, the
// FP4 rows at K = 64), a value that fires each rule of the seed's
// verifier, each row of the PTX ISA's table of valid combinations, and
// one-field changes that cross each PTX ISA rule.
func Seeds() []domain.Value {
	var vals []domain.Value
	for _, group := range [][]Value{lattice(), seedBoundaries(), ptxBoundaries()} {
		for _, v := range group {
			vals = append(vals, v)
		}
	}
	return vals
}

// lattice is every accepted row of both sets' lattices.
func lattice() []Value {
	var vals []Value
	for a := E2M1; a <= E5M2; a++ {
		for b := E2M1; b <= E5M2; b++ {
			vals = append(vals, New(MXF8F6F4, a, b, UE8M0))
		}
	}
	return append(vals,
		New(MXF4, E2M1, E2M1, UE8M0),
		New(MXF4NVF4, E2M1, E2M1, UE8M0),
		New(MXF4NVF4, E2M1, E2M1, UE4M3),
		with(New(MXF4, E2M1, E2M1, UE8M0), func(v *Value) { v.Tgt = target.MustParse("sm_120f", "") }),
	)
}

// seedBoundaries fire the seed's rules one by one, and include the values
// on which the seed and the PTX ISA are expected to disagree.
func seedBoundaries() []Value {
	k32 := New(MXF8F6F4, E4M3, E4M3, UE8M0)
	k64 := New(MXF4, E2M1, E2M1, UE8M0)
	nv := New(MXF4NVF4, E2M1, E2M1, UE4M3)
	return []Value{
		with(k64, func(v *Value) { v.ScaleVecSize, v.ScaleFragmentBits = 64, 8 }),
		with(k64, func(v *Value) { v.ScaleVecSize = 0 }),
		with(k32, func(v *Value) { v.ScaleVecSize = 8 }),
		with(k32, func(v *Value) { v.K, v.ScaleVecSize = 16, 16 }),
		with(k64, func(v *Value) { v.K = 128 }),
		with(k64, func(v *Value) { v.K = 0 }),
		with(k32, func(v *Value) { v.AType = F16 }),
		with(k32, func(v *Value) { v.BType = BF16 }),
		with(k32, func(v *Value) { v.AType = TypeOther }),
		with(k32, func(v *Value) { v.SFType = UE4M3 }),
		with(k32, func(v *Value) { v.ScaleVecSize = 16 }),
		with(k32, func(v *Value) { v.ScaleFragmentBits = 16 }),
		with(k64, func(v *Value) { v.AType = E4M3 }), // "Do not reuse the K = 32 FP6/FP8 allow-list"
		with(k64, func(v *Value) { v.BType = E3M2 }),
		with(k64, func(v *Value) { v.ScaleFragmentBits = 8 }),
		with(nv, func(v *Value) { v.ScaleVecSize, v.ScaleFragmentBits = 32, 16 }), // ue4m3 with 2X
		with(nv, func(v *Value) { v.SFType = UE8M0 }),                             // ue8m0 with 4X (PTX 9.1)
		with(k64, func(v *Value) { v.SFType = SFOther }),
		with(k32, func(v *Value) { v.Kind = MXF4 }),
		with(k32, func(v *Value) { v.Kind = F8F6F4 }),
		with(k64, func(v *Value) { v.Tgt = target.MustParse("sm_100a", "") }),
		with(k32, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "") }),
		with(k32, func(v *Value) { v.Tgt = target.MustParse("sm_120", "") }),
	}
}

// ptxBoundaries cross the PTX ISA rules not already crossed above.
func ptxBoundaries() []Value {
	k32 := New(MXF8F6F4, E4M3, E4M3, UE8M0)
	k64 := New(MXF4, E2M1, E2M1, UE8M0)
	nv := New(MXF4NVF4, E2M1, E2M1, UE8M0)
	return []Value{
		with(k32, func(v *Value) { v.Tgt = target.MustParse("sm_120a", "8.6") }),
		with(k32, func(v *Value) { v.Tgt = target.MustParse("sm_100f", "") }),
		with(k64, func(v *Value) { v.Kind = MXF8F6F4 }),
		with(k64, func(v *Value) { v.Kind = MXF4NVF4; v.AType = E2M3 }),
		with(k32, func(v *Value) { v.AType = E5M2; v.BType = TypeOther }),
		with(k64, func(v *Value) { v.ScaleVecSize = 24 }),
		with(k64, func(v *Value) { v.ScaleVecSize, v.ScaleFragmentBits = 8, 64 }),
		with(k64, func(v *Value) { v.ScaleVecSize, v.ScaleFragmentBits = 16, 32 }),
		with(nv, func(v *Value) { v.ScaleVecSize, v.ScaleFragmentBits = 64, 8 }),
		with(k64, func(v *Value) { v.SFType = UE4M3 }),
		with(k32, func(v *Value) { v.SFType = SFOther }),
		with(New(MXF4NVF4, E2M1, E2M1, UE4M3), func(v *Value) { v.ScaleFragmentBits = 16 }),
	}
}
