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
	f := jsonForm{
		Kind: domain.Ptr(v.Kind.String()), CTAGroup: domain.Ptr(int(v.CTAGroup)), ScaleVec: domain.Ptr(v.ScaleVec.String()),
		WS: domain.Ptr(v.WS), Sparse: domain.Ptr(v.Sparse), BlockScale: domain.Ptr(v.BlockScale),
		CollectorA: domain.Ptr(v.CollectorA.String()), AShift: domain.Ptr(v.AShift), ATMem: domain.Ptr(v.ATMem),
		ArchConditional: domain.Ptr(v.ArchConditional), JSON: v.Tgt.ToJSON(),
		Raw: domain.Ptr(int(v.Raw())), Collector: domain.Ptr(int(v.Collector())),
	}
	if v.ScaleInputAcc {
		f.ScaleInputD = domain.Ptr(int(v.ScaleInputD))
	}
	return json.Marshal(f)
}

// ParseJSON parses the strict JSON form. Defaults: kind f16, cta_group 1,
// collector_a discard, target sm_100a, ptx the target's first PTX ISA
// version, arch_conditional true exactly when the target is sm_XXa or sm_XXf.
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("kindword", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
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
	domain.Opt(f.ATMem, &v.ATMem)
	if err := domain.OptEnum(Kinds, "kind", f.Kind, &v.Kind); err != nil {
		return err
	}
	if err := domain.OptInt("cta_group", f.CTAGroup, 0, 3, &v.CTAGroup); err != nil {
		return err
	}
	if err := domain.OptEnum(ScaleVecs, "scale_vec", f.ScaleVec, &v.ScaleVec); err != nil {
		return err
	}
	if err := domain.OptEnum(Collectors, "collector_a", f.CollectorA, &v.CollectorA); err != nil {
		return err
	}
	if f.ScaleInputD != nil {
		if err := domain.Range("scale_input_d", int64(*f.ScaleInputD), 0, 15); err != nil {
			return err
		}
		v.ScaleInputAcc, v.ScaleInputD = true, uint8(*f.ScaleInputD)
	}
	for _, b := range [][2]*bool{{f.WS, &v.WS}, {f.Sparse, &v.Sparse}, {f.BlockScale, &v.BlockScale}, {f.AShift, &v.AShift}} {
		domain.Opt(b[0], b[1])
	}
	return nil
}
