package wgmma

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "WGMMA_SEED", Seed: 0x96a, Stream: 7, N: 20000, MaxLen: 32,
	Full: Value{Rank: 4, M: 511, N: 256, K: 32, BK: 7, AType: S4, BType: B1, DType: AccF64, ResultType: AccS32,
		ARegister: true, TransA: true, TransB: true, ScaleD: true, ScaleA: -2, ScaleB: 2, Sparse: true, SpSel: 3,
		Satfinite: true, Tgt: target.MustParse("sm_120a", "")}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestDecodeRanges(t *testing.T) {
	b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	b[13] = 0xef // the flags byte with .sp clear: the selector must read back as zero
	v, _ := Decode(b)
	got := v.(Value)
	if got.M > MaxDim || got.ScaleA < -2 || got.ScaleA > 2 || got.Sparse || got.SpSel != 0 {
		t.Fatalf("decoded out of range: %+v", got)
	}
}

func TestNaturalK(t *testing.T) {
	for _, tc := range []struct {
		t      Type
		sparse bool
		want   uint16
	}{{F16, false, 16}, {BF16, true, 32}, {TF32, false, 8}, {TF32, true, 16}, {E4M3, false, 32}, {U8, true, 64}, {B1, false, 256}} {
		if got := NaturalK(tc.t, tc.sparse); got != tc.want {
			t.Errorf("NaturalK(%s, %v) = %d, want %d", tc.t, tc.sparse, got, tc.want)
		}
	}
}

func TestJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	base := Value{Rank: 2, M: 64, N: 128, K: 16, BK: 16, AType: F16, BType: F16, DType: AccF32, ResultType: AccF32,
		ScaleD: true, ScaleA: 1, ScaleB: 1, Tgt: sm90a}
	with := func(f func(*Value)) Value { v := base; f(&v); return v }
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: base},
		{Name: "integer", In: `{"a_type":"s8","b_type":"u8","satfinite":true}`, Want: with(func(v *Value) {
			v.AType, v.BType, v.K, v.BK, v.DType, v.ResultType, v.Satfinite = S8, U8, 32, 32, AccS32, AccS32, true
		})},
		{Name: "sparse doubles k", In: `{"a_type":"tf32","sparse":true,"sp_sel":1,"ptx":"8.2"}`, Want: with(func(v *Value) {
			v.AType, v.BType, v.K, v.BK, v.Sparse, v.SpSel, v.Tgt = TF32, TF32, 16, 16, true, 1, target.MustParse("sm_90a", "8.2")
		})},
		{Name: "explicit", In: `{"rank":3,"m":128,"n":8,"k":5,"b_k":6,"d_type":"f16","result_type":"s32","a_source":"register","trans_a":true,"trans_b":true,"scale_d":false,"scale_a":-1,"scale_b":-2,"target":"sm_100a"}`,
			Want: with(func(v *Value) {
				v.Rank, v.M, v.N, v.K, v.BK, v.DType, v.ResultType = 3, 128, 8, 5, 6, AccF16, AccS32
				v.ARegister, v.TransA, v.TransB, v.ScaleD, v.ScaleA, v.ScaleB = true, true, true, false, -1, -2
				v.Tgt = target.MustParse("sm_100a", "")
			})},
	})
}

func TestJSONStrict(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"rank":5}`, Field: "rank"},
		{In: `{"m":512}`, Field: "m"},
		{In: `{"n":-8}`, Field: "n"},
		{In: `{"k":1000}`, Field: "k"},
		{In: `{"b_k":600}`, Field: "b_k"},
		{In: `{"a_type":"f32"}`, Field: "a_type"},
		{In: `{"b_type":"e2m1"}`, Field: "b_type"},
		{In: `{"d_type":"bf16"}`, Field: "d_type"},
		{In: `{"result_type":"tf32"}`, Field: "result_type"},
		{In: `{"a_source":"tmem"}`, Field: "a_source"},
		{In: `{"trans_a":0}`, Field: "trans_a"},
		{In: `{"scale_a":3}`, Field: "scale_a"},
		{In: `{"scale_b":-3}`, Field: "scale_b"},
		{In: `{"sparse":true,"sp_sel":4}`, Field: "sp_sel"},
		{In: `{"sp_sel":1}`, Field: "sp_sel"},
		{In: `{"target":"sm_90b"}`, Field: "target"},
		{In: `{"ptx":"8"}`, Field: "ptx"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 22) }
