package blockscale

// The hand-written codec and JSON form of blockscale before package desc
// described its fields, kept as the reference the described ones must match
// byte for byte (stored case IDs hash these bytes) and as the baseline of
// BenchmarkDecode.

import (
	"encoding/json"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Encode implements domain.Value: K, A, B, SF, scale vector size, fragment
// bits, kind, target.
func legacyEncode(v Value) []byte {
	var w domain.Writer
	for _, b := range []uint8{v.K, uint8(v.AType), uint8(v.BType), uint8(v.SFType), v.ScaleVecSize,
		v.ScaleFragmentBits, uint8(v.Kind)} {
		w.U8(b)
	}
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes.
func legacyDecode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	return Value{
		K:                 r.U8(),
		AType:             Type(r.Index(len(Types))),
		BType:             Type(r.Index(len(Types))),
		SFType:            SF(r.Index(len(SFs))),
		ScaleVecSize:      r.U8(),
		ScaleFragmentBits: r.U8(),
		Kind:              Kind(r.Index(len(Kinds))),
		Tgt:               target.Decode(r.U8(), r.U8()),
	}, nil
}

// jsonForm is the JSON form; on input every field is optional.
type jsonForm struct {
	K                 *int    `json:"k"`
	AType             *string `json:"a_type"`
	BType             *string `json:"b_type"`
	SFType            *string `json:"sf_type"`
	ScaleVecSize      *int    `json:"scale_vector_size"`
	ScaleFragmentBits *int    `json:"scale_fragment_bits"`
	Kind              *string `json:"kind"`
	target.JSON
}

// MarshalJSON writes every field.
func legacyMarshalJSON(v Value) ([]byte, error) {
	return json.Marshal(jsonForm{
		K: domain.Ptr(int(v.K)), AType: domain.Ptr(v.AType.String()), BType: domain.Ptr(v.BType.String()), SFType: domain.Ptr(v.SFType.String()),
		ScaleVecSize: domain.Ptr(int(v.ScaleVecSize)), ScaleFragmentBits: domain.Ptr(int(v.ScaleFragmentBits)),
		Kind: domain.Ptr(v.Kind.String()), JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: k the kind's K (32 with
// no kind); sf_type ue8m0; kind mxf8f6f4 for K = 32, else mxf4nvf4 with
// ue4m3 and mxf4 otherwise; a_type and b_type e2m1 for K = 64, else e4m3;
// scale_vector_size K / N and scale_fragment_bits 8 × N for the kind's
// usual .scale_vec::NX (1X mxf8f6f4 and f8f6f4, 2X mxf4, 4X mxf4nvf4 with
// ue4m3, else 2X); target sm_120a at its first PTX ISA version.
func legacyParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("blockscale", data, target.Arch{SM: 120, Suffix: "a"}, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Tgt: t}
	if err := f.kindAndK(&v); err != nil {
		return Value{}, err
	}
	v.AType, v.BType = E4M3, E4M3
	if v.K == 64 {
		v.AType, v.BType = E2M1, E2M1
	}
	if err := domain.FirstErr(domain.OptEnum(Types, "a_type", f.AType, &v.AType), domain.OptEnum(Types, "b_type", f.BType, &v.BType)); err != nil {
		return Value{}, err
	}
	n := usualScaleVecN(v.Kind, v.SFType)
	v.ScaleVecSize, v.ScaleFragmentBits = uint8(int(v.K)/n), uint8(8*n)
	err := domain.FirstErr(
		domain.OptInt("scale_vector_size", f.ScaleVecSize, 0, 255, &v.ScaleVecSize),
		domain.OptInt("scale_fragment_bits", f.ScaleFragmentBits, 0, 255, &v.ScaleFragmentBits),
	)
	return v, err
}

// kindAndK fills the kind, K and scale-factor type, which default from
// each other.
func (f jsonForm) kindAndK(v *Value) error {
	v.K = 32
	if err := domain.OptEnum(Kinds, "kind", f.Kind, &v.Kind); err != nil {
		return err
	}
	if f.Kind != nil {
		v.K = uint8(v.Kind.K())
	}
	if err := domain.FirstErr(domain.OptInt("k", f.K, 0, 255, &v.K), domain.OptEnum(SFs, "sf_type", f.SFType, &v.SFType)); err != nil {
		return err
	}
	if f.Kind == nil {
		v.Kind = MXF4
		switch {
		case v.K == 32:
			v.Kind = MXF8F6F4
		case v.SFType == UE4M3:
			v.Kind = MXF4NVF4
		}
	}
	return nil
}
