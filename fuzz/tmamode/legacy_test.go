package tmamode

// The hand-written codec and JSON form of tmamode before package desc
// described its fields, kept as the reference the described ones must match
// byte for byte (stored case IDs hash these bytes) and as the baseline of
// BenchmarkDecode.

import (
	"encoding/json"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Encode implements domain.Value.
func legacyEncode(v Value) []byte {
	var w domain.Writer
	for _, b := range []uint8{uint8(v.Direction), uint8(v.Mode), v.Rank, uint8(v.Dst), v.CTAGroup, uint8(v.Interleave)} {
		w.U8(b)
	}
	w.Bool(v.Multicast)
	w.U32(v.BoxDim1)
	w.U16(v.WHalo)
	w.U16(v.WOffset)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes.
func legacyDecode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{
		Direction:  Direction(r.Index(len(Directions))),
		Mode:       Mode(r.Index(len(Modes))),
		Rank:       uint8(r.Index(8)),
		Dst:        Space(r.Index(len(Spaces))),
		CTAGroup:   uint8(r.Index(3)),
		Interleave: Interleave(r.Index(len(Interleaves))),
		Multicast:  r.Bool(),
	}
	v.BoxDim1, v.WHalo, v.WOffset = r.U32(), r.U16(), r.U16()
	v.Tgt = target.Decode(r.U8(), r.U8())
	return v, nil
}

// jsonForm is the JSON form; every field is optional on input.
type jsonForm struct {
	Direction  *string `json:"direction"`
	Mode       *string `json:"mode"`
	Rank       *int    `json:"rank"`
	Dst        *string `json:"dst"`
	CTAGroup   *int    `json:"cta_group"`
	Multicast  *bool   `json:"multicast"`
	BoxDim1    *uint32 `json:"box_dim1"`
	Interleave *string `json:"interleave"`
	WHalo      *uint16 `json:"w_halo"`
	WOffset    *uint16 `json:"w_offset"`
	target.JSON
}

// MarshalJSON writes every field.
func legacyMarshalJSON(v Value) ([]byte, error) {
	rank, cta := int(v.Rank), int(v.CTAGroup)
	return json.Marshal(jsonForm{
		Direction: domain.Ptr(v.Direction.String()), Mode: domain.Ptr(v.Mode.String()), Rank: &rank, Dst: domain.Ptr(v.Dst.String()),
		CTAGroup: &cta, Multicast: &v.Multicast, BoxDim1: &v.BoxDim1, Interleave: domain.Ptr(v.Interleave.String()),
		WHalo: &v.WHalo, WOffset: &v.WOffset, JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: direction load, mode
// tile, rank 2, dst the direction's own (load shared::cluster, store global,
// prefetch L2), cta_group 0 (none), multicast false, box_dim1 1, interleave
// none, w_halo 0, w_offset 0, target sm_90a, ptx the target's first PTX ISA
// version.
func legacyParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseForm("tmamode", data, jsonForm.value)
}

func (f jsonForm) value() (Value, error) {
	v := Value{Rank: 2, BoxDim1: 1}
	dst := -1
	for _, e := range []struct {
		field string
		given *string
		enum  domain.Enum
		set   func(i int)
	}{
		{"direction", f.Direction, Directions, func(i int) { v.Direction = Direction(i) }},
		{"mode", f.Mode, Modes, func(i int) { v.Mode = Mode(i) }},
		{"dst", f.Dst, Spaces, func(i int) { dst = i }},
		{"interleave", f.Interleave, Interleaves, func(i int) { v.Interleave = Interleave(i) }},
	} {
		if e.given == nil {
			continue
		}
		i, err := e.enum.Parse(e.field, *e.given)
		if err != nil {
			return Value{}, err
		}
		e.set(i)
	}
	v.Dst = DefaultDst(v.Direction)
	if dst >= 0 {
		v.Dst = Space(dst)
	}
	if err := f.numbers(&v); err != nil {
		return Value{}, err
	}
	t, err := f.JSON.FromJSON(target.Arch{SM: 90, Suffix: "a"})
	if err != nil {
		return Value{}, err
	}
	v.Tgt = t
	return v, nil
}

// numbers applies the numeric and boolean fields given.
func (f jsonForm) numbers(v *Value) error {
	if err := domain.OptInt("rank", f.Rank, 0, 7, &v.Rank); err != nil {
		return err
	}
	if err := domain.OptInt("cta_group", f.CTAGroup, 0, 2, &v.CTAGroup); err != nil {
		return err
	}
	domain.Opt(f.Multicast, &v.Multicast)
	domain.Opt(f.BoxDim1, &v.BoxDim1)
	domain.Opt(f.WHalo, &v.WHalo)
	domain.Opt(f.WOffset, &v.WOffset)
	return nil
}
