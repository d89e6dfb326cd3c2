package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// Signature is a finding's dedup key: one root cause, one bucket, however
// many cases and oracle pairs show it. It names the tool that deviates (not
// the pair that noticed), what that tool said and at which stage, the rule
// spec/ptxisa decided the case with, and the title of the tool's
// diagnostic. So "spec/ptxisa accepts, mlir rejects" and "mlir rejects,
// ptxas accepts" on the same case are one bucket: mlir's.
type Signature struct {
	Domain string `json:"domain"`
	// Tool is the oracle that deviates: in a pair with spec/ptxisa the
	// other side; in a pair of tools the side whose verdict differs from
	// spec/ptxisa's on the case; "A~B" when neither or both do.
	Tool string `json:"tool"`
	// Kind is Tool's verdict.
	Kind oracles.Kind `json:"kind"`
	// Stage is where Tool decided, when it says (mlir's verify, pass:NAME,
	// translate, llc or ptxas, with a fault of MLIR's own after a slash:
	// "ptxas/refused", see oracles.Stage; llc's and llvm-mc's
	// classification); empty for an accept, which passed every stage.
	Stage string `json:"stage,omitempty"`
	// Rule is spec/ptxisa's rule on the case (its rule set when it accepts).
	Rule string `json:"rule,omitempty"`
	// Diag is diag.Title of Tool's diagnostic ("A: ... | B: ..." for a pair).
	Diag string `json:"diag,omitempty"`
	// On is the aspect the pair disagreed on: a value differing is not a
	// verdict differing.
	On Aspect `json:"on"`

	// Pair and the fields below say how the bucket was first seen: the
	// pair that disagreed and what each side said. They are not part of
	// the key.
	Pair Pair `json:"pair"`
	// SpecKind is spec/ptxisa's verdict on the case (Rule says which rule
	// or rule set gave it): it tells a verifier that let an illegal case
	// through to a lowering that could not emit it (too permissive) from a
	// lowering that broke a legal one (a miscompile).
	SpecKind oracles.Kind `json:"spec_kind,omitempty"`
	KindA    oracles.Kind `json:"kind_a"`
	KindB    oracles.Kind `json:"kind_b"`
	RuleA    string       `json:"rule_a,omitempty"`
	RuleB    string       `json:"rule_b,omitempty"`
	DiagA    string       `json:"diag_a,omitempty"`
	DiagB    string       `json:"diag_b,omitempty"`
}

// signatureDiag reduces a diagnostic to what identifies the bug: spec
// verdicts are identified by their rule alone, a tool's by the title of
// its diagnostic.
func signatureDiag(v oracles.Verdict) string {
	if strings.HasPrefix(v.Oracle, "spec/") {
		return ""
	}
	return diag.Title(v.Diagnostic)
}

// SignatureOf computes a disagreement's signature.
func SignatureOf(d Disagreement) Signature {
	d = d.withSpec()
	s := Signature{
		Domain: d.Domain, On: d.Pair.On, Rule: d.SpecRule,
		Pair: d.Pair, SpecKind: d.SpecKind, KindA: d.A.Kind, KindB: d.B.Kind,
		RuleA: d.A.Rule, RuleB: d.B.Rule, DiagA: signatureDiag(d.A), DiagB: signatureDiag(d.B),
	}
	dev, ok := d.Deviating()
	if !ok {
		s.Tool = d.A.Oracle + "~" + d.B.Oracle
		s.Kind = d.B.Kind
		s.Diag = strings.TrimSpace(d.A.Oracle + ": " + s.DiagA + " | " + d.B.Oracle + ": " + s.DiagB)
		return s
	}
	s.Tool, s.Kind, s.Diag = dev.Oracle, dev.Kind, signatureDiag(dev)
	if dev.Kind != oracles.Accept {
		s.Stage = dev.Rule
	}
	return s
}

// withSpec fills SpecKind and SpecRule from the pair's spec/ptxisa side
// when the disagreement was built without them.
func (d Disagreement) withSpec() Disagreement {
	for _, v := range []oracles.Verdict{d.A, d.B} {
		if v.Oracle == oracles.SpecPTXISA && d.SpecKind == "" {
			d.SpecKind, d.SpecRule = v.Kind, v.Rule
		}
	}
	return d
}

// Deviating returns the side of the disagreement that deviates from
// spec/ptxisa: the tool when spec/ptxisa is one side; else the one side
// whose verdict kind differs from spec/ptxisa's on the case. ok is false
// when that cannot be told (neither or both differ, or the case has no
// spec/ptxisa verdict).
func (d Disagreement) Deviating() (oracles.Verdict, bool) {
	switch {
	case d.A.Oracle == oracles.SpecPTXISA:
		return d.B, true
	case d.B.Oracle == oracles.SpecPTXISA:
		return d.A, true
	case d.SpecKind == "" || d.SpecKind == oracles.Unsupported:
		return oracles.Verdict{}, false
	}
	offA, offB := d.A.Kind != d.SpecKind, d.B.Kind != d.SpecKind
	switch {
	case offA && !offB:
		return d.A, true
	case offB && !offA:
		return d.B, true
	}
	return oracles.Verdict{}, false
}

