package rules

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

// ruleRow is a compact row of a rule table: a hand-written value, the rule
// that must fire ("" for an accept), and out, the exact diagnostic when a
// rule fires, else the exact value the accept carries.
type ruleRow[V any] struct {
	name string
	v    V
	rule string
	out  string
}

// runRuleRows runs a table of rule rows as runLadderCases runs its cases:
// every rule must fire on one row and hold on another.
func runRuleRows[V any](t *testing.T, l *Ladder[V], rows []ruleRow[V]) {
	t.Helper()
	cases := make([]ladderCase[V], len(rows))
	for i, tc := range rows {
		cases[i] = ladderCase[V]{name: tc.name, v: tc.v, rule: tc.rule}
		if tc.rule == "" {
			cases[i].value = tc.out
		} else {
			cases[i].diag = tc.out
		}
	}
	runLadderCases(t, l, cases)
}

// runFiringRows judges rows on each of which a rule must fire with its exact
// diagnostic, and requires every rule of l to fire on one; the tests that
// use it show the rules holding with checkAcceptsAll.
func runFiringRows[V any](t *testing.T, l *Ladder[V], rows []ruleRow[V]) {
	t.Helper()
	fired := map[string]bool{}
	for _, tc := range rows {
		fired[tc.rule] = true
		t.Run(tc.name, func(t *testing.T) { checkJudgment(t, l.Judge(tc.v), tc.rule, tc.out, "") })
	}
	for _, r := range l.Rules() {
		if !fired[r.ID] {
			t.Errorf("rule %s has no firing case", r.ID)
		}
	}
}

// checkAcceptsAll asserts l accepts v with value want, having checked and
// held every one of its rules.
func checkAcceptsAll[V any](t *testing.T, l *Ladder[V], v V, want string) {
	t.Helper()
	j := l.Judge(v)
	checkJudgment(t, j, "", "", want)
	if len(j.Passed) != len(l.Checks) {
		t.Fatalf("passed %d rules, want all %d", len(j.Passed), len(l.Checks))
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
