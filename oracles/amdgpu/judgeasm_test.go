package amdgpu

import (
	"context"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// discoverBoth returns the llvm-mc 19 and 22 oracles, skipping the test
// for each one that is missing.
func discoverBoth(t *testing.T) map[string]*Oracle {
	t.Helper()
	out := map[string]*Oracle{}
	for name, major := range map[string]int{"amdgpu-mc@19": 19, "amdgpu-mc@22": 22} {
		in, err := toolchain.Release(context.Background(), major)
		if err != nil {
			t.Logf("%s not available: %v", name, err)
			continue
		}
		if o, st := Discover(context.Background(), in); o != nil {
			out[name] = o
		} else {
			t.Logf("%s not available (%s); install with %s", name, st.Reason, st.Install)
		}
	}
	if len(out) == 0 {
		t.Skip("neither llvm-mc 19 nor 22 is installed (make oracles)")
	}
	return out
}

func asmCase(t *testing.T, js string) domain.Case {
	t.Helper()
	v, err := waitcntasm.ParseJSON([]byte(js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return domain.NewCase(waitcntasm.Name, v)
}

// asmGolden are known answers captured from llvm-mc 19.1.7 and 22.1.8
// (-arch=amdgcn -show-encoding, then -disassemble and -show-encoding
// again): one spelling per generation, and the out-of-range behaviour.
var asmGolden = []struct {
	name, json, text string
	// only names the one llvm-mc that knows the processor; empty: both.
	only string
	kind oracles.Kind
	// value is the verdict's value: the word, and a round trip's story.
	value string
	diag  string
}{
	{name: "gfx9", json: `{"target":"gfx942","counts":{"vmcnt":1,"expcnt":2,"lgkmcnt":3}}`,
		text: "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)", kind: oracles.Accept, value: "0xbf8c0321"},
	{name: "gfx9-expr", json: `{"target":"gfx942","syntax":"expr","counts":{"vmcnt":1,"expcnt":2,"lgkmcnt":3}}`,
		text: "s_waitcnt ((1 & 15) << 0) | ((1 >> 4) << 14) | (2 << 4) | (3 << 8)", kind: oracles.Accept, value: "0xbf8c0321"},
	{name: "gfx10-comma", json: `{"target":"gfx1030","syntax":"comma","counts":{"vmcnt":5,"lgkmcnt":40}}`,
		text: "s_waitcnt vmcnt(5), lgkmcnt(40)", kind: oracles.Accept, value: "0xbf8c2875"},
	{name: "gfx10-vscnt", json: `{"target":"gfx1030","op":"s_waitcnt_vscnt","counts":{"vscnt":3}}`,
		text: "s_waitcnt_vscnt null, 3", kind: oracles.Accept, value: "0xbbfd0003"},
	{name: "gfx11", json: `{"target":"gfx1100","syntax":"reversed","counts":{"vmcnt":1,"expcnt":2,"lgkmcnt":3}}`,
		text: "s_waitcnt lgkmcnt(3) expcnt(2) vmcnt(1)", kind: oracles.Accept, value: "0xbf890432"},
	{name: "gfx12-waitcnt", json: `{"target":"gfx1200","syntax":"sat","counts":{"vmcnt":3,"lgkmcnt":99}}`,
		text: "s_waitcnt vmcnt_sat(3) & lgkmcnt_sat(99)", kind: oracles.Accept, value: "0xbf890ff7"},
	{name: "gfx12-loadcnt-dscnt", json: `{"target":"gfx1200","op":"s_wait_loadcnt_dscnt","syntax":"hex","counts":{"loadcnt":1,"dscnt":2}}`,
		text: "s_wait_loadcnt_dscnt 0x102", kind: oracles.Accept, value: "0xbfc80102"},
	{name: "gfx1250", json: `{"target":"gfx1250","op":"s_wait_loadcnt","counts":{"loadcnt":5}}`, only: "amdgpu-mc@22",
		text: "s_wait_loadcnt 5", kind: oracles.Accept, value: "0xbfc00005"},
	{name: "gfx1250-no-s_waitcnt", json: `{"target":"gfx1250","counts":{"vmcnt":1}}`, only: "amdgpu-mc@22",
		text: "s_waitcnt vmcnt(1)", kind: oracles.Reject, diag: "instruction not supported on this GPU"},
	// The field checks of the counter helpers: refused with a word.
	{name: "gfx9-vmcnt-64", json: `{"target":"gfx900","counts":{"vmcnt":64}}`,
		text: "s_waitcnt vmcnt(64)", kind: oracles.Reject, diag: "too large value for vmcnt"},
	// The integer form of the same: 64 spills past bit 15 (0x10f70), and
	// both llvm-mc keep the low 16 bits, vmcnt(0), without a word, though
	// the syntax page says the value "must be in the range 0..0xFFFF".
	{name: "gfx9-vmcnt-64-integer", json: `{"target":"gfx900","syntax":"dec","counts":{"vmcnt":64}}`,
		text: "s_waitcnt 69488", kind: oracles.Accept, value: "0xbf8c0f70"},
	// s_wait_loadcnt's operand is a plain 16-bit immediate to llvm-mc: 64
	// does not fit loadcnt's 6 bits and is encoded as is.
	{name: "gfx12-loadcnt-64", json: `{"target":"gfx1201","op":"s_wait_loadcnt","syntax":"hex","counts":{"loadcnt":64}}`,
		text: "s_wait_loadcnt 0x40", kind: oracles.Accept, value: "0xbfc00040"},
	// Bits no counter uses: encoded, but listed and disassembled without
	// them, so the round trip comes back to another word with the same
	// thresholds: noted, not a finding (the value is the encoded word).
	{name: "gfx9-unused-bits", json: `{"target":"gfx900","syntax":"hex","counts":{"vmcnt":63,"expcnt":15,"lgkmcnt":255}}`,
		text: "s_waitcnt 0xffff", kind: oracles.Accept, value: "0xbf8cffff",
		diag: "the assembler's own listing changes only operand bits no counter uses"},
}

// TestWaitcntAsmKnownAnswers judges the golden cases with each llvm-mc:
// the text the domain writes, the verdict, the encoded word (the value)
// and, for a round trip that does not come back, the step that did not.
func TestWaitcntAsmKnownAnswers(t *testing.T) {
	orcs := discoverBoth(t)
	for name, o := range orcs {
		var cases []domain.Case
		for _, g := range asmGolden {
			c := asmCase(t, g.json)
			if got := c.Value.(waitcntasm.Value).Text(); got != g.text {
				t.Fatalf("%s: text %q, want %q", g.name, got, g.text)
			}
			cases = append(cases, c)
		}
		vs, err := o.Judge(context.Background(), cases)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range asmGolden {
			t.Run(name+"/"+g.name, func(t *testing.T) {
				v := vs[i]
				if g.only != "" && g.only != name {
					if v.Kind != oracles.Unsupported {
						t.Fatalf("%s on a processor it does not list: %+v, want unsupported", name, v)
					}
					return
				}
				if v.Kind != g.kind || v.Value != g.value || !strings.Contains(v.Diagnostic, g.diag) || v.Oracle != name {
					t.Fatalf("verdict %+v, want %s %q %q", v, g.kind, g.value, g.diag)
				}
			})
		}
	}
}

// TestWaitcntAsmAgreesWithEncoder checks the domain's encoder against
// both llvm-mc on every seed both accept with a clean round trip: the
// word llvm-mc encodes is the word spec/ptxisa computes. Where they
// disagree the campaign has a finding; on the seeds there is none.
func TestWaitcntAsmAgreesWithEncoder(t *testing.T) {
	var cases []domain.Case
	for _, v := range waitcntasm.Seeds() {
		cases = append(cases, domain.NewCase(waitcntasm.Name, v))
	}
	for name, o := range discoverBoth(t) {
		vs, err := o.Judge(context.Background(), cases)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			j, err := rules.JudgeValue(rules.PTXISA, waitcntasm.Name, cases[i].Value)
			if err != nil {
				t.Fatal(err)
			}
			if v.Kind == oracles.Accept && j.Accept && v.Rule == name+ruleAssembled && v.Value != j.Value {
				t.Errorf("%s %v: llvm-mc encodes %s, the encoder %s", name, cases[i].Value, v.Value, j.Value)
			}
			if v.Kind == oracles.Reject && j.Accept {
				t.Errorf("%s %v: llvm-mc refuses what the encoder accepts: %s", name, cases[i].Value, v.Diagnostic)
			}
		}
	}
}

// TestDisassembleAllBatchEqualsAlone disassembles encodings, one invalid
// among them, in one batch and one by one: the answers are the same, and
// the invalid one is llvm-mc's own warning.
func TestDisassembleAllBatchEqualsAlone(t *testing.T) {
	o := discover(t).forCPU("gfx900")
	encs := [][]byte{{0x21, 0x03, 0x8c, 0xbf}, {0xff, 0xff, 0xff, 0xff}, {0xff, 0xff, 0x8c, 0xbf}, {0x00, 0x00, 0x8c, 0xbf}}
	batch, err := o.DisassembleAll(context.Background(), encs)
	if err != nil {
		t.Fatal(err)
	}
	alone := *o
	alone.BatchSize = 1
	one, err := alone.DisassembleAll(context.Background(), encs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)", "", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)", "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"}
	for i := range encs {
		if batch[i] != one[i] || batch[i].Text != want[i] {
			t.Errorf("encoding %d: batch %+v, alone %+v, want %q", i, batch[i], one[i], want[i])
		}
	}
	if batch[1].Kind != oracles.Reject || batch[1].Diagnostic != "invalid instruction encoding" {
		t.Errorf("invalid encoding: %+v", batch[1])
	}
}

// TestTripVerdictSteps judges hand-made trips (no llvm-mc needed): each
// step that does not come back to the first word is named, a difference in
// unused bits is told from a changed threshold, and a word that is not
// what the text says is left to spec/ptxisa's pair, its round trip unjudged.
func TestTripVerdictSteps(t *testing.T) {
	o := NewNamed(Name, tool.Tool{Version: "19.1.7"}, nil)
	val := asmCase(t, `{"target":"gfx942","counts":{"vmcnt":1,"expcnt":2,"lgkmcnt":3}}`).Value.(waitcntasm.Value)
	text := "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)"
	enc := []byte{0x21, 0x03, 0x8c, 0xbf}
	first := Result{Kind: oracles.Accept, Text: text, Encoding: enc, Value: "0xbf8c0321"}
	good := Disassembly{Kind: oracles.Accept, Text: text}
	for name, tc := range map[string]struct {
		val        waitcntasm.Value
		t          trip
		rule, diag string
		value      string
	}{
		"clean": {val, trip{first, good, first}, ruleAssembled, "", "0xbf8c0321"},
		"disassembly changes a threshold": {val, trip{first, Disassembly{Kind: oracles.Accept, Text: "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(4)"}, first},
			ruleRoundTrip, "the disassembly changes a counter's threshold", "0xbf8c0321; disassembled"},
		"disassembler refuses": {val, trip{first, Disassembly{Kind: oracles.Reject, Diagnostic: "invalid instruction encoding"}, Result{}},
			ruleDisasm, "the disassembler cannot read the assembler's encoding: invalid instruction encoding", "0xbf8c0321; "},
		"re-assembly drops unused bits": {val, trip{first, good, Result{Kind: oracles.Accept, Encoding: []byte{0x21, 0x13, 0x8c, 0xbf}, Value: "0xbf8c1321"}},
			ruleAssembled, `re-assembling the disassembly changes only operand bits no counter uses; disassembled "s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3)", re-assembled 0xbf8c1321`, "0xbf8c0321"},
		"re-assembly changes a threshold": {val, trip{first, good, Result{Kind: oracles.Accept, Encoding: []byte{0x22, 0x03, 0x8c, 0xbf}, Value: "0xbf8c0322"}},
			ruleRoundTrip, "re-assembling the disassembly changes a counter's threshold", "0xbf8c0321; disassembled"},
		"word is not the text's": {asmCase(t, `{"target":"gfx900","syntax":"dec","counts":{"vmcnt":64}}`).Value.(waitcntasm.Value),
			trip{Result{Kind: oracles.Accept, Text: "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", Encoding: []byte{0, 0, 0x8c, 0xbf}}, Disassembly{}, Result{}},
			ruleAssembled, "", "0xbf8c0000"},
	} {
		t.Run(name, func(t *testing.T) {
			var v oracles.Verdict
			o.tripVerdict(tc.val, tc.t, &v)
			if v.Kind != oracles.Accept || v.Rule != Name+tc.rule || v.Diagnostic != tc.diag || !strings.HasPrefix(v.Value, tc.value) {
				t.Fatalf("verdict %+v, want %s %q %q...", v, tc.rule, tc.diag, tc.value)
			}
		})
	}
}
