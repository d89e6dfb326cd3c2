package amdgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// The rules of a waitcntasm verdict: which step decided it.
const (
	ruleAssembled = ".assembled"  // accepted, and the round trip kept the word
	ruleRejected  = ".rejected"   // llvm-mc refused the text
	ruleRoundTrip = ".round-trip" // accepted, but a later step did not say the same word
	ruleDisasm    = ".disassemble"
)

// judgeAsm judges the waitcntasm cases idx: per processor, llvm-mc
// assembles every text in one batch, disassembles every encoding in one
// batch and assembles every disassembly again in one batch. Each step is
// read with the domain's own encoder (waitcntasm.ReadText), so a verdict's value is
// the word llvm-mc encoded, as spec/ptxisa's value is the word the text
// must encode to, and a round trip that does not come back to that word
// says so in another value, with the step in the diagnostic.
func (o *Oracle) judgeAsm(ctx context.Context, cases []domain.Case, idx []int, out []oracles.Verdict) error {
	byCPU := map[waitcntasm.CPU][]int{}
	for _, i := range idx {
		v := cases[i].Value.(waitcntasm.Value)
		if !o.knows(v.CPU.String()) {
			out[i].Unsupported(reasons.New("cpu", "unknown-to-llvm-mc", "llvm-mc %s does not list %s", o.Version(), v.CPU))
			continue
		}
		byCPU[v.CPU] = append(byCPU[v.CPU], i)
	}
	for cpu, group := range byCPU {
		if err := o.forCPU(cpu.String()).tripGroup(ctx, cpu.Gen(), cases, group, out); err != nil {
			return err
		}
	}
	return nil
}

// trip is one case's way through llvm-mc.
type trip struct {
	first  Result      // assembling the case's text
	dis    Disassembly // disassembling first's encoding
	second Result      // assembling dis's text
}

// tripGroup round-trips the cases of one processor.
func (o *Oracle) tripGroup(ctx context.Context, gen waitcntasm.Gen, cases []domain.Case, group []int, out []oracles.Verdict) error {
	texts := make([]string, len(group))
	for k, i := range group {
		texts[k] = cases[i].Value.(waitcntasm.Value).Text()
	}
	firsts, err := o.Assemble(ctx, texts)
	if err != nil {
		return err
	}
	var encs [][]byte
	var accepted []int
	for k, r := range firsts {
		if r.Kind == oracles.Accept && len(r.Encoding) > 0 {
			encs, accepted = append(encs, r.Encoding), append(accepted, k)
		}
	}
	trips := make([]trip, len(group))
	for k := range group {
		trips[k].first = firsts[k]
	}
	if len(encs) > 0 {
		if err := o.disassembleAndBack(ctx, encs, accepted, trips); err != nil {
			return err
		}
	}
	for k, i := range group {
		o.tripVerdict(cases[i].Value.(waitcntasm.Value), trips[k], &out[i])
	}
	return nil
}

// disassembleAndBack fills the trips' disassembly and second assembly.
func (o *Oracle) disassembleAndBack(ctx context.Context, encs [][]byte, at []int, trips []trip) error {
	dis, err := o.DisassembleAll(ctx, encs)
	if err != nil {
		return err
	}
	var again []string
	var back []int
	for j, d := range dis {
		trips[at[j]].dis = d
		if d.Kind == oracles.Accept {
			again, back = append(again, d.Text), append(back, at[j])
		}
	}
	if len(again) == 0 {
		return nil
	}
	seconds, err := o.Assemble(ctx, again)
	if err != nil {
		return err
	}
	for j, r := range seconds {
		trips[back[j]].second = r
	}
	return nil
}

// word is an encoding's first 32-bit word, or false for another length.
func word(enc []byte) (uint32, bool) {
	if len(enc) != 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(enc), true
}

