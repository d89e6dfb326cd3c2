package blockscale

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// rngSeed returns the PRNG seed: BLOCKSCALE_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(0xb5ca)
	if s := os.Getenv("BLOCKSCALE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("BLOCKSCALE_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with BLOCKSCALE_SEED)", seed)
	return seed
}

// roundTrip checks the canonical and the JSON round trip of v.
func roundTrip(t *testing.T, v Value) {
	t.Helper()
	back, err := Decode(v.Encode())
	if err != nil {
		t.Fatalf("decode(encode(%v)): %v", v, err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Fatalf("decode(encode(v)) = %+v, want %+v", back, v)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	parsed, err := ParseJSON(js)
	if err != nil {
		t.Fatalf("parse own JSON %s: %v", js, err)
	}
	if !reflect.DeepEqual(parsed, v) {
		t.Fatalf("JSON round trip %s = %+v, want %+v", js, parsed, v)
	}
}

func TestSeedsRoundTrip(t *testing.T) {
	for i, v := range Seeds() {
		t.Run(strconv.Itoa(i), func(t *testing.T) { roundTrip(t, v.(Value)) })
	}
}

func TestRandomBytesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(rngSeed(t), 4))
	n := 20000
	if testing.Short() {
		n = 500
	}
	for range n {
		b := make([]byte, rng.IntN(16))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		v, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %x: %v", b, err)
		}
		roundTrip(t, v.(Value))
	}
}

// TestDecodeShortInputs decodes every prefix of a full encoding, the empty
// input included.
func TestDecodeShortInputs(t *testing.T) {
	full := New(MXF4NVF4, E2M1, E2M1, UE4M3).Encode()
	for n := 0; n <= len(full); n++ {
		v, err := Decode(full[:n])
		if err != nil {
			t.Fatalf("decode %d bytes: %v", n, err)
		}
		if !v.Target().Valid() {
			t.Fatalf("decode %d bytes: invalid target %v", n, v.Target())
		}
	}
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
