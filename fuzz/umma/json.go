package umma

import (
	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Derived defaults: swizzle
// [0,4,3], modes [{shape [8], stride [8]}, {shape [16], stride [1]}] (the
// flat K-major 16-bit no-swizzle operand, which both rule sets accept),
// mn_mode 0 and k_mode 1 (0 for one mode). A swizzle has 3 entries, a
// layout 1..4 modes, a mode 1..3 shapes and as many strides, and k_mode
// and mn_mode are below the number of modes.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the defaults that depend on other fields, for the JSON form.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("swizzle") {
		v.Swizzle = [3]uint8{0, 4, 3}
	}
	v.Rank = uint8(given.Len("modes"))
	if !given.Has("modes") {
		v.Rank, v.Modes[0], v.Modes[1] = 2, flat(8, 8), flat(16, 1)
	}
	if !given.Has("k_mode") {
		v.KMode = 1 % max(v.Rank, 1)
	}
}

// flat is a flat mode shape:stride.
func flat(shape uint16, stride int32) Mode {
	return Mode{Subs: 1, Shape: [MaxSubs]uint16{shape}, Stride: [MaxSubs]int32{stride}}
}

// Check refuses a layout without modes and mode indices beyond them.
func (v *Value) Check(desc.Given) error {
	if v.Rank == 0 {
		return desc.Errorf("modes", "0 entries, want 1..%d (number of modes)", MaxModes)
	}
	for _, f := range []struct {
		name string
		i    uint8
	}{{"k_mode", v.KMode}, {"mn_mode", v.MNMode}} {
		if f.i >= v.Rank {
			return desc.Errorf(f.name, "%d out of range [0, %d]", f.i, v.Rank-1)
		}
	}
	return nil
}
