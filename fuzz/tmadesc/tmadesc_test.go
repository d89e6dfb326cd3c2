package tmadesc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

func TestSeedsRoundTrip(t *testing.T) { domaintest.SeedsRoundTrip(t, Domain, nil) }

func TestRandomBytesRoundTrip(t *testing.T) {
	seed := domaintest.Seed(t, "TMADESC_SEED", 0x7d5c)
	domaintest.RandomBytes(t, Domain, domaintest.Random{Seed: seed, Stream: 1, N: 20000, MaxLen: 200})
}

func TestDecodeShortInputs(t *testing.T) {
	full := BaseIm2col.Encode()
	domaintest.ShortInputs(t, Domain, full, nil)
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
