package swizzle

// The hand-written codec and JSON form of swizzle before package desc
// described its fields, kept as the reference the described ones must match
// byte for byte (stored case IDs hash these bytes) and as the baseline of
// BenchmarkDecode.

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Encode implements domain.Value: mode, B, M, S, K, X, target.
func legacyEncode(v Value) []byte {
	var w domain.Writer
	w.U8(uint8(v.Mode))
	w.U8(v.B)
	w.U8(v.M)
	w.U8(v.S)
	w.U64(uint64(v.K))
	w.U32(v.X)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes. A named mode's
// triple overrides the bytes read for it, and reserved modes carry the zero
// triple, so the encoding stays canonical.
func legacyDecode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{
		Mode: Mode(r.Index(len(Modes))),
		B:    r.U8() % (MaxB + 1),
		M:    r.U8() % (MaxM + 1),
		S:    r.U8() % (MaxS + 1),
		K:    int64(r.U64()),
		X:    r.U32(),
	}
	if v.Mode != CuTe {
		v.B, v.M, v.S = v.Mode.Triple()
	}
	v.Tgt = target.Decode(r.U8(), r.U8())
	return v, nil
}

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

// MarshalJSON writes every field.
func legacyMarshalJSON(v Value) ([]byte, error) {
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
func legacyParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("swizzle", data, target.Arch{SM: 90, Suffix: "a"}, jsonForm.value)
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
