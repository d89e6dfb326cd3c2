package tmamode

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

// rngSeed returns the PRNG seed: TMAMODE_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(0x7a3a)
	if s := os.Getenv("TMAMODE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("TMAMODE_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with TMAMODE_SEED)", seed)
	return seed
}

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
	rng := rand.New(rand.NewPCG(rngSeed(t), 2))
	n := 20000
	if testing.Short() {
		n = 500
	}
	for range n {
		b := make([]byte, rng.IntN(24))
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

func TestDecodeShortInputs(t *testing.T) {
	full := Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1,
		Tgt: target.MustParse("sm_100a", "")}.Encode()
	for n := 0; n <= len(full); n++ {
		if _, err := Decode(full[:n]); err != nil {
			t.Fatalf("decode of %d bytes: %v", n, err)
		}
	}
}

func TestJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	for _, tc := range []struct {
		name string
		in   string
		want Value
	}{
		{"empty", `{}`, Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCluster, BoxDim1: 1, Tgt: sm90a}},
		{"store", `{"direction":"store","mode":"tile::scatter4","target":"sm_100a"}`,
			Value{Direction: Store, Mode: Scatter4, Rank: 2, Dst: Global, BoxDim1: 1, Tgt: target.MustParse("sm_100a", "")}},
		{"prefetch", `{"direction":"prefetch","rank":4,"mode":"im2col"}`,
			Value{Direction: Prefetch, Mode: Im2col, Rank: 4, Dst: L2, BoxDim1: 1, Tgt: sm90a}},
		{"explicit", `{"dst":"shared::cta","cta_group":2,"multicast":true,"w_halo":3,"w_offset":4,"interleave":"32B","box_dim1":7,"ptx":"8.6"}`,
			Value{Direction: Load, Mode: Tile, Rank: 2, Dst: SharedCTA, CTAGroup: 2, Multicast: true, WHalo: 3,
				WOffset: 4, Interleave: 2, BoxDim1: 7, Tgt: target.MustParse("sm_90a", "8.6")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestJSONStrict(t *testing.T) {
	for _, tc := range []struct {
		in, field string
	}{
		{`{"bogus":1}`, "bogus"},
		{`{"direction":"reduce"}`, "direction"},
		{`{"mode":"tile::gather8"}`, "mode"},
		{`{"rank":8}`, "rank"},
		{`{"rank":-1}`, "rank"},
		{`{"dst":"shared"}`, "dst"},
		{`{"cta_group":3}`, "cta_group"},
		{`{"multicast":1}`, "multicast"},
		{`{"box_dim1":-1}`, "box_dim1"},
		{`{"interleave":"64B"}`, "interleave"},
		{`{"w_halo":65536}`, "w_halo"},
		{`{"w_offset":-1}`, "w_offset"},
		{`{"target":"sm_99"}`, "target"},
		{`{"ptx":"9"}`, "ptx"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), `"`+tc.field+`"`) {
				t.Fatalf("error %v, want one naming %q", err, tc.field)
			}
		})
	}
}
