package tally

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// vd builds a verdict.
func vd(oracle string, kind oracles.Kind, rule, diag string) oracles.Verdict {
	return oracles.Verdict{Oracle: oracle, Kind: kind, Rule: rule, Diagnostic: diag}
}

// claimCase is one hand-built case for the claims builder.
type claimCase struct {
	id, domain, value string
	verdicts          []oracles.Verdict
}

func buildClaims(t *testing.T, cases ...claimCase) map[string]Claim {
	t.Helper()
	b := &claimsBuilder{}
	for _, c := range cases {
		vs := make([]oracles.Verdict, len(c.verdicts))
		for i, v := range c.verdicts {
			v.Case, v.Domain = c.id, c.domain
			vs[i] = v
		}
		value := json.RawMessage(c.value)
		b.add(c.id, c.domain, vs, func() json.RawMessage { return value })
	}
	out := map[string]Claim{}
	for _, c := range b.claims() {
		out[c.Rule] = c
	}
	return out
}

func TestClaimsEveryRuleHasARow(t *testing.T) {
	got := buildClaims(t)
	n := 0
	for _, r := range rules.Rules() {
		if r.Set != rules.Seed {
			continue
		}
		n++
		c, ok := got[r.ID]
		if !ok {
			t.Errorf("no row for %s", r.ID)
			continue
		}
		if c.Verdict != Unverified || c.Doubtful != r.Doubtful || c.Message != r.Message {
			t.Errorf("%s with no evidence: %+v, want unverified with the rule's message and doubt", r.ID, c)
		}
	}
	if counts := CountClaims(mapValues(got)); counts.Rules != n || counts.Unverified != n {
		t.Errorf("counts %+v, want %d unverified rules", counts, n)
	}
	for _, d := range rules.Domains(rules.Seed) {
		if c, ok := got["seed."+d]; !ok || !c.AcceptPath {
			t.Errorf("no accept-path row for %s", d)
		}
	}
}

