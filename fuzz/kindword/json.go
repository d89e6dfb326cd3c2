package kindword

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// jsonForm is the JSON form. On input every field is optional. With only
// "raw" (and "collector"), the seed's words, the semantic fields are read from
// the words as the seed reads them; with semantic fields, those win and any
// words given must be their packing (so the output, which carries both,
// parses back to the same value).
type jsonForm struct {
	Kind            *string `json:"kind"`
	CTAGroup        *int    `json:"cta_group"`
	ScaleVec        *string `json:"scale_vec"`
	WS              *bool   `json:"ws"`
	Sparse          *bool   `json:"sparse"`
	BlockScale      *bool   `json:"block_scale"`
	CollectorA      *string `json:"collector_a"`
	AShift          *bool   `json:"ashift"`
	ATMem           *bool   `json:"a_tmem"`
	ScaleInputD     *int    `json:"scale_input_d"`
	ArchConditional *bool   `json:"arch_conditional"`
	target.JSON
	Raw       *int `json:"raw"`
	Collector *int `json:"collector"`
}

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 100, Suffix: "a"}

// MarshalJSON writes every field, the derived raw and collector words included.
func (v Value) MarshalJSON() ([]byte, error) {
	str := func(s string) *string { return &s }
	i := func(n int) *int { return &n }
	b := func(x bool) *bool { return &x }
	f := jsonForm{
		Kind: str(v.Kind.String()), CTAGroup: i(int(v.CTAGroup)), ScaleVec: str(v.ScaleVec.String()),
		WS: b(v.WS), Sparse: b(v.Sparse), BlockScale: b(v.BlockScale),
		CollectorA: str(v.CollectorA.String()), AShift: b(v.AShift), ATMem: b(v.ATMem),
		ArchConditional: b(v.ArchConditional), JSON: v.Tgt.ToJSON(),
		Raw: i(int(v.Raw())), Collector: i(int(v.Collector())),
	}
	if v.ScaleInputAcc {
		f.ScaleInputD = i(int(v.ScaleInputD))
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: kind f16, cta_group 1,
// collector_a discard, target sm_100a, ptx the target's first PTX ISA
// version, arch_conditional true exactly when the target is sm_XXa or sm_XXf.
func ParseJSON(data []byte) (domain.Value, error) {
	var f jsonForm
	if err := domain.DecodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("kindword: %w", err)
	}
	v, err := f.value()
	if err != nil {
		return nil, fmt.Errorf("kindword: %w", err)
	}
	return v, nil
}

func (f jsonForm) value() (Value, error) {
	t, err := f.JSON.FromJSON(DefaultArch)
	if err != nil {
		return Value{}, err
	}
	archCond := t.Arch.ArchSpecific() || t.Arch.FamilySpecific()
	if f.ArchConditional != nil {
		archCond = *f.ArchConditional
	}
	if f.Raw != nil {
		if err := domain.Range("raw", int64(*f.Raw), 0, 511); err != nil {
			return Value{}, err
		}
	}
	coll := 0
	if f.Collector != nil {
		if err := domain.Range("collector", int64(*f.Collector), 0, 7); err != nil {
			return Value{}, err
		}
		coll = *f.Collector
	}
	if f.Raw != nil && !f.semanticGiven() {
		return FromRaw(uint16(*f.Raw), uint8(coll), archCond, t), nil
	}
	v := Value{Kind: F16, CTAGroup: 1, ArchConditional: archCond, Tgt: t}
	if err := f.applySemantic(&v); err != nil {
		return Value{}, err
	}
	// Words given beside the semantic fields must be their packing.
	if f.Raw != nil && uint16(*f.Raw) != v.Raw() {
		return Value{}, fmt.Errorf("field \"raw\": 0x%03x, but the fields given pack to 0x%03x", *f.Raw, v.Raw())
	}
	if f.Collector != nil && uint8(coll) != v.Collector() {
		return Value{}, fmt.Errorf("field \"collector\": %d, but collector_a and ashift pack to %d", coll, v.Collector())
	}
	return v, nil
}

// semanticGiven reports whether any field that the seed's words encode was
// given explicitly.
func (f jsonForm) semanticGiven() bool {
	return f.Kind != nil || f.CTAGroup != nil || f.ScaleVec != nil || f.WS != nil || f.Sparse != nil ||
		f.BlockScale != nil || f.CollectorA != nil || f.AShift != nil || f.ScaleInputD != nil
}

// applySemantic sets the semantic fields given.
func (f jsonForm) applySemantic(v *Value) error {
	if f.ATMem != nil {
		v.ATMem = *f.ATMem
	}
	if f.Kind != nil {
		k, err := Kinds.Parse("kind", *f.Kind)
		if err != nil {
			return err
		}
		v.Kind = Kind(k)
	}
	if f.CTAGroup != nil {
		if err := domain.Range("cta_group", int64(*f.CTAGroup), 0, 3); err != nil {
			return err
		}
		v.CTAGroup = uint8(*f.CTAGroup)
	}
	if f.ScaleVec != nil {
		s, err := ScaleVecs.Parse("scale_vec", *f.ScaleVec)
		if err != nil {
			return err
		}
		v.ScaleVec = ScaleVec(s)
	}
	if f.CollectorA != nil {
		c, err := Collectors.Parse("collector_a", *f.CollectorA)
		if err != nil {
			return err
		}
		v.CollectorA = Collector(c)
	}
	if f.ScaleInputD != nil {
		if err := domain.Range("scale_input_d", int64(*f.ScaleInputD), 0, 15); err != nil {
			return err
		}
		v.ScaleInputAcc, v.ScaleInputD = true, uint8(*f.ScaleInputD)
	}
	for _, b := range []struct {
		given *bool
		dst   *bool
	}{{f.WS, &v.WS}, {f.Sparse, &v.Sparse}, {f.BlockScale, &v.BlockScale}, {f.AShift, &v.AShift}} {
		if b.given != nil {
			*b.dst = *b.given
		}
	}
	return nil
}
