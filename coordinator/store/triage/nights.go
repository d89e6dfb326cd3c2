package triage

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// A bucket's status tonight (in the latest run) against an earlier run.
const (
	// TonightNew: first seen after the earlier run.
	TonightNew = "new"
	// TonightStill: open at the earlier run and seen again.
	TonightStill = "still"
	// TonightFixed: open at the earlier run (or new since) and fixed now.
	TonightFixed = "fixed"
	// TonightRegressed: fixed at the earlier run and seen again.
	TonightRegressed = "regressed"
)

// Nights orders a store's campaigns, oldest first, and compares runs.
type Nights struct {
	order []store.Campaign
	rank  map[string]int
}

// NewNights orders the campaigns by creation.
func NewNights(camps []store.Campaign) Nights {
	n := Nights{order: slices.Clone(camps), rank: map[string]int{}}
	slices.SortFunc(n.order, func(a, b store.Campaign) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for i, c := range n.order {
		n.rank[c.ID] = i
	}
	return n
}

// Latest is the most recently created campaign's ID; empty without one.
func (n Nights) Latest() string {
	if len(n.order) == 0 {
		return ""
	}
	return n.order[len(n.order)-1].ID
}

// Before is the run before the given one; empty for the first.
func (n Nights) Before(id string) string {
	if i, ok := n.rank[id]; ok && i > 0 {
		return n.order[i-1].ID
	}
	return ""
}

// Get returns a campaign by ID.
func (n Nights) Get(id string) (store.Campaign, bool) {
	i, ok := n.rank[id]
	if !ok {
		return store.Campaign{}, false
	}
	return n.order[i], true
}

// Has reports whether the store holds the campaign.
func (n Nights) Has(id string) bool { _, ok := n.rank[id]; return ok }

// Status is the bucket's status at run latest against run since (empty:
// the beginning): TonightNew, TonightStill, TonightFixed, TonightRegressed,
// or "" when latest did not look at it, or saw it fixed as it already was.
// fixedBy names the tool versions of a fixed bucket's replay.
func (n Nights) Status(b store.Bucket, since, latest string) (status, fixedBy string) {
	latestRank, ok := n.rank[latest]
	if !ok {
		return "", ""
	}
	sinceRank := -1
	if r, ok := n.rank[since]; ok {
		sinceRank = r
	}
	var before, now *store.Sighting
	for _, s := range b.History() {
		r, ok := n.rank[s.Campaign]
		switch {
		case !ok:
		case r <= sinceRank:
			before = &s
		case r == latestRank:
			now = &s
		}
	}
	switch {
	case now == nil:
		return "", ""
	case now.Outcome == store.SeenFixed && before != nil && before.Outcome == store.SeenFixed:
		return "", ""
	case now.Outcome == store.SeenFixed:
		return TonightFixed, versionsText(now.Versions, b.Signature.Tool)
	case before == nil:
		return TonightNew, ""
	case before.Outcome == store.SeenFixed:
		return TonightRegressed, ""
	}
	return TonightStill, ""
}

// versionsText spells versions, the deviating tool's first:
// "exec:toy 0.2.0, spec/ptxisa 1".
func versionsText(vs map[string]string, tool string) string {
	names := slices.Sorted(maps.Keys(vs))
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == tool:
			return -1
		case b == tool:
			return 1
		}
		return 0
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + vs[name]
	}
	return strings.Join(parts, ", ")
}

// VersionChange is an oracle whose version differs between two runs.
type VersionChange struct {
	Oracle string `json:"oracle"`
	From   string `json:"from"` // empty: not used in the earlier run
	To     string `json:"to"`   // empty: not used in the later run
}

// Changes lists the oracles whose versions differ between the runs; none
// without an earlier run.
func (n Nights) Changes(since, latest string) []VersionChange {
	if since == "" {
		return nil
	}
	a, _ := n.Get(since)
	b, _ := n.Get(latest)
	va, vb := a.Versions(), b.Versions()
	var out []VersionChange
	for _, name := range slices.Sorted(maps.Keys(vb)) {
		if va[name] != vb[name] {
			out = append(out, VersionChange{Oracle: name, From: va[name], To: vb[name]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(va)) {
		if _, ok := vb[name]; !ok {
			out = append(out, VersionChange{Oracle: name, From: va[name]})
		}
	}
	return out
}
