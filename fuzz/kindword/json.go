package kindword

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// MarshalJSON writes every field, the seed's raw and collector words
// included.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. With only "raw" (and "collector"),
// the seed's words, the semantic fields are read from the words as the seed
// reads them; with semantic fields, those win and any words given must be
// their packing (so the output, which carries both, parses back to the same
// value). Defaults: kind f16, cta_group 1, collector_a discard, no
// scale-input-d operand unless scale_input_d is given, target sm_100a, ptx the
// target's first PTX ISA version, arch_conditional true exactly when the
// target is sm_XXa or sm_XXf.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Spellings are the seed's packed words.
func (v *Value) Spellings() []string { return []string{"raw", "collector"} }

// Spell writes the words.
func (v *Value) Spell(key string) any {
	if key == "raw" {
		return int(v.Raw())
	}
	return int(v.Collector())
}

// semantic are the fields the seed's words encode.
var semantic = []string{"kind", "cta_group", "scale_vec", "ws", "sparse", "block_scale", "collector_a", "ashift",
	"scale_input_d"}

// Derive reads the fields from the words when only they are given, and
// sets the defaults that depend on the target and scale_input_d.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("arch_conditional") {
		v.ArchConditional = v.Tgt.Arch.ArchSpecific() || v.Tgt.Arch.FamilySpecific()
	}
	v.ScaleInputAcc = given.Has("scale_input_d")
	raw, ok, err := desc.Extra[int](given, "raw")
	if !ok || err != nil || raw < 0 || raw > 511 || given.HasAny(semantic) {
		return
	}
	coll, _, _ := desc.Extra[int](given, "collector")
	*v = FromRaw(uint16(raw), uint8(coll&7), v.ArchConditional, v.Tgt)
}

// Check refuses words out of range, or, unless the raw word alone is
// given, words that the fields do not pack to.
func (v *Value) Check(given desc.Given) error {
	_, rawOnly := given.Raw("raw")
	rawOnly = rawOnly && !given.HasAny(semantic)
	for _, w := range []struct {
		key   string
		hi    int
		value int
		what  string
	}{{"raw", 511, int(v.Raw()), "the fields given pack to"}, {"collector", 7, int(v.Collector()), "collector_a and ashift pack to"}} {
		n, ok, err := desc.Extra[int](given, w.key)
		switch {
		case err != nil:
			return err
		case !ok:
		case n < 0 || n > w.hi:
			return fmt.Errorf("field %q: %d out of range [0, %d]", w.key, n, w.hi)
		case !rawOnly && n != w.value:
			return fmt.Errorf("field %q: %#x, but %s %#x", w.key, n, w.what, w.value)
		}
	}
	return nil
}
