package waitcnt

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

func TestEncodeKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		w    Waitcnt
		simm uint16
		text string
	}{
		{Waitcnt{0, 0, 0}, 0x0000, "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"},
		{Waitcnt{3, 7, 0}, 0x0073, "s_waitcnt vmcnt(3) lgkmcnt(0)"},
		{Waitcnt{63, 7, 15}, 0xcf7f, "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"},
		{Waitcnt{17, 7, 3}, 0x4371, "s_waitcnt vmcnt(17) lgkmcnt(3)"},
		{Waitcnt{63, 3, 15}, 0xcf3f, "s_waitcnt expcnt(3)"},
		{Waitcnt{1, 2, 3}, 0x0321, "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)"},
	} {
		simm, err := tc.w.Encode()
		if err != nil || simm != tc.simm || tc.w.String() != tc.text || DecodeSIMM16(simm) != tc.w {
			t.Errorf("%v: 0x%04x %q %v, want 0x%04x %q", tc.w, simm, tc.w.String(), err, tc.simm, tc.text)
		}
	}
	if Instruction(0x0073) != 0xbf8c0073 {
		t.Error("SOPP word")
	}
}

// TestFieldsBeyondWidthRejected checks each field's first value past its
// width, and negatives, are refused by the encoder and the parser.
func TestFieldsBeyondWidthRejected(t *testing.T) {
	for c := range Counter(NumCounters) {
		for _, n := range []int{c.Max() + 1, -1} {
			w := NoWait
			w[c] = n
			if _, err := w.Encode(); !errors.Is(err, ErrFieldWidth) || w.InRange() {
				t.Errorf("%v encodes: %v", w, err)
			}
			if _, err := Parse(w.String()); !errors.Is(err, ErrFieldWidth) {
				t.Errorf("Parse(%q): %v", w.String(), err)
			}
		}
	}
	if w, err := Parse("s_waitcnt lgkmcnt_sat(100)"); err != nil || w != NoWait {
		t.Errorf("_sat: %v %v", w, err)
	}
}

// TestEveryEncoding round-trips all 8192 in-range s_waitcnts through the
// encoder, the decoder, the text and every spelling.
func TestEveryEncoding(t *testing.T) {
	seen := map[uint16]bool{}
	for vm := range 64 {
		for exp := range 8 {
			for lgkm := range 16 {
				w := Waitcnt{vm, exp, lgkm}
				simm, err := w.Encode()
				if err != nil || seen[simm] || DecodeSIMM16(simm) != w || simm&0x3080 != 0 {
					t.Fatalf("%v: 0x%04x %v", w, simm, err)
				}
				seen[simm] = true
				for _, s := range w.Spellings() {
					if back, err := Parse(s); err != nil || back != w {
						t.Fatalf("%q: %v %v", s, back, err)
					}
				}
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"s_waitcnt", "s_waitcntx vmcnt(0)", "s_waitcnt vmcnt(0) vmcnt(1)", "s_waitcnt vscnt(0)",
		"s_waitcnt 0x10000", "s_waitcnt vmcnt(1", "s_waitcnt VMCNT(1)", "v_nop", "s_waitcnt (1 << 40)"} {
		if w, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v", s, w)
		}
	}
}

// suite is waitcnt's decoder checks: every seed and every value decoded
// from random bytes is a program Build accepts, and round trips.
var suite = domaintest.Suite{Domain: Domain, SeedEnv: "WAITCNT_SEED", Seed: 9, Stream: 9, N: 20000, ShortN: 2000, MaxLen: 80,
	Check: func(t testing.TB, dv domain.Value) {
		t.Helper()
		v := dv.(Value)
		if _, err := Build(v.GPU, v.Program()...); err != nil {
			t.Fatalf("%v is not a valid program: %v", v, err)
		}
		domaintest.RoundTrip(t, Domain, dv)
	},
	Full: Seeds()[24]}

func TestDomain(t *testing.T) { suite.Run(t) }

func TestJSON(t *testing.T) {
	v, err := ParseJSON([]byte(`{"program":[{"op":"lds"},{"op":"smem","token":1},{"wait":[1,0]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := MustBuild(GFX942, Op(LDS), Op(SMEM), WaitOn(0, 1))
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("%v, want %v", v, want)
	}
	js, _ := json.Marshal(want)
	if string(js) != `{"gpu":"gfx942","program":[{"op":"lds","token":0},{"op":"smem","token":1},{"wait":[0,1]}]}` {
		t.Fatalf("%s", js)
	}
	for _, tc := range []struct{ in, err string }{
		{`{"gpu":"gfx1100"}`, `field "gpu": unknown value "gfx1100"`},
		{`{"program":[{"op":"flat"}]}`, `field "program[0]": field "op": unknown value "flat"`},
		{`{"program":[{"op":"lds"},{"wait":[1]}]}`, `field "program[1]": field "wait": 1 out of range [0, 0]`},
		{`{"program":[{"wait":[0]}]}`, `field "program[0]": field "wait": 0 out of range [0, -1]`},
		{`{"program":[{"op":"lds"},{"wait":[]}]}`, `field "program[1]": field "wait": names no token`},
		{`{"program":[{"op":"lds"},{"wait":[0,0]}]}`, `token 0 named twice`},
		{`{"program":[{"op":"lds","wait":[0]}]}`, `both "op" and "wait"`},
		{`{"program":[{}]}`, `neither "op" nor "wait"`},
		{`{"program":[{"op":"lds","token":3}]}`, `field "token": 3, but this operation is token 0`},
		{`{"program":[{"op":"lds"},{"wait":[0],"token":0}]}`, `a wait has no token`},
		{`{"program":[],"target":"sm_90"}`, `unknown field "target"`},
		{`{"program":[` + strings.Repeat(`{"op":"lds"},`, MaxItems) + `{"op":"lds"}]}`, `25 items, at most 24`},
	} {
		if _, err := ParseJSON([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestWithout(t *testing.T) {
	v := MustBuild(GFX942, Op(LDS), Op(SMEM), WaitOn(0, 1), Op(VMEMLoad), WaitOn(1, 2))
	for i, want := range []Value{
		MustBuild(GFX942, Op(SMEM), WaitOn(0), Op(VMEMLoad), WaitOn(0, 1)),
		MustBuild(GFX942, Op(LDS), WaitOn(0), Op(VMEMLoad), WaitOn(1)),
		MustBuild(GFX942, Op(LDS), Op(SMEM), Op(VMEMLoad), WaitOn(1, 2)),
		MustBuild(GFX942, Op(LDS), Op(SMEM), WaitOn(0, 1), WaitOn(1)),
		MustBuild(GFX942, Op(LDS), Op(SMEM), WaitOn(0, 1), Op(VMEMLoad)),
	} {
		if got := v.Without(i); !reflect.DeepEqual(got, want) {
			t.Errorf("without %d: %v, want %v", i, got, want)
		}
	}
	if got := MustBuild(GFX942, Op(LDS), WaitOn(0)).Without(0); got.N != 0 {
		t.Errorf("removing the only token leaves %v", got)
	}
}

func TestBuildRefuses(t *testing.T) {
	for _, items := range [][]Item{
		{WaitOn(0)},
		{Op(LDS), {Wait: true}},
		{Op(LDS), WaitOn(1)},
		{{Kind: numKinds}},
		{{Kind: LDS, Tokens: 1}},
	} {
		if v, err := Build(GFX942, items...); err == nil {
			t.Errorf("%+v builds %v", items, v)
		}
	}
}
