package umma

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

// rngSeed returns the PRNG seed: UMMA_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(0x0a11a)
	if s := os.Getenv("UMMA_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("UMMA_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with UMMA_SEED)", seed)
	return seed
}

// roundTrip checks the canonical and the JSON round trip of v.
func roundTrip(t *testing.T, v Value) {
	t.Helper()
	back, err := Decode(v.Encode())
	if err != nil || !reflect.DeepEqual(back, v) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", v, back, err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	parsed, err := ParseJSON(js)
	if err != nil || !reflect.DeepEqual(parsed, v) {
		t.Fatalf("JSON round trip %s = %+v, %v; want %+v", js, parsed, err, v)
	}
}

func TestSeedsRoundTrip(t *testing.T) {
	for i, v := range Seeds() {
		t.Run(strconv.Itoa(i), func(t *testing.T) { roundTrip(t, v.(Value)) })
	}
}

func TestRandomBytesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(rngSeed(t), 5))
	n := 20000
	if testing.Short() {
		n = 500
	}
	for range n {
		b := make([]byte, rng.IntN(120))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		v, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %x: %v", b, err)
		}
		val := v.(Value)
		if val.KMode >= val.Rank || val.MNMode >= val.Rank {
			t.Fatalf("mode index beyond rank: %+v", val)
		}
		roundTrip(t, val)
	}
}

func TestDecodeShortInputs(t *testing.T) {
	full := Seeds()[2].Encode()
	for n := 0; n <= len(full); n++ {
		v, err := Decode(full[:n])
		if err != nil {
			t.Fatalf("decode of %d bytes: %v", n, err)
		}
		val := v.(Value)
		for _, m := range val.Modes[:val.Rank] {
			if m.Subs == 0 || m.Shape[0] == 0 {
				t.Fatalf("decode of %d bytes has an empty mode: %+v", n, v)
			}
		}
	}
}

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
	for _, tc := range []struct {
		in   string
		want Value
	}{
		{`{}`, Value{ElemBits: 16, Swizzle: [3]uint8{0, 4, 3}, Rank: 2,
			Modes: [MaxModes]Mode{flat(8, 8), flat(16, 1)}, KMode: 1, Tgt: sm100a}},
		{`{"direction":1,"elem_bits":8,"swizzle":[3,4,3],"sparse":true,"modes":[{"shape":[32],"stride":[1]}],"target":"sm_103a"}`,
			Value{Direction: 1, ElemBits: 8, Swizzle: [3]uint8{3, 4, 3}, Sparse: true, Rank: 1,
				Modes: [MaxModes]Mode{flat(32, 1)}, Tgt: target.MustParse("sm_103a", "")}},
		{`{"modes":[{"shape":[16],"stride":[1]},{"shape":[8,2],"stride":[8,64]}],"k_mode":0,"mn_mode":1}`,
			Value{ElemBits: 16, Swizzle: [3]uint8{0, 4, 3}, Rank: 2, MNMode: 1, Tgt: sm100a, Modes: [MaxModes]Mode{
				flat(16, 1), {Subs: 2, Shape: [MaxSubs]uint16{8, 2}, Stride: [MaxSubs]int32{8, 64}}}}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			v, err := ParseJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, tc.want) {
				t.Fatalf("got %+v, want %+v", v, tc.want)
			}
		})
	}
}

func TestJSONErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, field string }{
		{`{"bogus":1}`, "bogus"},
		{`{"direction":256}`, `"direction"`},
		{`{"elem_bits":-1}`, `"elem_bits"`},
		{`{"swizzle":[1,4]}`, `"swizzle"`},
		{`{"swizzle":[1,4,16]}`, `"swizzle[2]"`},
		{`{"sparse":"yes"}`, `"sparse"`},
		{`{"modes":[]}`, `"modes"`},
		{`{"modes":[{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]},{"shape":[1],"stride":[1]}]}`, `"modes"`},
		{`{"modes":[{"shape":[],"stride":[]}]}`, `"modes[0].shape"`},
		{`{"modes":[{"shape":[1,2,3,4],"stride":[1,2,3,4]}]}`, `"modes[0].shape"`},
		{`{"modes":[{"shape":[8],"stride":[1]},{"shape":[8,2],"stride":[1]}]}`, `"modes[1].stride"`},
		{`{"modes":[{"shape":[0],"stride":[1]}]}`, `"modes[0].shape[0]"`},
		{`{"modes":[{"shape":[65536],"stride":[1]}]}`, `"modes[0].shape[0]"`},
		{`{"modes":[{"shape":[8,2],"stride":[1,2147483648]}]}`, `"modes[0].stride[1]"`},
		{`{"modes":[{"shape":[8],"stride":[1]}],"k_mode":1}`, `"k_mode"`},
		{`{"mn_mode":2}`, `"mn_mode"`},
		{`{"ptx":"8.4.1"}`, `"ptx"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
}
