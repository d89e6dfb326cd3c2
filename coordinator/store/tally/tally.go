// Package tally folds judged cases into the counts a report shows: the
// agreement matrix, the claims matrix, rule coverage and the cases'
// timeline. The store folds every case it settles into its night's tally in
// the transaction that settles it, so that a report reads tallies, not every
// case a night judged, and a case nothing else needs can be dropped.
package tally

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Case is what a tally needs of one judged case.
type Case struct {
	ID     string
	Domain string
	Data   []byte // canonical bytes
	Seen   time.Time
	// Minimized marks a case minimization made of a bucket's example: it
	// counts in the matrices, not in the timeline.
	Minimized bool
}

// JSON renders the case's JSON form; a case that no longer decodes (its
// domain changed) is shown as an error object, not dropped.
func (c Case) JSON() json.RawMessage {
	problem := func(err error) json.RawMessage {
		data, _ := json.Marshal(map[string]string{"error": err.Error(), "canonical_hex": fmt.Sprintf("%x", c.Data)})
		return data
	}
	d, ok := fuzz.Lookup(c.Domain)
	if !ok {
		return problem(fmt.Errorf("unknown domain %q", c.Domain))
	}
	v, err := d.Decode(c.Data)
	if err != nil {
		return problem(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return problem(err)
	}
	return data
}

// Tally is the folded counts of some cases: one night's, as the store keeps
// them, or a report's sum of every night's. Its JSON form is what the store
// keeps; its size depends on the rules, oracles and diagnostics seen, not on
// how many cases were folded.
type Tally struct {
	Cases     int            `json:"cases"`
	Minimized int            `json:"minimized,omitempty"`
	Verdicts  int            `json:"verdicts"`
	Matrix    MatrixBuilder  `json:"matrix"`
	ClaimRows claimsBuilder  `json:"claims"`
	Fired     map[string]int `json:"fired,omitempty"`  // spec rule -> cases it rejected
	Passed    map[string]int `json:"passed,omitempty"` // spec rule -> cases it checked and passed
	Seen      Histogram      `json:"seen"`             // the cases' Seen times, minimized ones aside
	Spelled   Spelled        `json:"spelled"`          // render coverage, minimized cases aside
	Ops       Ops            `json:"ops"`              // op cases' verdicts per op, minimized cases aside
	// merged holds the timelines of tallies merged into this one.
	merged []Count
}

// Add folds one case and its verdicts.
func (t *Tally) Add(c Case, vs []oracles.Verdict) {
	t.Cases++
	t.Verdicts += len(vs)
	decodedValue, decoded := c.value()
	if c.Minimized {
		t.Minimized++ // a minimization's time is not the campaign's
	} else {
		t.Seen.Add(c.Seen)
		t.Spelled.Add(vs) // a minimization's rerenders are not the campaign's reach
		if op, ok := decodedValue.(OpNamer); decoded && ok {
			t.Ops.Add(op.OpName(), vs)
		}
	}
	t.Matrix.Add(vs)
	for _, v := range vs {
		if isSpec(v) && v.Kind == oracles.Reject {
			t.Fired = inc(t.Fired, v.Rule, 1)
		}
	}
	for _, id := range passedRules(c.Domain, decodedValue, decoded) {
		t.Passed = inc(t.Passed, id, 1)
	}
	var value json.RawMessage
	t.ClaimRows.add(c.ID, c.Domain, vs, func() json.RawMessage {
		if value == nil {
			value = c.JSON()
		}
		return value
	})
}

// Merge adds o's counts to t.
func (t *Tally) Merge(o *Tally) {
	t.Cases += o.Cases
	t.Minimized += o.Minimized
	t.Verdicts += o.Verdicts
	t.Matrix.Merge(&o.Matrix)
	t.ClaimRows.merge(&o.ClaimRows)
	t.Spelled.Merge(&o.Spelled)
	t.Ops.Merge(&o.Ops)
	for id, n := range o.Fired {
		t.Fired = inc(t.Fired, id, n)
	}
	for id, n := range o.Passed {
		t.Passed = inc(t.Passed, id, n)
	}
	t.merged = append(append(t.merged, o.Seen.Points()...), o.merged...)
}

// entry returns (*m)[k], making the map and, with fresh, the entry when
// either is missing: the get-or-create of every counter a tally keeps
// (its maps are omitted from the stored JSON when empty).
func entry[V any](m *map[string]*V, k string, fresh func() *V) *V {
	if *m == nil {
		*m = map[string]*V{}
	}
	v := (*m)[k]
	if v == nil {
		v = fresh()
		(*m)[k] = v
	}
	return v
}

func inc(m map[string]int, k string, n int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k] += n
	return m
}

// Claims returns the claims matrix: by domain, each domain's rules by ID,
// then its accept path.
func (t *Tally) Claims() []Claim { return t.ClaimRows.claims() }

// Timeline returns the folded cases' Seen times, counted.
func (t *Tally) Timeline() []Count { return append(t.Seen.Points(), t.merged...) }

// RuleCoverage counts how often a spec rule decided a case (fired) and how
// often it was checked and held (passed).
type RuleCoverage struct {
	Rule   string `json:"rule"`
	Set    string `json:"set"`
	Domain string `json:"domain"`
	Fired  int    `json:"fired"`
	Passed int    `json:"passed"`
}

// Coverage lists every spec rule with its counts, in rule ID order.
func (t *Tally) Coverage() []RuleCoverage {
	all := rules.Rules()
	out := make([]RuleCoverage, 0, len(all))
	for _, r := range all {
		out = append(out, RuleCoverage{Rule: r.ID, Set: string(r.Set), Domain: r.Domain, Fired: t.Fired[r.ID], Passed: t.Passed[r.ID]})
	}
	return out
}

// value decodes the case once for what Add reads of it (the rules it
// passed, its op); false when its domain is unknown or it no longer
// decodes.
func (c Case) value() (domain.Value, bool) {
	d, ok := fuzz.Lookup(c.Domain)
	if !ok {
		return nil, false
	}
	v, err := d.Decode(c.Data)
	return v, err == nil
}

// passedRules re-judges a decoded case with both spec rule sets and lists
// the rules that were checked and held: rule coverage, recomputed rather
// than stored with every verdict.
func passedRules(dom string, v domain.Value, decoded bool) []string {
	if !decoded {
		return nil
	}
	var ids []string
	for _, set := range rules.Sets {
		j, err := rules.JudgeValue(set, dom, v)
		if err != nil {
			continue
		}
		for _, r := range j.Passed {
			ids = append(ids, r.ID)
		}
	}
	return ids
}