// Key is the signature's stable 16-hex-digit hash over the fields that say
// what went wrong (Domain through On), not over the pair that noticed.
func (s Signature) Key() string { return s.keyWith(s.Diag) }

// AltKeys are the keys of the signature under the alternative titles of
// its diagnostic (diag.AltTitles): a bucket found under one of them is
// this signature's bucket, though a tool version reworded its message.
func (s Signature) AltKeys() []string {
	var keys []string
	for _, t := range diag.AltTitles(s.Diag) {
		keys = append(keys, s.keyWith(t))
	}
	return keys
}

func (s Signature) keyWith(title string) string {
	kind, stage, on := string(s.Kind), s.Stage, ""
	switch {
	case s.verifierGap():
		kind, stage, title = "gap", "", ""
	case s.Kind == oracles.Accept:
		// What an accept says is a note, not the bug; whether it accepted
		// with another value or at all is.
		title, on = "", string(s.On)
	}
	// A tool that refuses or fails in the same words at the same stage is
	// one root cause whichever pair noticed (spec/ptxisa's verdict, the
	// other MLIR entry point's answer): one bucket, not one per aspect.
	h := sha256.Sum256([]byte(strings.Join([]string{s.Domain, keyTool(s.Tool), kind, stage, keyRule(s), title, on}, "\x00")))
	return hex.EncodeToString(h[:8])
}

// verifierGap reports whether the bucket is a tool letting through a case
// spec/ptxisa rejects: it accepts it, or a later stage of its own chain
// refused what it made of it or could not lower it. Its root cause is the
// check the tool lacks for the rule the case breaks. Whether a later stage
// noticed, which one and in what words depends on the release and on this
// machine (MLIR 19 writes inline PTX that ptxas refuses, MLIR 22
// intrinsics that llc cannot select, one title per TMA mode, and its
// lowering stops at llc for PTX ISA versions this ptxas cannot read), so
// the key leaves them out: one bucket per missing check, and
// found-in/fixed-in compares releases on the check.
func (s Signature) verifierGap() bool {
	if !specRejects(s) {
		return false
	}
	f := oracles.ParseStage(s.Stage).Fault
	return s.Kind == oracles.Accept || (s.Kind == oracles.Error && (f == oracles.Refused || f == oracles.Unconverted || f == oracles.PassRefused))
}

// KeysRule reports whether the key names spec/ptxisa's rule: a bucket per
// rule the tool mis-judges (a verifier gap, a wrong verdict), not a tool's
// own failure whatever rule its case breaks.
func (s Signature) KeysRule() bool { return s.Rule != "" && keyRule(s) == s.Rule }

// keyRule is spec/ptxisa's side as the key names it. A tool's failure
// (Error, Timeout) is its own whatever rule spec/ptxisa decided the case
// with: a crash, an error at exit status 0 or dropped work is one bucket
// for every rule its cases happen to break. A verifier gap is one bucket
// per rule; output a later tool refused (or an op left unconverted) of a
// case spec/ptxisa accepts is a miscompile, whatever the rule set.
func keyRule(s Signature) string {
	switch {
	case s.Kind != oracles.Error && s.Kind != oracles.Timeout, s.verifierGap():
		return s.Rule
	}
	switch oracles.ParseStage(s.Stage).Fault {
	case oracles.Refused, oracles.Unconverted:
		return "spec:" + string(oracles.Accept)
	}
	return ""
}

// keyTool is the deviating tool as the key names it: its family, so that
// one bug seen by two installations of a tool (mlir@19 and mlir@trunk,
// llc@22 and llc@23) is one bucket, whose found-in/fixed-in says which versions have
// it.
func keyTool(tool string) string {
	if in, ok := oracles.Lookup(tool); ok && in.Family != "" && !strings.HasPrefix(tool, oracles.ExecPrefix) {
		return in.Family
	}
	return tool
}

// Title is a one-line human name for the bucket: the tool, what it did and
// where, its diagnostic, and what spec/ptxisa said.
func (s Signature) Title() string {
	t := s.Domain + ": " + s.Tool + " " + string(s.Kind)
	if s.On == OnValue && s.Kind == oracles.Accept && !specRejects(s) {
		t += " with another value"
	}
	if s.Stage != "" {
		t += " at " + s.Stage
	}
	if d := strings.TrimPrefix(s.Diag, s.Stage+": "); d != "" && s.Kind != oracles.Accept {
		t += ": " + d // the mlir oracle's diagnostics start with their stage
	}
	if s.Rule != "" {
		t += " [" + oracles.SpecPTXISA + ": " + s.Rule + "]"
	}
	return t
}
