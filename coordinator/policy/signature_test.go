package policy

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

func disagreement(domainName string, pair Pair, a, b, spec oracles.Verdict) Disagreement {
	return Disagreement{Case: "c", Domain: domainName, Pair: pair, A: a, B: b, SpecKind: spec.Kind, SpecRule: spec.Rule}
}

func TestSignatureStable(t *testing.T) {
	spec := verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.ldsm", "")
	mk := func(text string) Signature {
		b := oracles.Verdict{Oracle: oracles.PTXAS, Kind: oracles.Reject, Diagnostic: text}
		return SignatureOf(disagreement("ldsm", Pair{oracles.SpecPTXISA, oracles.PTXAS, OnVerdict}, spec, b, spec))
	}
	a := mk("ptxas /tmp/a/x.ptx, line 12; error   : Arguments mismatch for instruction 'ldmatrix' at %r7")
	b := mk("ptxas /tmp/b/y.ptx, line 940; error   : Arguments mismatch for instruction 'ldmatrix' at %r19")
	c := mk("ptxas /tmp/b/y.ptx, line 9; error   : Unknown modifier '.m8n32'")
	if a.Key() != b.Key() {
		t.Errorf("same bug, different keys:\n%+v\n%+v", a, b)
	}
	if a.Key() == c.Key() {
		t.Errorf("different bugs, same key: %+v", c)
	}
	// ptxas 12.4's words for one check on two targets (see oracles/diag/testdata).
	d := mk("ptxas /tmp/a/x.ptx, line 2; error   : PTX .version 7.0 does not support .target sm_90a")
	e := mk("ptxas /tmp/b/y.ptx, line 2; error   : PTX .version 6.0 does not support .target sm_86")
	if d.Key() != e.Key() {
		t.Errorf("one check on two targets, different keys:\n%+v\n%+v", d, e)
	}
}

// TestSignatureKeysOnTheDeviatingTool: the pairs that notice one tool's
// deviation on a case make one bucket, and the side that deviates in a
// pair of tools is the one that differs from spec/ptxisa.
func TestSignatureKeysOnTheDeviatingTool(t *testing.T) {
	specOK := verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.mma", "")
	specNo := verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.mma.target-ptx-version", "")
	mlirNo := oracles.Verdict{Oracle: oracles.MLIR, Kind: oracles.Reject, Rule: "lowering", Diagnostic: "'nvgpu.mma.sync' op failed to deduce operand PTX types"}
	ptxasOK := verdict(oracles.PTXAS, oracles.Accept, "", "")
	llc19OK := verdict("llc@19", oracles.Accept, "llc.accepted", "")
	llc22No := oracles.Verdict{Oracle: "llc@22", Kind: oracles.Reject, Rule: "llc.fatal-error", Diagnostic: "LLVM ERROR: PTX version 6.0 does not support target 'sm_86'."}

	viaSpec := SignatureOf(disagreement("mma", Pair{oracles.SpecPTXISA, oracles.MLIR, OnVerdict}, specOK, mlirNo, specOK))
	viaPtxas := SignatureOf(disagreement("mma", Pair{oracles.MLIR, oracles.PTXAS, OnVerdict}, mlirNo, ptxasOK, specOK))
	if viaSpec.Key() != viaPtxas.Key() || viaPtxas.Tool != oracles.MLIR || viaPtxas.Stage != "lowering" {
		t.Errorf("one mlir deviation, two buckets or wrong tool:\n%+v\n%+v", viaSpec, viaPtxas)
	}
	versions := SignatureOf(disagreement("mma", Pair{"llc@19", "llc@22", OnVerdict}, llc19OK, llc22No, specNo))
	if versions.Tool != "llc@19" || versions.Kind != oracles.Accept || versions.Rule != specNo.Rule {
		t.Errorf("llc19 accepting what spec/ptxisa and llc22 reject: %+v", versions)
	}
	both := SignatureOf(disagreement("mma", Pair{"llc@19", "llc@22", OnVerdict}, llc19OK, llc22No, verdict(oracles.SpecPTXISA, oracles.Unsupported, "", "")))
	if both.Tool != "llc@19"+"~"+"llc@22" {
		t.Errorf("without a spec/ptxisa verdict the pair deviates, got %+v", both)
	}
	otherRule := SignatureOf(disagreement("mma", Pair{oracles.SpecPTXISA, oracles.MLIR, OnVerdict}, specNo, mlirNo, specNo))
	if otherRule.Key() == viaSpec.Key() {
		t.Errorf("different spec/ptxisa rules, one bucket: %+v", otherRule)
	}
}

func TestSignatureTitle(t *testing.T) {
	spec := verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.mma.selector", "")
	d := disagreement("mma", Pair{oracles.SpecPTXISA, oracles.PTXAS, OnVerdict}, spec, verdict(oracles.PTXAS, oracles.Accept, "", ""), spec)
	want := "mma: ptxas accept [spec/ptxisa: ptxisa.mma.selector]"
	if got := SignatureOf(d).Title(); got != want {
		t.Fatalf("title %q, want %q", got, want)
	}
}

// TestOneKeyWhicheverAspect: a refusal seen by two pairs that compare
// different aspects (spec/ptxisa's verdict, the other MLIR entry point's
// answer) is one bucket, as a 60 s campaign made two of one seed's
// refusal; an accept keeps the aspect, since accepting with another value
// is another bug than accepting.
func TestOneKeyWhicheverAspect(t *testing.T) {
	refusal := Signature{Domain: "mma", Tool: "mlir@trunk", Kind: oracles.Reject, Stage: "verify", Rule: "ptxisa.mma",
		Diag: "'nvgpu.mma.sync' op failed to verify that matrixA and matrixB have same element type", SpecKind: oracles.Accept}
	byAnswer := refusal
	refusal.On, byAnswer.On = OnVerdict, OnAnswer
	if refusal.Key() != byAnswer.Key() {
		t.Errorf("one refusal keys %s by verdict and %s by answer", refusal.Key(), byAnswer.Key())
	}
	accept := Signature{Domain: "mma", Tool: "llc@trunk", Kind: oracles.Accept, Rule: "ptxisa.mma", SpecKind: oracles.Accept, On: OnVerdict}
	withValue := accept
	withValue.On = OnValue
	if accept.Key() == withValue.Key() {
		t.Error("an accept with another value keys as a plain accept")
	}
}
