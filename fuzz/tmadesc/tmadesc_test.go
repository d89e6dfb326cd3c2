package tmadesc

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// rngSeed returns the PRNG seed: TMADESC_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(0x7d5c)
	if s := os.Getenv("TMADESC_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("TMADESC_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with TMADESC_SEED)", seed)
	return seed
}

func iterations() int {
	if testing.Short() {
		return 500
	}
	return 20000
}

func randomBytes(rng *rand.Rand) []byte {
	b := make([]byte, rng.IntN(200))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// roundTrip checks the canonical and the JSON round trips of v.
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
	rng := rand.New(rand.NewPCG(rngSeed(t), 1))
	for range iterations() {
		v, err := Decode(randomBytes(rng))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		roundTrip(t, v.(Value))
	}
}

func TestDecodeShortInputs(t *testing.T) {
	full := BaseIm2col.Encode()
	for n := 0; n <= len(full); n++ {
		if _, err := Decode(full[:n]); err != nil {
			t.Fatalf("decode of %d bytes: %v", n, err)
		}
	}
	if _, err := Decode(nil); err != nil {
		t.Fatalf("decode(nil): %v", err)
	}
}

func TestDecodeNormalizes(t *testing.T) {
	b := BaseTiled.Encode()
	b[0] = byte(Im2col) // an im2col value decoded from a tiled one drops the box
	v, _ := Decode(b)
	if got := v.(Value).BoxDim; got != [MaxDims]uint32{} {
		t.Fatalf("im2col value kept boxDim %v", got)
	}
}

func TestJSONDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want Value
	}{
		{"empty", `{}`, With(BaseTiled, func(v *Value) {
			v.Swizzle, v.GlobalStrides[0] = SwizzleNone, 512
		})},
		{"rank from global_dim", `{"global_dim":[100,3,2]}`, With(BaseTiled, func(v *Value) {
			v.Rank, v.Swizzle, v.GlobalDim = 3, SwizzleNone, [MaxDims]uint64{100, 3, 2}
			v.GlobalStrides = [MaxDims - 1]uint64{208, 624}
			v.BoxDim, v.ElementStrides = [MaxDims]uint32{64, 64, 64}, [MaxDims]uint32{1, 1, 1}
		})},
		{"im2col", `{"encode":"im2col","global_dim":[64,32,32,8],"swizzle":"128B","pixel_box_lower":[-1,-1],"pixel_box_upper":[-1,-1]}`, BaseIm2col},
		{"im2col_wide", `{"encode":"im2col_wide","global_dim":[64,32,8],"pixel_box_lower":[-1],"pixel_box_upper":[-1],"target":"sm_100a"}`, BaseWide},
		{"interleave 32B strides", `{"rank":3,"interleave":"32B","swizzle":"32B","global_dim":[256,256,4],"box_dim":[16,16,4]}`, BaseInterleaved},
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

func TestJSONStrict(t *testing.T) {
	for _, tc := range []struct {
		in, field string
	}{
		{`{"bogus":1}`, "bogus"},
		{`{"encode":"tile"}`, "encode"},
		{`{"dtype":"float8"}`, "dtype"},
		{`{"rank":9}`, "rank"},
		{`{"rank":-1}`, "rank"},
		{`{"tensor_map":-64}`, "tensor_map"},
		{`{"global_address":1.5}`, "global_address"},
		{`{"global_dim":[1,2,3,4,5,6]}`, "global_dim"},
		{`{"global_dim":[-1]}`, "global_dim"},
		{`{"rank":2,"global_dim":[1,2,3]}`, "global_dim"},
		{`{"rank":3,"global_strides":[16]}`, "global_strides"},
		{`{"box_dim":[1,2,3]}`, "box_dim"},
		{`{"box_dim":[4294967296,1]}`, "box_dim"},
		{`{"element_strides":[1]}`, "element_strides"},
		{`{"interleave":"64B"}`, "interleave"},
		{`{"swizzle":"256B"}`, "swizzle"},
		{`{"l2_promotion":"512B"}`, "l2_promotion"},
		{`{"oob_fill":"nan"}`, "oob_fill"},
		{`{"pixel_box_lower":[0]}`, "pixel_box_lower"},
		{`{"encode":"im2col","pixel_box_upper":[0]}`, "pixel_box_upper"},
		{`{"encode":"im2col","pixel_box_lower":[2147483648,0]}`, "pixel_box_lower"},
		{`{"channels_per_pixel":64}`, "channels_per_pixel"},
		{`{"encode":"im2col","pixels_per_column":-1}`, "pixels_per_column"},
		{`{"encode":"im2col","wide_mode":"W"}`, "wide_mode"},
		{`{"encode":"im2col_wide","wide_mode":"W64"}`, "wide_mode"},
		{`{"encode":"im2col","box_dim":[1,1,1,1]}`, "box_dim"},
		{`{"smem_address":4294967296}`, "smem_address"},
		{`{"target":"sm_91"}`, "target"},
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

func TestJSONArraysSizedByRank(t *testing.T) {
	v := With(BaseTiled, func(v *Value) { v.Rank = 7 })
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]int{"global_dim": 5, "global_strides": 4, "box_dim": 5, "element_strides": 5} {
		if got := len(m[field].([]any)); got != want {
			t.Errorf("%s has %d entries at rank 7, want %d", field, got, want)
		}
	}
	for _, absent := range []string{"pixel_box_lower", "channels_per_pixel", "wide_mode"} {
		if _, ok := m[absent]; ok {
			t.Errorf("tiled JSON carries %s", absent)
		}
	}
}
