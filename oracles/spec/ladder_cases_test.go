package spec

import "testing"

// ladderCase is one row of a rule table: a hand-written value and either the
// rule that must fire with its exact diagnostic, or (rule "") the exact value
// an accept carries.
type ladderCase[V any] struct {
	name  string
	v     V
	rule  string
	diag  string
	value string
}

// runLadderCases judges every case with l, then requires each rule of l to
// have fired on one case and passed on another, so every rule is shown able
// to fail and able to hold.
func runLadderCases[V any](t *testing.T, l *Ladder[V], cases []ladderCase[V]) {
	t.Helper()
	fired, passed := map[string]bool{}, map[string]bool{}
	for _, tc := range cases {
		j := l.Judge(tc.v)
		t.Run(tc.name, func(t *testing.T) { checkJudgment(t, j, tc.rule, tc.diag, tc.value) })
		if j.Rule != nil {
			fired[j.Rule.ID] = true
		}
		for _, r := range j.Passed {
			passed[r.ID] = true
		}
	}
	for _, r := range l.Rules() {
		if !fired[r.ID] {
			t.Errorf("no case fires %s", r.ID)
		}
		if !passed[r.ID] {
			t.Errorf("no case passes %s", r.ID)
		}
	}
}

// disagreement is a value on which the seed's ladder and the PTX ISA's ladder
// part: the rule each fires, "" for an accept.
type disagreement[V any] struct {
	name       string
	v          V
	seedRule   string
	ptxisaRule string
}

// runDisagreements judges each case with both ladders and checks the rule
// each fires, one subtest per case.
func runDisagreements[V any](t *testing.T, seed, ptxisa *Ladder[V], cases []disagreement[V]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []struct {
				l    *Ladder[V]
				want string
			}{{seed, tc.seedRule}, {ptxisa, tc.ptxisaRule}} {
				j := side.l.Judge(tc.v)
				got := ""
				if !j.Accept {
					got = j.Rule.ID
				}
				if got != side.want {
					t.Errorf("%s: got %q, want %q", side.l.ID(), got, side.want)
				}
			}
		})
	}
}