func mapValues(m map[string]Claim) []Claim {
	out := make([]Claim, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	return out
}

func TestClaimVerdicts(t *testing.T) {
	const size, transpose = "seed.ldsm.size", "seed.ldsm.transpose"
	got := buildClaims(t,
		// seed.ldsm.size: ptxas agrees twice, then accepts two cases: contradicted,
		// and the witness is the smaller of the two.
		claimCase{"c1", "ldsm", `{"n":1}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, size, "bad size"), vd("ptxas", oracles.Reject, "", "error")}},
		claimCase{"c2", "ldsm", `{"n":2}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, size, "bad size"), vd("ptxas", oracles.Reject, "", "error"), vd("llc@22", oracles.Reject, "", "error")}},
		claimCase{"c3", "ldsm", `{"n":33333}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, size, "bad size"), vd("ptxas", oracles.Accept, "", "")}},
		claimCase{"c4", "ldsm", `{"n":4}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, size, "bad size"), vd("ptxas", oracles.Accept, "", ""), vd("llc@22", oracles.Reject, "", "")}},
		// seed.ldsm.transpose: ptxas agrees; an unsupported and an error verdict do not count.
		claimCase{"t1", "ldsm", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, transpose, ""), vd("spec/ptxisa", oracles.Reject, "ptxisa.ldsm.x", ""),
			vd("ptxas", oracles.Reject, "", ""), vd("llc@19", oracles.Unsupported, "", "too new"), vd("llc@22", oracles.Error, "", "crash")}},
		// accept path: a tool's reject contradicts the ladder as a whole.
		claimCase{"a1", "ldsm", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Accept, "seed.ldsm", ""), vd("ptxas", oracles.Reject, "", "illegal")}},
		// seed.ldsm.alignment: only unsupported verdicts: unverified, with reasons.
		claimCase{"u1", "ldsm", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, "seed.ldsm.alignment", ""), vd("ptxas", oracles.Unsupported, "", "ptxas 12.4 does not know target sm_100a")}},
		// seed.matdesc.alignment: ptxas's accept is an expected disagreement
		// with spec/ptxisa (the descriptor is opaque to it): not counted.
		claimCase{"m1", "matdesc", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, "seed.matdesc.alignment", ""),
			vd("spec/ptxisa", oracles.Reject, "ptxisa.matdesc.alignment", ""), vd("ptxas", oracles.Accept, "", "")}},
	)

	t.Run("contradicted", func(t *testing.T) {
		c := got[size]
		if c.Verdict != Contradicted || c.Decided != 4 || c.Judged != 4 || c.Confirming != 2 || c.Contradicting != 2 {
			t.Fatalf("%s: %+v; want contradicted, 4 decided and judged, 2 confirming, 2 contradicting", size, c)
		}
		if c.Witness == nil || c.Witness.Case != "c4" || len(c.Witness.Tools) != 1 || c.Witness.Tools[0].Oracle != "ptxas" {
			t.Fatalf("witness %+v, want the smaller case c4 with ptxas's accept", c.Witness)
		}
		if fmt.Sprint(c.Tools) != "[{ptxas 2 2} {llc@22 2 0}]" {
			t.Fatalf("tallies %v, want ptxas 2 agree 2 contradict, llc@22 2 agree", c.Tools)
		}
	})
	t.Run("confirmed", func(t *testing.T) {
		c := got[transpose]
		if c.Verdict != Confirmed || c.Judged != 1 || fmt.Sprint(c.Tools) != "[{ptxas 1 0}]" || c.PTXISAAgree != 1 {
			t.Fatalf("%s: %+v; want confirmed by ptxas alone on 1 case, spec/ptxisa agreeing", transpose, c)
		}
	})
	t.Run("accept path", func(t *testing.T) {
		c := got["seed.ldsm"]
		if !c.AcceptPath || c.Verdict != Contradicted || c.Witness == nil || c.Witness.Case != "a1" {
			t.Fatalf("accept path: %+v; want contradicted by a1", c)
		}
	})
	t.Run("unverified", func(t *testing.T) {
		c := got["seed.ldsm.alignment"]
		if c.Verdict != Unverified || c.Decided != 1 || c.Judged != 0 {
			t.Fatalf("%+v; want unverified with 1 case decided", c)
		}
		hints := map[string]ToolHint{}
		for _, h := range c.Unjudged {
			hints[h.Tool] = h
		}
		if h := hints["ptxas"]; !strings.Contains(h.Why, "unsupported") || !strings.Contains(h.Why, "sm_100a") {
			t.Errorf("ptxas hint %+v, want its unsupported reason", h)
		}
		if h := hints["ptxas13"]; h.Why != HintNotRun || !strings.Contains(h.Where, "GPU machine") {
			t.Errorf("ptxas13 hint %+v, want not run here, on a GPU machine", h)
		}
	})
	t.Run("expected disagreement is not evidence", func(t *testing.T) {
		c := got["seed.matdesc.alignment"]
		if c.Verdict != Unverified || c.Judged != 0 {
			t.Fatalf("%+v; want unverified: ptxas cannot see descriptor alignment", c)
		}
		found := false
		for _, h := range c.Unjudged {
			found = found || (h.Tool == "ptxas" && strings.Contains(h.Why, "expected to differ"))
		}
		if !found {
			t.Errorf("hints %+v lack ptxas's expected disagreement", c.Unjudged)
		}
	})
	t.Run("no evidence", func(t *testing.T) {
		c := got["seed.tmamode.1-rank"]
		if c.Verdict != Unverified || c.Decided != 0 || len(c.Unjudged) == 0 || c.Unjudged[0].Tool != "-" {
			t.Fatalf("%+v; want unverified, no case decided", c)
		}
	})
}

// TestClaimsIgnoreTargetRefusals: a tool that refuses the target or the PTX
// version never looked at what a seed rule is about: its reject neither
// confirms that rule nor contradicts the accept path, and the hint says why.
func TestClaimsIgnoreTargetRefusals(t *testing.T) {
	const transpose = "seed.ldsm.transpose"
	gate := "ptxas: Feature 'stmatrix' requires .target sm_90 or higher"
	got := buildClaims(t,
		claimCase{"g1", "ldsm", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Reject, transpose, ""), vd("ptxas", oracles.Reject, "", gate)}},
		claimCase{"g2", "ldsm", `{}`, []oracles.Verdict{vd("spec/seed", oracles.Accept, "seed.ldsm", ""), vd("mlir22", oracles.Reject, "pass:convert-nvgpu-to-nvvm", "lowering: 'nvvm.stmatrix' op is not supported on sm_80")}},
	)
	if c := got[transpose]; c.Verdict != Unverified || c.Judged != 0 || !strings.Contains(fmt.Sprint(c.Unjudged), "refused the target or PTX version of 1 case") {
		t.Errorf("%s: %+v; want unverified, the target refusal not counted and named", transpose, c)
	}
	if c := got["seed.ldsm"]; c.Verdict != Unverified || c.Judged != 0 {
		t.Errorf("accept path: %+v; want unverified: MLIR 22 refused the target, not the ladder", c)
	}
}
