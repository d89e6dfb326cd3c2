package swizzle

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Derived defaults: mode "cute" when
// any of b, m, s is given and "none" otherwise; for "cute", b 0, m 4, s 3
// (CuTe's 16-byte-granular no-swizzle); for a named mode its triple. A
// named mode's b, m, s, when given, must be its triple (a reserved mode's is
// 0,0,0).
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the mode from whether a triple is given, and the triple from
// the mode.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("mode") {
		v.Mode = None
		if given.Has("b") || given.Has("m") || given.Has("s") {
			v.Mode = CuTe
		}
	}
	def := [3]uint8{0, 4, 3}
	if v.Mode != CuTe {
		def[0], def[1], def[2] = v.Mode.Triple()
	}
	for i, f := range v.triple() {
		if !given.Has(f.name) {
			*f.dst = def[i]
		}
	}
}

// Check refuses a named mode's b, m or s other than its triple's.
func (v *Value) Check(given desc.Given) error {
	if v.Mode == CuTe {
		return nil
	}
	var want [3]uint8
	want[0], want[1], want[2] = v.Mode.Triple()
	for i, f := range v.triple() {
		if given.Has(f.name) && *f.dst != want[i] {
			return fmt.Errorf("field %q: %d, but mode %s has %s=%d", f.name, *f.dst, v.Mode, f.name, want[i])
		}
	}
	return nil
}

// Canonical gives a named mode its triple: the bytes of b, m and s count
// only for "cute".
func (v *Value) Canonical() {
	if v.Mode != CuTe {
		v.B, v.M, v.S = v.Mode.Triple()
	}
}

// triple names B, M and S.
func (v *Value) triple() [3]struct {
	name string
	dst  *uint8
} {
	return [3]struct {
		name string
		dst  *uint8
	}{{"b", &v.B}, {"m", &v.M}, {"s", &v.S}}
}
