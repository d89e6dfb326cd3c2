package swizzle

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "SWIZZLE_SEED", Seed: 0x5e1221e, Stream: 1, N: 20000, MaxLen: 24,
	Full: Seeds()[3]}

func TestDomain(t *testing.T) { suite.Run(t) }

// TestDecodeAllOnes decodes an all-ones input: every field stays in range.
func TestDecodeAllOnes(t *testing.T) {
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
	domaintest.ParseJSON(t, Domain, []domaintest.Parsed{
		{In: `{}`, Want: Value{Mode: None, B: 0, M: 4, S: 3, Tgt: sm90a}},
		{In: `{"mode":"128B","k":1024}`, Want: Value{Mode: B128, B: 3, M: 4, S: 3, K: 1024, Tgt: sm90a}},
		{In: `{"b":2}`, Want: Value{Mode: CuTe, B: 2, M: 4, S: 3, Tgt: sm90a}},
		{In: `{"mode":"reserved6","x":7,"target":"sm_100a"}`, Want: Value{Mode: Reserved6, X: 7, Tgt: target.MustParse("sm_100a", "")}},
		{In: `{"mode":"32B","b":1,"m":4,"s":3,"k":-256}`, Want: Value{Mode: B32, B: 1, M: 4, S: 3, K: -256, Tgt: sm90a}},
	})
}

func TestJSONErrorsNameTheField(t *testing.T) {
	domaintest.ParseJSONRefuses(t, Domain, []domaintest.Refused{
		{In: `{"bogus":1}`, Field: "bogus"},
		{In: `{"mode":"256B"}`, Field: "mode"},
		{In: `{"b":5}`, Field: "b"},
		{In: `{"m":-1}`, Field: "m"},
		{In: `{"s":7}`, Field: "s"},
		{In: `{"x":4294967296}`, Field: "x"},
		{In: `{"x":-1}`, Field: "x"},
		{In: `{"k":"1"}`, Field: "k"},
		{In: `{"mode":"128B","b":2}`, Field: "b"},
		{In: `{"mode":"reserved7","s":3}`, Field: "s"},
		{In: `{"target":"sm_99"}`, Field: "target"},
		{In: `{"ptx":"1.0"}`, Field: "ptx"},
	})
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

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 19) }
