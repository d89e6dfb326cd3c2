package blockscale

import (
	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Derived defaults: k the kind's K
// when a kind is given; kind mxf8f6f4 for K = 32, else mxf4nvf4 with ue4m3
// and mxf4 otherwise; a_type and b_type e2m1 for K = 64, else e4m3;
// scale_vector_size K / N and scale_fragment_bits 8 × N for the kind's
// usual .scale_vec::NX (1X mxf8f6f4 and f8f6f4, 2X mxf4, 4X mxf4nvf4 with
// ue4m3, else 2X).
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the defaults that depend on other fields: the kind and K
// default from each other, the types from K, the scale vector from the kind.
func (v *Value) Derive(given desc.Given) {
	if given.Has("kind") && !given.Has("k") {
		v.K = uint8(v.Kind.K())
	}
	if !given.Has("kind") {
		v.Kind = MXF4
		switch {
		case v.K == 32:
			v.Kind = MXF8F6F4
		case v.SFType == UE4M3:
			v.Kind = MXF4NVF4
		}
	}
	for _, t := range []struct {
		field string
		dst   *Type
	}{{"a_type", &v.AType}, {"b_type", &v.BType}} {
		if !given.Has(t.field) {
			*t.dst = E4M3
			if v.K == 64 {
				*t.dst = E2M1
			}
		}
	}
	n := usualScaleVecN(v.Kind, v.SFType)
	if !given.Has("scale_vector_size") {
		v.ScaleVecSize = uint8(int(v.K) / n)
	}
	if !given.Has("scale_fragment_bits") {
		v.ScaleFragmentBits = uint8(8 * n)
	}
}

// usualScaleVecN is the .scale_vec::NX a kind is usually written with.
func usualScaleVecN(k Kind, sf SF) int {
	switch {
	case k == MXF4NVF4 && sf == UE4M3:
		return 4
	case k == MXF4 || k == MXF4NVF4:
		return 2
	}
	return 1
}
