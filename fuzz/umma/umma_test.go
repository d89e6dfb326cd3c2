package umma

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// suite is umma's decoder checks: a random value's mode indices stay below
// its rank, and no prefix of a full encoding decodes to an empty mode.
var suite = domaintest.Suite{Domain: Domain, SeedEnv: "UMMA_SEED", Seed: 0x0a11a, Stream: 5, N: 20000, MaxLen: 120,
	Decoded: func(t testing.TB, v domain.Value) {
		t.Helper()
		if val := v.(Value); val.KMode >= val.Rank || val.MNMode >= val.Rank {
			t.Fatalf("mode index beyond rank: %+v", val)
		}
		domaintest.RoundTrip(t, Domain, v)
	},
	Full: Seeds()[2],
	Prefix: func(t testing.TB, n int, v domain.Value) {
		val := v.(Value)
		for _, m := range val.Modes[:val.Rank] {
			if m.Subs == 0 || m.Shape[0] == 0 {
				t.Fatalf("decode of %d bytes has an empty mode: %+v", n, v)
			}
		}
	}}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestModeOffsetAndCosize(t *testing.T) {
	// ((8,16),(8,2)):((64,512),(1,8)), the K-major 128B f16 operand.
	v := Seeds()[2].(Value)
	if got := v.Layout(); got != "((8,16):(64,512),(8,2):(1,8))" {
		t.Fatalf("layout %s", got)
	}
	if v.Modes[0].Offset(9) != 64+512 || v.Modes[1].Offset(15) != 7+8 {
		t.Fatalf("offsets %d %d", v.Modes[0].Offset(9), v.Modes[1].Offset(15))
	}
	if v.Cosize() != 7*64+15*512+7+8+1 || v.KSize() != 16 || v.MNSize() != 128 || v.Size() != 2048 {
		t.Fatalf("cosize %d k %d mn %d size %d", v.Cosize(), v.KSize(), v.MNSize(), v.Size())
	}
	neg := Value{Rank: 1, Modes: [MaxModes]Mode{{Subs: 1, Shape: [MaxSubs]uint16{4}, Stride: [MaxSubs]int32{-3}}}}
	if neg.Cosize() != 1 {
		t.Fatalf("negative stride cosize %d, want 1", neg.Cosize())
	}
}

func TestJSONDefaults(t *testing.T) {
	sm100a := target.MustParse("sm_100a", "")
	flat := func(shape uint16, stride int32) Mode {
		return Mode{Subs: 1, Shape: [MaxSubs]uint16{shape}, Stride: [MaxSubs]int32{stride}}
	}
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{In: `{}`, Want: Value{ElemBits: 16, Swizzle: [3]uint8{0, 4, 3}, Rank: 2,
			Modes: [MaxModes]Mode{flat(8, 8), flat(16, 1)}, KMode: 1, Tgt: sm100a}},
		{In: `{"direction":1,"elem_bits":8,"swizzle":[3,4,3],"sparse":true,"modes":[{"shape":[32],"stride":[1]}],"target":"sm_103a"}`,
			Want: Value{Direction: 1, ElemBits: 8, Swizzle: [3]uint8{3, 4, 3}, Sparse: true, Rank: 1,
				Modes: [MaxModes]Mode{flat(32, 1)}, Tgt: target.MustParse("sm_103a", "")}},
		{In: `{"modes":[{"shape":[16],"stride":[1]},{"shape":[8,2],"stride":[8,64]}],"k_mode":0,"mn_mode":1}`,
			Want: Value{ElemBits: 16, Swizzle: [3]uint8{0, 4, 3}, Rank: 2, MNMode: 1, Tgt: sm100a, Modes: [MaxModes]Mode{
				flat(16, 1), {Subs: 2, Shape: [MaxSubs]uint16{8, 2}, Stride: [MaxSubs]int32{8, 64}}}}},
	})
}

func TestJSONErrorsNameTheField(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"direction":256}`, Field: "direction"},
		{In: `{"elem_bits":-1}`, Field: "elem_bits"},
		{In: `{"swizzle":[1,4]}`, Field: "swizzle"},
		{In: `{"swizzle":[1,4,16]}`, Field: "swizzle"},
		{In: `{"sparse":"yes"}`, Field: "sparse"},
		{In: `{"modes":[]}`, Field: "modes"},
		{In: `{"modes":[{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]}]}`, Field: "modes"},
		{In: `{"modes":[{"shape":[],"stride":[]}]}`, Field: "modes[0].shape"},
		{In: `{"modes":[{"shape":[1,2,3,4],"stride":[1,2,3,4]}]}`, Field: "modes[0].shape"},
		{In: `{"modes":[{"shape":[8],"stride":[1]},{"shape":[8,2],"stride":[1]}]}`, Field: "modes[1].stride"},
		{In: `{"modes":[{"shape":[0],"stride":[1]}]}`, Field: "modes[0].shape"},
		{In: `{"modes":[{"shape":[65536],"stride":[1]}]}`, Field: "modes[0].shape"},
		{In: `{"modes":[{"shape":[8,2],"stride":[1,2147483648]}]}`, Field: "modes[0].stride"},
		{In: `{"modes":[{"shape":[8],"stride":[1]}],"k_mode":1}`, Field: "k_mode"},
		{In: `{"mn_mode":2}`, Field: "mn_mode"},
		{In: `{"ptx":"8.4.1"}`, Field: "ptx"},
	})
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 120) }
