package wgmma

// The hand-written codec and JSON form of wgmma before package desc
// described its fields, kept as the reference the described ones must match
// byte for byte (stored case IDs hash these bytes) and as the baseline of
// BenchmarkDecode.

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// legacyEncode is the hand-written codec before package desc, kept to prove
// the described one writes and reads the same bytes.
func legacyEncode(v Value) []byte {
	var w domain.Writer
	w.U8(v.Rank)
	for _, d := range []uint16{v.M, v.N, v.K, v.BK} {
		w.U16(d)
	}
	w.U8(uint8(v.AType))
	w.U8(uint8(v.BType))
	w.U8(uint8(v.DType))
	w.U8(uint8(v.ResultType))
	w.Flags(v.ARegister, v.TransA, v.TransB, v.ScaleD, v.Sparse, v.Satfinite)
	w.U8(uint8(v.ScaleA + 2))
	w.U8(uint8(v.ScaleB + 2))
	w.U8(v.SpSel)
	w.Bytes = v.Tgt.Encode(w.Bytes)
	return w.Bytes
}

// Decode maps fuzz bytes to a value; every input decodes.
func legacyDecode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{Rank: uint8(r.Index(5))}
	for _, d := range []*uint16{&v.M, &v.N, &v.K, &v.BK} {
		*d = r.U16() & MaxDim
	}
	v.AType, v.BType = Type(r.Index(len(Types))), Type(r.Index(len(Types)))
	v.DType, v.ResultType = AccType(r.Index(len(AccTypes))), AccType(r.Index(len(AccTypes)))
	r.Flags(&v.ARegister, &v.TransA, &v.TransB, &v.ScaleD, &v.Sparse, &v.Satfinite)
	v.ScaleA, v.ScaleB = int8(r.Index(5))-2, int8(r.Index(5))-2
	if v.SpSel = r.U8() & 3; !v.Sparse {
		v.SpSel = 0
	}
	v.Tgt = target.Decode(r.U8(), r.U8())
	return v, nil
}

// jsonForm is the JSON form; every field is optional on input.
var legacyASources = domain.Enum{"descriptor", "register"}

type jsonForm struct {
	Rank       *int    `json:"rank"`
	M          *int    `json:"m"`
	N          *int    `json:"n"`
	K          *int    `json:"k"`
	BK         *int    `json:"b_k"`
	AType      *string `json:"a_type"`
	BType      *string `json:"b_type"`
	DType      *string `json:"d_type"`
	ResultType *string `json:"result_type"`
	ASource    *string `json:"a_source"`
	TransA     *bool   `json:"trans_a"`
	TransB     *bool   `json:"trans_b"`
	ScaleD     *bool   `json:"scale_d"`
	ScaleA     *int    `json:"scale_a"`
	ScaleB     *int    `json:"scale_b"`
	Sparse     *bool   `json:"sparse"`
	SpSel      *int    `json:"sp_sel"`
	Satfinite  *bool   `json:"satfinite"`
	target.JSON
}

