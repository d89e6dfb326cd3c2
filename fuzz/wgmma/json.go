package wgmma

import (
	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Derived defaults: k the PTX K of
// a_type (NaturalK, doubled with sparse), b_k = k, b_type = a_type, d_type
// s32 for .s8/.u8/.b1 and f32 otherwise, result_type = d_type.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the defaults that depend on other fields, for the JSON form:
// B's type is A's, the accumulator follows A, the result follows the
// accumulator, K is A's natural K and B's K is K.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("b_type") {
		v.BType = v.AType
	}
	if !given.Has("d_type") {
		v.DType = AccF32
		if v.AType.Int8() || v.AType == B1 {
			v.DType = AccS32
		}
	}
	if !given.Has("result_type") {
		v.ResultType = v.DType
	}
	if !given.Has("k") {
		v.K = NaturalK(v.AType, v.Sparse)
	}
	if !given.Has("b_k") {
		v.BK = v.K
	}
}
