package blockscale

import (
	"encoding/json"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// suite is blockscale's decoder checks: every decoded target, however
// short the input, is a valid one.
var suite = domaintest.Suite{Domain: Domain, SeedEnv: "BLOCKSCALE_SEED", Seed: 0xb5ca, Stream: 4, N: 20000, MaxLen: 16,
	Full: New(MXF4NVF4, E2M1, E2M1, UE4M3),
	Prefix: func(t testing.TB, n int, v domain.Value) {
		if !v.Target().Valid() {
			t.Fatalf("decode %d bytes: invalid target %v", n, v.Target())
		}
	}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestScaleVecN(t *testing.T) {
	for _, tc := range []struct {
		k, svs uint8
		n      int
		ok     bool
	}{
		{32, 32, 1, true}, {64, 32, 2, true}, {64, 16, 4, true}, {64, 24, 0, false}, {64, 0, 0, false}, {0, 16, 0, true},
	} {
		n, ok := Value{K: tc.k, ScaleVecSize: tc.svs}.ScaleVecN()
		if n != tc.n || ok != tc.ok {
			t.Errorf("K=%d svs=%d: %d %t, want %d %t", tc.k, tc.svs, n, ok, tc.n, tc.ok)
		}
	}
}

func TestParseJSONDefaults(t *testing.T) {
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: New(MXF8F6F4, E4M3, E4M3, UE8M0)},
		{Name: "k 64", In: `{"k":64}`, Want: New(MXF4, E2M1, E2M1, UE8M0)},
		{Name: "k 64 ue4m3", In: `{"k":64,"sf_type":"ue4m3"}`, Want: New(MXF4NVF4, E2M1, E2M1, UE4M3)},
		{Name: "kind mxf4nvf4", In: `{"kind":"mxf4nvf4"}`, Want: New(MXF4NVF4, E2M1, E2M1, UE8M0)},
		{Name: "kind with another k", In: `{"kind":"mxf4","k":32}`,
			Want: Value{K: 32, AType: E4M3, BType: E4M3, ScaleVecSize: 16, ScaleFragmentBits: 16, Kind: MXF4, Tgt: sm120a}},
		{Name: "types", In: `{"a_type":"e2m3","b_type":"e5m2"}`, Want: New(MXF8F6F4, E2M3, E5M2, UE8M0)},
		{Name: "explicit target", In: `{"target":"sm_120f","ptx":"9.0"}`,
			Want: with(New(MXF8F6F4, E4M3, E4M3, UE8M0), func(v *Value) { v.Tgt = target.MustParse("sm_120f", "9.0") })},
	})
}

func TestParseJSONErrorsNameTheField(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"k":256}`, Field: "k"},
		{In: `{"k":-1}`, Field: "k"},
		{In: `{"k":"32"}`, Field: "k"},
		{In: `{"a_type":"fp4"}`, Field: "a_type"},
		{In: `{"b_type":"s8"}`, Field: "b_type"},
		{In: `{"sf_type":"e8m0"}`, Field: "sf_type"},
		{In: `{"scale_vector_size":300}`, Field: "scale_vector_size"},
		{In: `{"scale_fragment_bits":-8}`, Field: "scale_fragment_bits"},
		{In: `{"kind":"mxf6"}`, Field: "kind"},
		{In: `{"target":"sm_121a"}`, Field: "target"},
		{In: `{"ptx":"8.x"}`, Field: "ptx"},
	})
}

func TestMarshalJSONWritesEveryField(t *testing.T) {
	js, err := json.Marshal(New(MXF4NVF4, E2M1, E2M1, UE4M3))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"k":64,"a_type":"e2m1","b_type":"e2m1","sf_type":"ue4m3","scale_vector_size":16,` +
		`"scale_fragment_bits":32,"kind":"mxf4nvf4","target":"sm_120a","ptx":"8.7"}`
	if string(js) != want {
		t.Fatalf("got  %s\nwant %s", js, want)
	}
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 10) }
