package tmamode

import (
	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Derived default: dst the
// direction's own (load shared::cluster, store global, prefetch L2).
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the destination a direction writes when none is given.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("dst") {
		v.Dst = DefaultDst(v.Direction)
	}
}
