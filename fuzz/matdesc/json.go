package matdesc

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// DefaultArch returns the target of a case that names none: sm_90a for
// wgmma, sm_100a for tcgen05.
func DefaultArch(f Format) target.Arch {
	if f == TCGen05 {
		return target.Arch{SM: 100, Suffix: "a"}
	}
	return target.Arch{SM: 90, Suffix: "a"}
}

// MarshalJSON writes every field and the packed word.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. With only "raw" (besides format,
// uniform and the target) the fields are read from the word in the format's
// PTX layout; with fields, those win and any raw given must be their packing
// (so the output, which carries both, parses back to the same value).
// Defaults: format wgmma, target sm_90a for wgmma and sm_100a for tcgen05,
// ptx the target's first PTX ISA version, uniform true, fixed_46_48 0b001
// for tcgen05, every other field 0.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Spellings is the packed word.
func (v *Value) Spellings() []string { return []string{"raw"} }

// Spell writes the packed word.
func (v *Value) Spell(string) any { return v.Raw() }

// packed are the fields the word encodes.
var packed = []string{"start_addr", "lbo", "sbo", "base_offset", "swizzle", "lbo_mode", "fixed_46_48", "fixed_53_60", "reserved"}

// Derive sets the format's target and fixed field, or reads the fields from
// the word when only it is given.
func (v *Value) Derive(given desc.Given) {
	if t, err := v.formatTarget(given); err == nil {
		v.Tgt = t
	}
	if !given.Has("fixed_46_48") && v.Format == TCGen05 {
		v.Fixed46 = 1
	}
	if raw, ok, err := desc.Extra[uint64](given, "raw"); ok && err == nil && !given.HasAny(packed) {
		*v = FromRaw(v.Format, raw, v.Uniform, v.Tgt)
	}
}

// formatTarget is the target of a tcgen05 value that names none: sm_100a,
// at the ptx given.
func (v *Value) formatTarget(given desc.Given) (target.Target, error) {
	if _, ok := given.Raw("target"); ok || v.Format != TCGen05 {
		return v.Tgt, nil
	}
	var tj target.JSON
	if raw, ok := given.Raw("ptx"); ok {
		_ = json.Unmarshal(raw, &tj.PTX) // the tag's target parsed it already
	}
	return tj.FromJSON(DefaultArch(v.Format))
}

// Check refuses a swizzle or reserved bits outside the format's layout, and
// a word given beside fields that pack to another.
func (v *Value) Check(given desc.Given) error {
	if _, err := v.formatTarget(given); err != nil {
		return err
	}
	if v.Swizzle > MaxSwizzle(v.Format) {
		return fmt.Errorf("field \"swizzle\": %d out of range [0, %d] (format %s)", v.Swizzle, MaxSwizzle(v.Format), v.Format)
	}
	if extra := v.Reserved &^ ReservedMask(v.Format); extra != 0 {
		return fmt.Errorf("field \"reserved\": bits 0x%016x belong to fields of the %s layout", extra, v.Format)
	}
	raw, ok, err := desc.Extra[uint64](given, "raw")
	if err != nil {
		return err
	}
	if ok && given.HasAny(packed) && raw != v.Raw() {
		return fmt.Errorf("field \"raw\": 0x%016x, but the fields given pack to 0x%016x", raw, v.Raw())
	}
	return nil
}
