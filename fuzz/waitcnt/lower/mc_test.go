package lower_test

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/amdgpu"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// discoverMC returns the amdgpu-mc oracle and its llvm-mc, or skips naming
// what is missing.
func discoverMC(t *testing.T) (*amdgpu.Oracle, tool.Tool) {
	t.Helper()
	o, st := amdgpu.Discover(context.Background(), toolchaintest.Release(t, 19))
	if o == nil {
		t.Skipf("llvm-mc for %s not available (%s); install with %s", amdgpu.CPU, st.Reason, st.Install)
	}
	return o, tool.Tool{Name: st.Name, Path: st.Path, Version: st.Version}
}

// emitted collects every distinct s_waitcnt the lowering emits on the seeds
// and on n random programs.
func emitted(n int) []wc.Waitcnt {
	set := map[wc.Waitcnt]bool{}
	for _, v := range wc.Seeds() {
		for _, w := range lower.Lower(v.(wc.Value)) {
			set[w] = true
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range n {
		dv, _ := wc.Decode(domaintest.Input(rng, 48))
		for _, w := range lower.Lower(dv.(wc.Value)) {
			set[w] = true
		}
	}
	out := make([]wc.Waitcnt, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].String() < out[b].String() })
	return out
}

// every lists all 64*8*16 in-range s_waitcnts.
func every() []wc.Waitcnt {
	var out []wc.Waitcnt
	for vm := range 64 {
		for exp := range 8 {
			for lgkm := range 16 {
				out = append(out, wc.Waitcnt{vm, exp, lgkm})
			}
		}
	}
	return out
}

// TestAssemblerAgreement assembles, with llvm-mc for gfx942, every spelling
// of every s_waitcnt the lowering emits (and, without -short, of every
// in-range s_waitcnt), and requires the encoding of legalfuzz's encoder and
// llvm-mc's canonical text for each; out-of-range thresholds must be refused
// by both. Then every encoding is disassembled and must read back as the
// same text.
func TestAssemblerAgreement(t *testing.T) {
	o, _ := discoverMC(t)
	ws := emitted(3000)
	if !testing.Short() {
		ws = every()
	}
	var lines []string
	var want []wc.Waitcnt
	for _, w := range ws {
		if !w.InRange() {
			continue
		}
		for _, s := range w.Spellings() {
			lines, want = append(lines, s), append(want, w)
		}
	}
	start := time.Now()
	rs, err := o.Assemble(context.Background(), lines)
	if err != nil {
		t.Fatal(err)
	}
	var enc []byte
	var texts []string
	bad := 0
	for i, r := range rs {
		simm, _ := want[i].Encode()
		word := binary.LittleEndian.AppendUint32(nil, wc.Instruction(simm))
		if r.Kind != oracles.Accept || string(r.Encoding) != string(word) || r.Text != want[i].String() {
			if bad++; bad <= 10 {
				t.Errorf("%q: llvm-mc %v %q %x (%s), want %q %x", r.Line, r.Kind, r.Text, r.Encoding, r.Diagnostic, want[i].String(), word)
			}
			continue
		}
		if len(texts) == 0 || texts[len(texts)-1] != r.Text {
			enc, texts = append(enc, word...), append(texts, r.Text)
		}
	}
	t.Logf("%d s_waitcnts, %d spellings assembled in %v", len(ws), len(lines), time.Since(start))
	dis, err := o.Disassemble(context.Background(), enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(dis, "\n"); strings.Join(got, "\n") != strings.Join(texts, "\n") {
		for i := range min(len(got), len(texts)) {
			if got[i] != texts[i] {
				t.Fatalf("disassembly %d: %q, want %q (%d vs %d lines)", i, got[i], texts[i], len(got), len(texts))
			}
		}
		t.Fatalf("disassembly has %d lines, want %d", len(got), len(texts))
	}
}

// TestAssemblerRefusesOutOfRange checks that the thresholds the encoder
// refuses are the ones llvm-mc refuses, with its message, at each field's
// boundary and for the lowering's unclamped waits.
func TestAssemblerRefusesOutOfRange(t *testing.T) {
	o, _ := discoverMC(t)
	var ws []wc.Waitcnt
	for c := range wc.Counter(wc.NumCounters) {
		in, out := wc.NoWait, wc.NoWait
		in[c], out[c] = c.Max(), c.Max()+1
		ws = append(ws, in, out)
	}
	for _, sv := range wc.Seeds() {
		for _, w := range lower.Lower(sv.(wc.Value)) {
			if !w.InRange() {
				ws = append(ws, w)
			}
		}
	}
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = w.String()
	}
	rs, err := o.Assemble(context.Background(), lines)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		_, encErr := ws[i].Encode()
		refused := r.Kind == oracles.Reject && strings.Contains(r.Diagnostic, "too large value for")
		if refused != (encErr != nil) {
			t.Errorf("%q: llvm-mc %v %q, encoder error %v", lines[i], r.Kind, r.Diagnostic, encErr)
		}
	}
}

