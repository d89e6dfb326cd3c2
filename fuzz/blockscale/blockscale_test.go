package blockscale

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "BLOCKSCALE_SEED", 0xb5ca)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 4, N: 20000, MaxLen: 16})
}

// TestDecodeShortInputs decodes every prefix of a full encoding, the empty
// input included.
func TestDecodeShortInputs(t *testing.T) {
	full := New(MXF4NVF4, E2M1, E2M1, UE4M3).Encode()
	domaintest.ShortInputs(t, Domain, full, func(n int, v domain.Value) {
		if !v.Target().Valid() {
			t.Fatalf("decode %d bytes: invalid target %v", n, v.Target())
		}
	})
}

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
	for _, tc := range []struct {
		name, in string
		want     Value
	}{
		{"empty", `{}`, New(MXF8F6F4, E4M3, E4M3, UE8M0)},
		{"k 64", `{"k":64}`, New(MXF4, E2M1, E2M1, UE8M0)},
		{"k 64 ue4m3", `{"k":64,"sf_type":"ue4m3"}`, New(MXF4NVF4, E2M1, E2M1, UE4M3)},
		{"kind mxf4nvf4", `{"kind":"mxf4nvf4"}`, New(MXF4NVF4, E2M1, E2M1, UE8M0)},
		{"kind with another k", `{"kind":"mxf4","k":32}`,
			Value{K: 32, AType: E4M3, BType: E4M3, ScaleVecSize: 16, ScaleFragmentBits: 16, Kind: MXF4, Tgt: sm120a}},
		{"types", `{"a_type":"e2m3","b_type":"e5m2"}`, New(MXF8F6F4, E2M3, E5M2, UE8M0)},
		{"explicit target", `{"target":"sm_120f","ptx":"9.0"}`,
			with(New(MXF8F6F4, E4M3, E4M3, UE8M0), func(v *Value) { v.Tgt = target.MustParse("sm_120f", "9.0") })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseJSONErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, field string }{
		{`{"bogus":1}`, "bogus"},
		{`{"k":256}`, "k"},
		{`{"k":-1}`, "k"},
		{`{"k":"32"}`, "k"},
		{`{"a_type":"fp4"}`, "a_type"},
		{`{"b_type":"s8"}`, "b_type"},
		{`{"sf_type":"e8m0"}`, "sf_type"},
		{`{"scale_vector_size":300}`, "scale_vector_size"},
		{`{"scale_fragment_bits":-8}`, "scale_fragment_bits"},
		{`{"kind":"mxf6"}`, "kind"},
		{`{"target":"sm_121a"}`, "target"},
		{`{"ptx":"8.x"}`, "ptx"},
	} {
		t.Run(tc.field+" "+tc.in, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("error %v, want one naming %q", err, tc.field)
			}
		})
	}
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
