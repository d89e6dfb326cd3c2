package tmadesc

import (
	"encoding/json"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "TMADESC_SEED", Seed: 0x7d5c, Stream: 1, N: 20000, MaxLen: 200,
	Full: BaseIm2col}

func TestDomain(t *testing.T) { suite.Run(t) }

// TestDecodeNil decodes a nil input, which the prefixes of the suite's full
// encoding (empty but not nil) do not.
func TestDecodeNil(t *testing.T) {
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
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{Name: "empty", In: `{}`, Want: With(BaseTiled, func(v *Value) {
			v.Swizzle, v.GlobalStrides[0] = SwizzleNone, 512
		})},
		{Name: "rank from global_dim", In: `{"global_dim":[100,3,2]}`, Want: With(BaseTiled, func(v *Value) {
			v.Rank, v.Swizzle, v.GlobalDim = 3, SwizzleNone, [MaxDims]uint64{100, 3, 2}
			v.GlobalStrides = [MaxDims - 1]uint64{208, 624}
			v.BoxDim, v.ElementStrides = [MaxDims]uint32{64, 64, 64}, [MaxDims]uint32{1, 1, 1}
		})},
		{Name: "im2col", In: `{"encode":"im2col","global_dim":[64,32,32,8],"swizzle":"128B","pixel_box_lower":[-1,-1],"pixel_box_upper":[-1,-1]}`, Want: BaseIm2col},
		{Name: "im2col_wide", In: `{"encode":"im2col_wide","global_dim":[64,32,8],"pixel_box_lower":[-1],"pixel_box_upper":[-1],"target":"sm_100a"}`, Want: BaseWide},
		{Name: "interleave 32B strides", In: `{"rank":3,"interleave":"32B","swizzle":"32B","global_dim":[256,256,4],"box_dim":[16,16,4]}`, Want: BaseInterleaved},
	})
}

func TestJSONStrict(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"encode":"tile"}`, Field: "encode"},
		{In: `{"dtype":"float8"}`, Field: "dtype"},
		{In: `{"rank":9}`, Field: "rank"},
		{In: `{"rank":-1}`, Field: "rank"},
		{In: `{"tensor_map":-64}`, Field: "tensor_map"},
		{In: `{"global_address":1.5}`, Field: "global_address"},
		{In: `{"global_dim":[1,2,3,4,5,6]}`, Field: "global_dim"},
		{In: `{"global_dim":[-1]}`, Field: "global_dim"},
		{In: `{"rank":2,"global_dim":[1,2,3]}`, Field: "global_dim"},
		{In: `{"rank":3,"global_strides":[16]}`, Field: "global_strides"},
		{In: `{"box_dim":[1,2,3]}`, Field: "box_dim"},
		{In: `{"box_dim":[4294967296,1]}`, Field: "box_dim"},
		{In: `{"element_strides":[1]}`, Field: "element_strides"},
		{In: `{"interleave":"64B"}`, Field: "interleave"},
		{In: `{"swizzle":"256B"}`, Field: "swizzle"},
		{In: `{"l2_promotion":"512B"}`, Field: "l2_promotion"},
		{In: `{"oob_fill":"nan"}`, Field: "oob_fill"},
		{In: `{"pixel_box_lower":[0]}`, Field: "pixel_box_lower"},
		{In: `{"encode":"im2col","pixel_box_upper":[0]}`, Field: "pixel_box_upper"},
		{In: `{"encode":"im2col","pixel_box_lower":[2147483648,0]}`, Field: "pixel_box_lower"},
		{In: `{"channels_per_pixel":64}`, Field: "channels_per_pixel"},
		{In: `{"encode":"im2col","pixels_per_column":-1}`, Field: "pixels_per_column"},
		{In: `{"encode":"im2col","wide_mode":"W128"}`, Field: "wide_mode"},
		{In: `{"encode":"im2col_wide","wide_mode":"W64"}`, Field: "wide_mode"},
		{In: `{"encode":"im2col","box_dim":[1,1,1,1]}`, Field: "box_dim"},
		{In: `{"smem_address":4294967296}`, Field: "smem_address"},
		{In: `{"target":"sm_91"}`, Field: "target"},
		{In: `{"ptx":"8.x"}`, Field: "ptx"},
	})
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

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 140) }
