package matdesc

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// roundTrip checks the canonical, JSON and raw-word round trips of v.
func roundTrip(t testing.TB, dv domain.Value) {
	t.Helper()
	domaintest.RoundTrip(t, Domain, dv)
	v := dv.(Value)
	if again := FromRaw(v.Format, v.Raw(), v.Uniform, v.Tgt).Raw(); again != v.Raw() {
		t.Fatalf("raw 0x%016x reads and repacks as 0x%016x", v.Raw(), again)
	}
}

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "MATDESC_SEED", Seed: 0xde5c, Stream: 2, N: 20000, MaxLen: 40,
	Check: roundTrip, Full: Seeds()[1]}

func TestDomain(t *testing.T) { suite.Run(t) }

// TestRandomRawWords reads random words in both formats: each reads back to
// a value whose word is the same.
func TestRandomRawWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(suite.RNGSeed(t), 3))
	t90, t100 := target.MustParse("sm_90a", ""), target.MustParse("sm_100a", "")
	for range 5000 {
		raw := rng.Uint64()
		for _, v := range []Value{FromRaw(WGMMA, raw, true, t90), FromRaw(TCGen05, raw, false, t100)} {
			if v.Raw() != raw {
				t.Fatalf("%s word 0x%016x repacks as 0x%016x", v.Format, raw, v.Raw())
			}
			roundTrip(t, v)
		}
	}
}

// TestDecodeAllOnes decodes an all-ones input: every field stays in range.
func TestDecodeAllOnes(t *testing.T) {
	v, err := Decode([]byte(strings.Repeat("\xff", 48)))
	if err != nil {
		t.Fatal(err)
	}
	if val := v.(Value); val.Swizzle > 7 || val.BaseOffset > 7 || val.Fixed46 > 7 || val.Reserved&^ReservedMask(val.Format) != 0 {
		t.Fatalf("all-ones input decodes out of range: %+v", val)
	}
}

// TestPTXLayouts pins the packing of both formats on CUTLASS's K-major 128B
// descriptor (start 0x400, LBO 16, SBO 1024).
func TestPTXLayouts(t *testing.T) {
	v := Value{Format: WGMMA, StartAddr: 0x400, LBO: 16, SBO: 1024, Swizzle: 1, Uniform: true}
	if got := v.Raw(); got != 0x4000004000010040 {
		t.Fatalf("wgmma word 0x%016x", got)
	}
	v.Format, v.Swizzle, v.Fixed46, v.LBOMode, v.Fixed53 = TCGen05, 2, 1, true, 0x81
	if got := v.Raw(); got != 0x5030404000010040 {
		t.Fatalf("tcgen05 word 0x%016x", got)
	}
	if DescriptorEncode(0x4_0010) != 1 || DescriptorEncode(0x3FFFF) != 0x3FFF {
		t.Fatal("matrix-descriptor-encode keeps bits 4-17")
	}
}

func TestJSONDefaults(t *testing.T) {
	sm90a, sm100a := target.MustParse("sm_90a", ""), target.MustParse("sm_100a", "")
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{In: `{}`, Want: Value{Format: WGMMA, Uniform: true, Tgt: sm90a}},
		{In: `{"format":"tcgen05"}`, Want: Value{Format: TCGen05, Fixed46: 1, Uniform: true, Tgt: sm100a}},
		{In: `{"format":"tcgen05","raw":0}`, Want: Value{Format: TCGen05, Uniform: true, Tgt: sm100a}},
		{In: `{"raw":4611686293305360448,"uniform":false}`,
			Want: Value{Format: WGMMA, StartAddr: 0x400, LBO: 16, SBO: 1024, Swizzle: 1, Tgt: sm90a}},
		{In: `{"start_addr":1024,"lbo":16,"sbo":1024,"swizzle":1,"raw":4611686293305360448}`,
			Want: Value{Format: WGMMA, StartAddr: 0x400, LBO: 16, SBO: 1024, Swizzle: 1, Uniform: true, Tgt: sm90a}},
		{In: `{"reserved":16384,"target":"sm_100a","ptx":"8.8"}`,
			Want: Value{Format: WGMMA, Reserved: 1 << 14, Uniform: true, Tgt: target.MustParse("sm_100a", "8.8")}},
	})
}

func TestJSONErrorsNameTheField(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"format":"hmma"}`, Field: "format"},
		{In: `{"start_addr":4294967296}`, Field: "start_addr"},
		{In: `{"lbo":-16}`, Field: "lbo"},
		{In: `{"sbo":1e20}`, Field: "sbo"},
		{In: `{"base_offset":8}`, Field: "base_offset"},
		{In: `{"swizzle":4}`, Field: "swizzle"},
		{In: `{"format":"tcgen05","swizzle":8}`, Field: "swizzle"},
		{In: `{"fixed_46_48":1}`, Field: "fixed_46_48"},
		{In: `{"format":"tcgen05","fixed_46_48":8}`, Field: "fixed_46_48"},
		{In: `{"format":"tcgen05","fixed_53_60":256}`, Field: "fixed_53_60"},
		{In: `{"lbo_mode":true}`, Field: "lbo_mode"},
		{In: `{"reserved":1}`, Field: "reserved"},
		{In: `{"format":"tcgen05","reserved":70368744177664}`, Field: "reserved"},
		{In: `{"raw":-1}`, Field: "raw"},
		{In: `{"swizzle":1,"raw":0}`, Field: "raw"},
		{In: `{"uniform":1}`, Field: "uniform"},
		{In: `{"format":"tcgen05","target":"sm_100x"}`, Field: "target"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 32) }
