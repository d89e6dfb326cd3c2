package waitcntasm

import (
	"strings"
	"testing"
)

// TestLayoutsUseDocumentedBits checks each s_waitcnt layout's used bits
// against the syntax pages' tables: gfx9 leaves 7, 12 and 13 unused, gfx10
// bit 7, gfx11 and gfx12 bit 3.
func TestLayoutsUseDocumentedBits(t *testing.T) {
	for g, want := range map[Gen]uint16{GFX9: 0xcf7f, GFX10: 0xff7f, GFX11: 0xfff7, GFX12: 0xfff7} {
		l, ok := LayoutOf(Waitcnt, g)
		if !ok || l.Used() != want {
			t.Errorf("%s: used bits 0x%04x (%v), want 0x%04x", g, l.Used(), ok, want)
		}
	}
	if _, ok := LayoutOf(Waitcnt, GFX1250); ok {
		t.Error("gfx1250 has no s_waitcnt")
	}
}

// TestFieldPutGet checks that every in-range threshold of every field of
// every layout reads back, and that the writer's text reads back to the
// encoder's word in every syntax but expr (ReadText is the reader the
// oracle judges llvm-mc's text with).
func TestFieldPutGet(t *testing.T) {
	for g := GFX9; g <= GFX1250; g++ {
		for _, op := range OpsOn(g) {
			l, _ := LayoutOf(op, g)
			for _, f := range l.Fields {
				for n := range f.Max() + 1 {
					if got := f.Get(uint16(f.Put(n))); got != n {
						t.Fatalf("%s %s %s: put %d, got %d", g, op, f.Name, n, got)
					}
				}
			}
		}
	}
	for _, dv := range Seeds() {
		v := dv.(Value)
		if v.Syntax == Expr {
			continue // llvm-mc never prints an expression; ReadText does not read one
		}
		w, reason, _ := v.Expect()
		got, err := ReadText(v.CPU.Gen(), v.Text())
		switch {
		case reason == "" && (err != nil || got != w):
			t.Errorf("%v: reads back as 0x%08x (%v), encoder says 0x%08x", v, got, err, w)
		case reason == FieldWidth && v.Syntax.Helpers() && err == nil:
			t.Errorf("%v: the reader takes a too-wide named threshold", v)
		}
	}
}

// TestParseJSONStrict checks the errors of the strict JSON form.
func TestParseJSONStrict(t *testing.T) {
	for name, tc := range map[string]struct{ json, want string }{
		"unknown target":      {`{"target":"gfx803"}`, `field "target"`},
		"unknown counter":     {`{"counts":{"vscnt":1}}`, `has no counter "vscnt"`},
		"count too big":       {`{"counts":{"vmcnt":65536}}`, `field "counts.vmcnt"`},
		"helpers without any": {`{"op":"s_wait_loadcnt","syntax":"amp"}`, "has no counter helpers"},
		"expr of one counter": {`{"op":"s_wait_kmcnt","syntax":"expr"}`, "has one counter"},
		"unknown field":       {`{"text":"s_waitcnt 0"}`, "unknown field"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestExpect checks the encoder's verdicts at the boundaries the rules
// name: the field maximum and one above it, named, saturated and as an
// integer; an instruction on a processor without it.
func TestExpect(t *testing.T) {
	for name, tc := range map[string]struct {
		v      Value
		word   uint32
		reason string
	}{
		"vmcnt 63":            {inst("gfx900", Waitcnt, Named, 0, 63), 0xbf8ccf7f, ""},
		"vmcnt 64":            {inst("gfx900", Waitcnt, Named, 0, 64), 0, FieldWidth},
		"vmcnt_sat 64":        {inst("gfx900", Waitcnt, Sat, 0, 64), 0xbf8ccf7f, ""},
		"vmcnt 64 integer":    {inst("gfx900", Waitcnt, Dec, 0, 64), 0, OperandRange},
		"lgkmcnt 16 integer":  {inst("gfx900", Waitcnt, Hex, 2, 16), 0xbf8cd07f, ""}, // bit 12: unused, the operand is 16 bits
		"lgkmcnt 16 gfx10":    {inst("gfx1010", Waitcnt, Named, 2, 16), 0xbf8cd07f, ""},
		"loadcnt 64":          {inst("gfx1200", WaitLoadcnt, Dec, 0, 64), 0, FieldWidth},
		"expcnt gfx1250":      {inst("gfx1250", WaitExpcnt, Dec, 0, 1), 0, NotOnTarget},
		"vscnt gfx12":         {inst("gfx1200", WaitcntVScnt, Dec, 0, 1), 0, NotOnTarget},
		"gfx11 named":         {inst("gfx1100", Waitcnt, Comma, 0, 1, 1, 2, 2, 3), 0xbf890432, ""},
		"loadcnt_dscnt split": {inst("gfx1200", WaitLoadcntDscnt, Expr, 0, 1, 1, 2), 0xbfc80102, ""},
	} {
		t.Run(name, func(t *testing.T) {
			w, reason, _ := tc.v.Expect()
			if w != tc.word || reason != tc.reason {
				t.Fatalf("%v: 0x%08x %q, want 0x%08x %q", tc.v, w, reason, tc.word, tc.reason)
			}
		})
	}
}
