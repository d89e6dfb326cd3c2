package tally

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestBuildMatrix(t *testing.T) {
	v := func(oracle, caseID string, kind oracles.Kind, rule string) oracles.Verdict {
		return oracles.Verdict{Oracle: oracle, Case: caseID, Kind: kind, Rule: rule}
	}
	byCase := map[string][]oracles.Verdict{
		"c1": {v("spec/ptxisa", "c1", oracles.Reject, "ptxisa.x.r1"), v("ptxas", "c1", oracles.Reject, "")},
		"c2": {v("spec/ptxisa", "c2", oracles.Reject, "ptxisa.x.r1"), v("ptxas", "c2", oracles.Accept, "")},
		"c3": {v("spec/ptxisa", "c3", oracles.Accept, "ptxisa.x"), v("ptxas", "c3", oracles.Error, "")},
	}
	m := BuildMatrix(byCase)
	if len(m.Oracles) != 1 || m.Oracles[0] != "ptxas" {
		t.Fatalf("columns %v, want [ptxas]", m.Oracles)
	}
	if len(m.Rows) != 2 {
		t.Fatalf("rows %+v, want 2", m.Rows)
	}
	r1 := m.Rows[1]
	if r1.Rule != "ptxisa.x.r1" || r1.Cases != 2 || r1.Cells["ptxas"].String() != "1/1/0" {
		t.Fatalf("row %+v: want ptxisa.x.r1, 2 cases, ptxas 1/1/0", r1)
	}
	if got := m.Rows[0].Cells["ptxas"].String(); got != "0/0/0 !1" {
		t.Fatalf("accept row ptxas cell %q, want 0/0/0 !1", got)
	}
	var b strings.Builder
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ptxisa.x.r1") || !strings.Contains(b.String(), "1/1/0") {
		t.Fatalf("text output lacks the row:\n%s", b.String())
	}
}