// TestProgramsAssemble renders the seeds' programs with their lowered
// s_waitcnts and assembles each whole program for its own GPU: it must
// assemble exactly when spec/ptxisa's export and field-width rules pass.
func TestProgramsAssemble(t *testing.T) {
	_, mc := discoverMC(t)
	for _, sv := range wc.Seeds() {
		v := sv.(wc.Value)
		waits := lower.Lower(v)
		lines, err := lower.Asm(v, waits)
		if err != nil {
			t.Fatal(err)
		}
		res, err := mc.Run(context.Background(), 30*time.Second, []byte(strings.Join(lines, "\n")+"\n"),
			"-arch=amdgcn", "-mcpu="+v.GPU.String(), "-show-encoding")
		if err != nil {
			t.Fatal(err)
		}
		ok := !slices.Contains(v.Ops(), wc.Export) || v.GPU.HasExport()
		for _, w := range waits {
			ok = ok && w.InRange()
		}
		if (res.ExitCode == 0) != ok {
			t.Errorf("%v: llvm-mc -mcpu=%s exit %d, want assembles=%v:\n%s", v, v.GPU, res.ExitCode, ok, res.Stderr)
		}
	}
}

// TestAssemblerQuirks pins what llvm-mc 19 does beyond its documentation, so
// a change of version shows: an integer operand above 0xffff is truncated
// (documented range 0..0xffff), a counter named twice keeps the last value,
// and unused SIMM16 bits are dropped by the disassembler.
func TestAssemblerQuirks(t *testing.T) {
	o, _ := discoverMC(t)
	for _, tc := range []struct{ line, value, text string }{
		{"s_waitcnt 0x10000", "0xbf8c0000", "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"},
		{"s_waitcnt 0x10001", "0xbf8c0001", "s_waitcnt vmcnt(1) expcnt(0) lgkmcnt(0)"},
		{"s_waitcnt vmcnt(0) vmcnt(1)", "0xbf8c0f71", "s_waitcnt vmcnt(1)"},
		{"s_waitcnt 0xffff", "0xbf8cffff", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"},
	} {
		rs, err := o.Assemble(context.Background(), []string{tc.line})
		if err != nil {
			t.Fatal(err)
		}
		if rs[0].Value != tc.value || rs[0].Text != tc.text {
			t.Errorf("%q: %v %q %q, want %q %q", tc.line, rs[0].Kind, rs[0].Value, rs[0].Text, tc.value, tc.text)
		}
	}
	if _, err := wc.Parse("s_waitcnt 0x10000"); err == nil {
		t.Error("Parse accepts 0x10000, which llvm-mc silently truncates")
	}
	dis, err := o.Disassemble(context.Background(), []byte{0x80, 0x30, 0x8c, 0xbf})
	if err != nil || dis != "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)" || wc.DecodeSIMM16(0x3080) != (wc.Waitcnt{}) {
		t.Errorf("unused bits: %q %v", dis, err)
	}
}
