package matdesc

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form. On input every field is optional. With only
// "raw" (besides format, uniform and the target) the fields are read from the
// word in the format's PTX layout; with fields, those win and any raw given
// must be their packing (so the output, which carries both, parses back to
// the same value).
type jsonForm struct {
	Format     *string `json:"format"`
	StartAddr  *int64  `json:"start_addr"`
	LBO        *int64  `json:"lbo"`
	SBO        *int64  `json:"sbo"`
	BaseOffset *int64  `json:"base_offset"`
	Swizzle    *int64  `json:"swizzle"`
	LBOMode    *bool   `json:"lbo_mode"`
	Fixed46    *int64  `json:"fixed_46_48"`
	Fixed53    *int64  `json:"fixed_53_60"`
	Reserved   *uint64 `json:"reserved"`
	Uniform    *bool   `json:"uniform"`
	target.JSON
	Raw *uint64 `json:"raw"`
}

// DefaultArch returns the target of a case that names none: sm_90a for
// wgmma, sm_100a for tcgen05.
func DefaultArch(f Format) target.Arch {
	if f == TCGen05 {
		return target.Arch{SM: 100, Suffix: "a"}
	}
	return target.Arch{SM: 90, Suffix: "a"}
}

// MarshalJSON writes every field and the packed word.
func (v Value) MarshalJSON() ([]byte, error) {
	format := v.Format.String()
	return json.Marshal(jsonForm{
		Format: &format, StartAddr: domain.Ptr(int64(v.StartAddr)), LBO: domain.Ptr(int64(v.LBO)), SBO: domain.Ptr(int64(v.SBO)),
		BaseOffset: domain.Ptr(int64(v.BaseOffset)), Swizzle: domain.Ptr(int64(v.Swizzle)), LBOMode: domain.Ptr(v.LBOMode),
		Fixed46: domain.Ptr(int64(v.Fixed46)), Fixed53: domain.Ptr(int64(v.Fixed53)), Reserved: domain.Ptr(v.Reserved),
		Uniform: domain.Ptr(v.Uniform), JSON: v.Tgt.ToJSON(), Raw: domain.Ptr(v.Raw()),
	})
}

// ParseJSON parses the strict JSON form. Defaults: format wgmma, target
// sm_90a for wgmma and sm_100a for tcgen05, ptx the target's first PTX ISA
// version, uniform true, fixed_46_48 0b001 for tcgen05, every other field 0.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseForm("matdesc", data, jsonForm.value)
}

func (f jsonForm) value() (Value, error) {
	format := WGMMA
	if f.Format != nil {
		n, err := Formats.Parse("format", *f.Format)
		if err != nil {
			return Value{}, err
		}
		format = Format(n)
	}
	t, err := f.JSON.FromJSON(DefaultArch(format))
	if err != nil {
		return Value{}, err
	}
	uniform := f.Uniform == nil || *f.Uniform
	if f.Raw != nil && !f.fieldsGiven() {
		return FromRaw(format, *f.Raw, uniform, t), nil
	}
	v := Value{Format: format, Uniform: uniform, Tgt: t}
	if format == TCGen05 {
		v.Fixed46 = 1
	}
	if err := f.applyFields(&v); err != nil {
		return Value{}, err
	}
	if f.Raw != nil && *f.Raw != v.Raw() {
		return Value{}, fmt.Errorf("field \"raw\": 0x%016x, but the fields given pack to 0x%016x", *f.Raw, v.Raw())
	}
	return v, nil
}

// fieldsGiven reports whether any field that the word encodes was given.
func (f jsonForm) fieldsGiven() bool {
	return f.StartAddr != nil || f.LBO != nil || f.SBO != nil || f.BaseOffset != nil || f.Swizzle != nil ||
		f.LBOMode != nil || f.Fixed46 != nil || f.Fixed53 != nil || f.Reserved != nil
}

// applyFields range-checks and sets the fields given.
func (f jsonForm) applyFields(v *Value) error {
	tcgen05 := v.Format == TCGen05
	ints := []struct {
		name  string
		given *int64
		max   int64
		only  bool // tcgen05 only: wgmma must leave it 0
		set   func(int64)
	}{
		{"start_addr", f.StartAddr, math.MaxUint32, false, func(n int64) { v.StartAddr = uint32(n) }},
		{"lbo", f.LBO, math.MaxUint32, false, func(n int64) { v.LBO = uint32(n) }},
		{"sbo", f.SBO, math.MaxUint32, false, func(n int64) { v.SBO = uint32(n) }},
		{"base_offset", f.BaseOffset, 7, false, func(n int64) { v.BaseOffset = uint8(n) }},
		{"swizzle", f.Swizzle, int64(MaxSwizzle(v.Format)), false, func(n int64) { v.Swizzle = uint8(n) }},
		{"fixed_46_48", f.Fixed46, 7, true, func(n int64) { v.Fixed46 = uint8(n) }},
		{"fixed_53_60", f.Fixed53, 255, true, func(n int64) { v.Fixed53 = uint8(n) }},
	}
	for _, fl := range ints {
		if fl.given == nil {
			continue
		}
		limit := fl.max
		if fl.only && !tcgen05 {
			limit = 0
		}
		if err := domain.Range(fl.name, *fl.given, 0, limit); err != nil {
			return fmt.Errorf("%w (format %s)", err, v.Format)
		}
		fl.set(*fl.given)
	}
	if f.LBOMode != nil {
		if *f.LBOMode && !tcgen05 {
			return fmt.Errorf("field \"lbo_mode\": only the tcgen05 format has it")
		}
		v.LBOMode = *f.LBOMode
	}
	if f.Reserved != nil {
		if extra := *f.Reserved &^ ReservedMask(v.Format); extra != 0 {
			return fmt.Errorf("field \"reserved\": bits 0x%016x belong to fields of the %s layout", extra, v.Format)
		}
		v.Reserved = *f.Reserved
	}
	return nil
}
