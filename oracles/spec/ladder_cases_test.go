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
