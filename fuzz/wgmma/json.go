package wgmma

import (
	"encoding/json"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// ASources spells where A comes from.
var ASources = domain.Enum{"descriptor", "register"}

// jsonForm is the JSON form; every field is optional on input.
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

// DefaultArch is the target of a case that names none.
var DefaultArch = target.Arch{SM: 90, Suffix: "a"}

// MarshalJSON writes every field.
func (v Value) MarshalJSON() ([]byte, error) {
	str := func(s string) *string { return &s }
	i := func(n int) *int { return &n }
	b := func(x bool) *bool { return &x }
	src := 0
	if v.ARegister {
		src = 1
	}
	return json.Marshal(jsonForm{
		Rank: i(int(v.Rank)), M: i(int(v.M)), N: i(int(v.N)), K: i(int(v.K)), BK: i(int(v.BK)),
		AType: str(v.AType.String()), BType: str(v.BType.String()),
		DType: str(v.DType.String()), ResultType: str(v.ResultType.String()),
		ASource: str(ASources.Name(src)), TransA: b(v.TransA), TransB: b(v.TransB),
		ScaleD: b(v.ScaleD), ScaleA: i(int(v.ScaleA)), ScaleB: i(int(v.ScaleB)),
		Sparse: b(v.Sparse), SpSel: i(int(v.SpSel)), Satfinite: b(v.Satfinite), JSON: v.Tgt.ToJSON(),
	})
}

// ParseJSON parses the strict JSON form. Defaults: rank 2, m 64, n 128, k
// the PTX K of a_type (NaturalK, doubled with sparse), b_k = k, a_type f16,
// b_type = a_type, d_type s32 for .s8/.u8/.b1 and f32 otherwise, result_type
// = d_type, a_source "descriptor", no transposes, scale_d true, scale_a and
// scale_b 1, dense, sp_sel 0, no satfinite, target sm_90a with its first PTX
// ISA version.
func ParseJSON(data []byte) (domain.Value, error) {
	var f jsonForm
	if err := domain.DecodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("wgmma: %w", err)
	}
	v, err := f.value()
	if err != nil {
		return nil, fmt.Errorf("wgmma: %w", err)
	}
	return v, nil
}

func (f jsonForm) value() (Value, error) {
	t, err := f.JSON.FromJSON(DefaultArch)
	if err != nil {
		return Value{}, err
	}
	v := Value{Rank: 2, M: 64, N: 128, ScaleD: true, ScaleA: 1, ScaleB: 1, Tgt: t}
	for _, b := range []struct {
		given *bool
		dst   *bool
	}{{f.TransA, &v.TransA}, {f.TransB, &v.TransB}, {f.ScaleD, &v.ScaleD}, {f.Sparse, &v.Sparse}, {f.Satfinite, &v.Satfinite}} {
		if b.given != nil {
			*b.dst = *b.given
		}
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
	a, err := enumField(Types, "a_type", f.AType, int(F16))
	if err != nil {
		return err
	}
	b, err := enumField(Types, "b_type", f.BType, a)
	if err != nil {
		return err
	}
	v.AType, v.BType = Type(a), Type(b)
	def := AccF32
	if v.AType.Int8() || v.AType == B1 {
		def = AccS32
	}
	d, err := enumField(AccTypes, "d_type", f.DType, int(def))
	if err != nil {
		return err
	}
	r, err := enumField(AccTypes, "result_type", f.ResultType, d)
	v.DType, v.ResultType = AccType(d), AccType(r)
	return err
}

// enumField parses an optional enum field, def when absent.
func enumField(e domain.Enum, field string, given *string, def int) (int, error) {
	if given == nil {
		return def, nil
	}
	return e.Parse(field, *given)
}

// shape sets rank, m, n, k (default NaturalK) and b_k (default k).
func (f jsonForm) shape(v *Value) error {
	if f.Rank != nil {
		if err := domain.Range("rank", int64(*f.Rank), 0, 4); err != nil {
			return err
		}
		v.Rank = uint8(*f.Rank)
	}
	var err error
	if v.M, err = dimField("m", f.M, v.M); err != nil {
		return err
	}
	if v.N, err = dimField("n", f.N, v.N); err != nil {
		return err
	}
	if v.K, err = dimField("k", f.K, NaturalK(v.AType, v.Sparse)); err != nil {
		return err
	}
	v.BK, err = dimField("b_k", f.BK, v.K)
	return err
}

// dimField parses an optional dimension in [0, MaxDim], def when absent.
func dimField(field string, given *int, def uint16) (uint16, error) {
	if given == nil {
		return def, nil
	}
	if err := domain.Range(field, int64(*given), 0, MaxDim); err != nil {
		return 0, err
	}
	return uint16(*given), nil
}

// operands sets A's source, the scale immediates and the sparsity selector,
// which only .sp carries.
func (f jsonForm) operands(v *Value) error {
	if f.ASource != nil {
		i, err := ASources.Parse("a_source", *f.ASource)
		if err != nil {
			return err
		}
		v.ARegister = i == 1
	}
	for _, s := range []struct {
		name  string
		given *int
		dst   *int8
	}{{"scale_a", f.ScaleA, &v.ScaleA}, {"scale_b", f.ScaleB, &v.ScaleB}} {
		if s.given == nil {
			continue
		}
		if err := domain.Range(s.name, int64(*s.given), -2, 2); err != nil {
			return err
		}
		*s.dst = int8(*s.given)
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
