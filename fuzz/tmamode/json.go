package tmamode

import (
	"encoding/json"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

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

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 90, Suffix: "a"}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
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
func ParseJSON(data []byte) (domain.Value, error) {
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
	t, err := f.JSON.FromJSON(DefaultArch)
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