// MarshalJSON writes every field.
func legacyMarshalJSON(v Value) ([]byte, error) {
	src := 0
	if v.ARegister {
		src = 1
	}
	return json.Marshal(jsonForm{
		Rank: domain.Ptr(int(v.Rank)), M: domain.Ptr(int(v.M)), N: domain.Ptr(int(v.N)), K: domain.Ptr(int(v.K)), BK: domain.Ptr(int(v.BK)),
		AType: domain.Ptr(v.AType.String()), BType: domain.Ptr(v.BType.String()),
		DType: domain.Ptr(v.DType.String()), ResultType: domain.Ptr(v.ResultType.String()),
		ASource: domain.Ptr(legacyASources.Name(src)), TransA: domain.Ptr(v.TransA), TransB: domain.Ptr(v.TransB),
		ScaleD: domain.Ptr(v.ScaleD), ScaleA: domain.Ptr(int(v.ScaleA)), ScaleB: domain.Ptr(int(v.ScaleB)),
		Sparse: domain.Ptr(v.Sparse), SpSel: domain.Ptr(int(v.SpSel)), Satfinite: domain.Ptr(v.Satfinite), JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: rank 2, m 64, n 128, k
// the PTX K of a_type (NaturalK, doubled with sparse), b_k = k, a_type f16,
// b_type = a_type, d_type s32 for .s8/.u8/.b1 and f32 otherwise, result_type
// = d_type, a_source "descriptor", no transposes, scale_d true, scale_a and
// scale_b 1, dense, sp_sel 0, no satfinite, target sm_90a with its first PTX
// ISA version.
func legacyParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("wgmma", data, target.Arch{SM: 90, Suffix: "a"}, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Rank: 2, M: 64, N: 128, ScaleD: true, ScaleA: 1, ScaleB: 1, Tgt: t}
	for _, b := range [][2]*bool{{f.TransA, &v.TransA}, {f.TransB, &v.TransB}, {f.ScaleD, &v.ScaleD}, {f.Sparse, &v.Sparse}, {f.Satfinite, &v.Satfinite}} {
		domain.Opt(b[0], b[1])
	}
	for _, step := range []func(*Value) error{f.types, f.shape, f.operands} {
		if err := step(&v); err != nil {
			return Value{}, err
		}
	}
	return v, nil
}

// types sets A, B (default A), D (default from A) and the result (default D).
func (f jsonForm) types(v *Value) error {
	v.AType = F16
	if err := domain.OptEnum(Types, "a_type", f.AType, &v.AType); err != nil {
		return err
	}
	v.BType = v.AType
	if err := domain.OptEnum(Types, "b_type", f.BType, &v.BType); err != nil {
		return err
	}
	v.DType = AccF32
	if v.AType.Int8() || v.AType == B1 {
		v.DType = AccS32
	}
	if err := domain.OptEnum(AccTypes, "d_type", f.DType, &v.DType); err != nil {
		return err
	}
	v.ResultType = v.DType
	return domain.OptEnum(AccTypes, "result_type", f.ResultType, &v.ResultType)
}

// shape sets rank, m, n, k (default NaturalK) and b_k (default k).
func (f jsonForm) shape(v *Value) error {
	if err := domain.OptInt("rank", f.Rank, 0, 4, &v.Rank); err != nil {
		return err
	}
	if err := domain.FirstErr(domain.OptInt("m", f.M, 0, MaxDim, &v.M), domain.OptInt("n", f.N, 0, MaxDim, &v.N)); err != nil {
		return err
	}
	v.K = NaturalK(v.AType, v.Sparse)
	if err := domain.OptInt("k", f.K, 0, MaxDim, &v.K); err != nil {
		return err
	}
	v.BK = v.K
	return domain.OptInt("b_k", f.BK, 0, MaxDim, &v.BK)
}

// operands sets A's source, the scale immediates and the sparsity selector,
// which only .sp carries.
func (f jsonForm) operands(v *Value) error {
	if f.ASource != nil {
		i, err := legacyASources.Parse("a_source", *f.ASource)
		if err != nil {
			return err
		}
		v.ARegister = i == 1
	}
	err := domain.FirstErr(
		domain.OptInt("scale_a", f.ScaleA, -2, 2, &v.ScaleA),
		domain.OptInt("scale_b", f.ScaleB, -2, 2, &v.ScaleB),
	)
	if err != nil {
		return err
	}
	if f.SpSel == nil {
		return nil
	}
	if err := domain.Range("sp_sel", int64(*f.SpSel), 0, 3); err != nil {
		return err
	}
	if *f.SpSel != 0 && !v.Sparse {
		return fmt.Errorf("field \"sp_sel\": %d, but a dense wgmma has no sparsity selector", *f.SpSel)
	}
	v.SpSel = uint8(*f.SpSel)
	return nil
}