// tripVerdict judges one trip step by step. The first step decides accept
// or reject and the value; a later step that does not come back to the
// word makes the value say so, and the diagnostic which step failed. The
// steps are judged in order and the first that fails decides: a word that
// is not what the text says (the domain's encoder, val.Expect, refuses the
// text or encodes another word) already differs from spec/ptxisa's verdict
// or value, and what the round trip then does to that wrong word is not
// reported as a second fault, which would split one root cause in two
// buckets.
func (o *Oracle) tripVerdict(val waitcntasm.Value, t trip, v *oracles.Verdict) {
	gen := val.CPU.Gen()
	f := t.first
	if f.Kind != oracles.Accept {
		v.Kind, v.Rule, v.Diagnostic = f.Kind, o.name+ruleRejected, f.Diagnostic
		if f.Kind != oracles.Reject {
			v.Rule = o.name + "." + string(f.Kind)
		}
		return
	}
	v.Kind, v.Rule = oracles.Accept, o.name+ruleAssembled
	w, ok := word(f.Encoding)
	if !ok {
		v.Value, v.Rule, v.Diagnostic = f.Value, o.name+ruleRoundTrip, fmt.Sprintf("assembled to %d bytes, not one 32-bit word", len(f.Encoding))
		return
	}
	v.Value = fmt.Sprintf("0x%08x", w)
	if want, reason, _ := val.Expect(); reason != "" || want != w {
		return
	}
	problem, detail := checkTrip(gen, w, t)
	if strings.HasSuffix(problem, unusedBits) {
		// The hardware reads no bit a counter does not use: the trip kept
		// every threshold, so it lost nothing the instruction says. Noted,
		// not a finding (llvm-mc prints only the counters, by design).
		v.Diagnostic = problem + "; " + detail
		return
	}
	if problem != "" {
		v.Rule, v.Diagnostic = o.name+ruleRoundTrip, problem
		v.Value += "; " + detail
		if t.dis.Kind != oracles.Accept && t.dis.Kind != "" {
			v.Rule = o.name + ruleDisasm
		}
	}
}

// checkTrip compares each later step with w, the first encoding, through
// the domain's encoder; it returns the first step that says another word
// (a title-like problem, the same for every case it happens to) and the
// details.
func checkTrip(gen waitcntasm.Gen, w uint32, t trip) (problem, detail string) {
	if got, err := waitcntasm.ReadText(gen, t.first.Text); err != nil || got != w {
		return differs(gen, w, got, err, "the assembler's own listing"), fmt.Sprintf("listed %q: %s", t.first.Text, wordOrErr(got, err))
	}
	if t.dis.Kind != oracles.Accept {
		return "the disassembler cannot read the assembler's encoding: " + t.dis.Diagnostic, ""
	}
	if got, err := waitcntasm.ReadText(gen, t.dis.Text); err != nil || got != w {
		return differs(gen, w, got, err, "the disassembly"), fmt.Sprintf("disassembled %q: %s", t.dis.Text, wordOrErr(got, err))
	}
	s := t.second
	if s.Kind != oracles.Accept {
		return "the assembler rejects its own disassembly: " + s.Diagnostic, fmt.Sprintf("disassembled %q", t.dis.Text)
	}
	if got, ok := word(s.Encoding); !ok || got != w {
		return differs(gen, w, got, nil, "re-assembling the disassembly"), fmt.Sprintf("disassembled %q, re-assembled %s", t.dis.Text, s.Value)
	}
	return "", ""
}

// differs says how a step's word differs from w: only in bits no counter
// uses, or in a counter's threshold.
func differs(gen waitcntasm.Gen, w, got uint32, err error, step string) string {
	if err != nil {
		return step + " is not an instruction the encoder reads"
	}
	if l, ok := layoutOfWord(gen, w); ok && (w^got)&0xffff0000 == 0 && uint16(w^got)&l.Used() == 0 {
		return step + unusedBits
	}
	return step + " changes a counter's threshold"
}

// unusedBits ends the problem of a step that kept every counter and
// dropped only bits no counter uses.
const unusedBits = " changes only operand bits no counter uses"

// layoutOfWord finds the layout whose instruction word w is.
func layoutOfWord(gen waitcntasm.Gen, w uint32) (waitcntasm.Layout, bool) {
	for _, op := range waitcntasm.OpsOn(gen) {
		if l, _ := waitcntasm.LayoutOf(op, gen); l.Base == w&0xffff0000 {
			return l, true
		}
	}
	return waitcntasm.Layout{}, false
}

func wordOrErr(w uint32, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("0x%08x", w)
}
