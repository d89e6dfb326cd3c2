package swizzle

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

// rngSeed returns the PRNG seed: SWIZZLE_SEED when set, else a fixed one.
func rngSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(0x5e1221e)
	if s := os.Getenv("SWIZZLE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("SWIZZLE_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %#x (override with SWIZZLE_SEED)", seed)
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
	rng := rand.New(rand.NewPCG(rngSeed(t), 1))
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

// TestDecodeShortInputs decodes every prefix of a full encoding, the empty
// input included, and an all-ones input.
func TestDecodeShortInputs(t *testing.T) {
	full := Seeds()[3].Encode()
	for n := 0; n <= len(full); n++ {
		if _, err := Decode(full[:n]); err != nil {
			t.Fatalf("decode of %d bytes: %v", n, err)
		}
	}
	ones := []byte(strings.Repeat("\xff", 32))
	v, err := Decode(ones)
	if err != nil {
		t.Fatal(err)
	}
	if val := v.(Value); val.B > MaxB || val.M > MaxM || val.S > MaxS || val.Mode != Reserved7 {
		t.Fatalf("all-ones input decodes out of range: %+v", val)
	}
}

func TestNamedModesCarryTheirTriple(t *testing.T) {
	for m := range Mode(len(Modes)) {
		v, err := Decode([]byte{byte(m), 1, 1, 1})
		if err != nil {
			t.Fatal(err)
		}
		val := v.(Value)
		b, mm, s := m.Triple()
		if m != CuTe && (val.B != b || val.M != mm || val.S != s) {
			t.Errorf("%s decodes to <%d,%d,%d>, want <%d,%d,%d>", m, val.B, val.M, val.S, b, mm, s)
		}
	}
}

func TestJSONDefaults(t *testing.T) {
	sm90a := target.MustParse("sm_90a", "")
	for _, tc := range []struct {
		in   string
		want Value
	}{
		{`{}`, Value{Mode: None, B: 0, M: 4, S: 3, Tgt: sm90a}},
		{`{"mode":"128B","k":1024}`, Value{Mode: B128, B: 3, M: 4, S: 3, K: 1024, Tgt: sm90a}},
		{`{"b":2}`, Value{Mode: CuTe, B: 2, M: 4, S: 3, Tgt: sm90a}},
		{`{"mode":"reserved6","x":7,"target":"sm_100a"}`, Value{Mode: Reserved6, X: 7, Tgt: target.MustParse("sm_100a", "")}},
		{`{"mode":"32B","b":1,"m":4,"s":3,"k":-256}`, Value{Mode: B32, B: 1, M: 4, S: 3, K: -256, Tgt: sm90a}},
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
		{`{"mode":"256B"}`, "mode"},
		{`{"b":5}`, `"b"`},
		{`{"m":-1}`, `"m"`},
		{`{"s":7}`, `"s"`},
		{`{"x":4294967296}`, `"x"`},
		{`{"x":-1}`, `"x"`},
		{`{"k":"1"}`, `"k"`},
		{`{"mode":"128B","b":2}`, `"b"`},
		{`{"mode":"reserved7","s":3}`, `"s"`},
		{`{"target":"sm_99"}`, `"target"`},
		{`{"ptx":"1.0"}`, `"ptx"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
}

func TestApplyAndWindow(t *testing.T) {
	v := Value{Mode: B128, B: 3, M: 4, S: 3}
	if v.YMask() != 0x380 || v.ZMask() != 0x70 || v.Window() != 10 {
		t.Fatalf("128B masks %#x %#x window %d", v.YMask(), v.ZMask(), v.Window())
	}
	// Row 1 of a 128B swizzle XORs its 16-byte chunk index with 1.
	if got := v.Apply(0x80); got != 0x90 {
		t.Fatalf("apply(0x80) = %#x, want 0x90", got)
	}
	if got := AddOffset(0xfffffff0, 0x20); got != 0x10 {
		t.Fatalf("add wraps to %#x, want 0x10", got)
	}
}
