package swizzle

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form; on input every field is optional.
type jsonForm struct {
	Mode *string `json:"mode"`
	B    *int64  `json:"b"`
	M    *int64  `json:"m"`
	S    *int64  `json:"s"`
	K    *int64  `json:"k"`
	X    *int64  `json:"x"`
	target.JSON
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 90, Suffix: "a"}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
	mode := v.Mode.String()
	return json.Marshal(jsonForm{
		Mode: &mode, B: domain.Ptr(int64(v.B)), M: domain.Ptr(int64(v.M)), S: domain.Ptr(int64(v.S)),
		K: domain.Ptr(v.K), X: domain.Ptr(int64(v.X)), JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: mode "cute" when any of
// b, m, s is given and "none" otherwise; for "cute", b 0, m 4, s 3 (CuTe's
// 16-byte-granular no-swizzle); k 0; x 0; target sm_90a. A named mode's
// b, m, s, when given, must be its triple (a reserved mode's is 0,0,0).
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("swizzle", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Mode: None, Tgt: t}
	if f.B != nil || f.M != nil || f.S != nil {
		v.Mode = CuTe
	}
	if err := domain.OptEnum(Modes, "mode", f.Mode, &v.Mode); err != nil {
		return Value{}, err
	}
	if err := f.applyTriple(&v); err != nil {
		return Value{}, err
	}
	domain.Opt(f.K, &v.K)
	if err := domain.OptInt("x", f.X, 0, math.MaxUint32, &v.X); err != nil {
		return Value{}, err
	}
	return v, nil
}

// applyTriple sets B, M, S: from the fields for "cute", from the mode
// otherwise, where any field given must agree with the mode.
func (f jsonForm) applyTriple(v *Value) error {
	fields := []struct {
		name  string
		given *int64
		max   int64
		dst   *uint8
		def   uint8
	}{{"b", f.B, MaxB, &v.B, 0}, {"m", f.M, MaxM, &v.M, 4}, {"s", f.S, MaxS, &v.S, 3}}
	mb, mm, ms := v.Mode.Triple()
	want := []uint8{mb, mm, ms}
	for i, fl := range fields {
		if v.Mode != CuTe {
			*fl.dst = want[i]
			if fl.given != nil && *fl.given != int64(want[i]) {
				return fmt.Errorf("field %q: %d, but mode %s has %s=%d", fl.name, *fl.given, v.Mode, fl.name, want[i])
			}
			continue
		}
		*fl.dst = fl.def
		if fl.given != nil {
			if err := domain.Range(fl.name, *fl.given, 0, fl.max); err != nil {
				return err
			}
			*fl.dst = uint8(*fl.given)
		}
	}
	return nil
}
