package store

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Every campaign in a store is a night (a run): its buckets were found,
// replayed and reproduced, or replayed and fixed, each with the tool
// versions that did it. A bucket's Nights say which.

// What a night saw of a bucket.
const (
	// SeenFound: a case of the night showed the bucket's signature.
	SeenFound = "found"
	// SeenReproduced: the night did not find it, but its case, replayed at
	// the end of the night with the night's tools, still shows it.
	SeenReproduced = "reproduced"
	// SeenFixed: replayed at the end of the night, its case no longer
	// shows it (the tools judged it and agreed, or disagreed otherwise).
	SeenFixed = "fixed"
)

// Sighting is one night's look at a bucket.
type Sighting struct {
	Campaign string    `json:"campaign"`
	Outcome  string    `json:"outcome"` // SeenFound, SeenReproduced or SeenFixed
	Time     time.Time `json:"time"`
	// Versions are the versions of the pair's oracles that judged the case
	// (the deviating tool's and the reference's).
	Versions map[string]string `json:"versions,omitempty"`
	// Carried says the night did not replay the case: the pair's versions
	// were those of the night that last judged it, whose outcome stands.
	Carried bool `json:"carried,omitempty"`
}

// sightingOf is the sighting of a finding: the versions on its verdicts.
func sightingOf(d policy.Disagreement, campaign string, now time.Time) Sighting {
	s := Sighting{Campaign: campaign, Outcome: SeenFound, Time: now, Versions: map[string]string{}}
	for _, v := range []oracles.Verdict{d.A, d.B} {
		if v.Version != "" {
			s.Versions[v.Oracle] = v.Version
		}
	}
	return s
}

// see records a night's finding of b: once per night, the first finding's
// versions.
func (b *Bucket) see(s Sighting) {
	if s.Campaign == "" {
		return
	}
	if n := len(b.Nights); n > 0 && b.Nights[n-1].Campaign == s.Campaign {
		return
	}
	b.Nights = append(b.Nights, s)
}

// History is the bucket's nights, oldest first; a bucket stored before
// nights were recorded was seen in its first campaign.
func (b Bucket) History() []Sighting {
	if len(b.Nights) > 0 || b.Campaign == "" {
		return b.Nights
	}
	return []Sighting{{Campaign: b.Campaign, Outcome: SeenFound, Time: b.FirstSeen}}
}

// SeenIn reports whether the night already looked at the bucket.
func (b Bucket) SeenIn(campaign string) bool {
	return slices.ContainsFunc(b.History(), func(s Sighting) bool { return s.Campaign == campaign })
}

// Open reports whether the bucket's last sighting shows it: not fixed.
func (b Bucket) Open() bool {
	h := b.History()
	return len(h) == 0 || h[len(h)-1].Outcome != SeenFixed
}

// RecordSighting adds a night's replay of a bucket (SeenReproduced or
// SeenFixed). A night that already looked at the bucket keeps what it saw.
// A key merged into another bucket meanwhile (a minimization during the
// night's replay) names that bucket.
func (s *Store) RecordSighting(key string, sg Sighting) (Bucket, error) {
	var out Bucket
	err := s.update(func(tx *bolt.Tx) error {
		key = resolveKey(tx, key)
		bb := tx.Bucket(bucketBuckets)
		b, ok, err := get[Bucket](bb, []byte(key))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no bucket %q", key)
		}
		if b.SeenIn(sg.Campaign) {
			out = b
			return nil
		}
		b.Nights = append(b.History(), sg)
		if sg.Outcome != SeenFixed {
			b.LastSeen = sg.Time
		}
		out = b
		return put(bb, []byte(key), b)
	})
	return out, err
}

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
	order []Campaign
	rank  map[string]int
}

// NewNights orders the campaigns by creation.
func NewNights(camps []Campaign) Nights {
	n := Nights{order: slices.Clone(camps), rank: map[string]int{}}
	slices.SortFunc(n.order, func(a, b Campaign) int {
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
func (n Nights) Get(id string) (Campaign, bool) {
	i, ok := n.rank[id]
	if !ok {
		return Campaign{}, false
	}
	return n.order[i], true
}

// Has reports whether the store holds the campaign.
func (n Nights) Has(id string) bool { _, ok := n.rank[id]; return ok }

// Status is the bucket's status at run latest against run since (empty:
// the beginning): TonightNew, TonightStill, TonightFixed, TonightRegressed,
// or "" when latest did not look at it, or saw it fixed as it already was.
// fixedBy names the tool versions of a fixed bucket's replay.
func (n Nights) Status(b Bucket, since, latest string) (status, fixedBy string) {
	latestRank, ok := n.rank[latest]
	if !ok {
		return "", ""
	}
	sinceRank := -1
	if r, ok := n.rank[since]; ok {
		sinceRank = r
	}
	var before, now *Sighting
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
	case now.Outcome == SeenFixed && before != nil && before.Outcome == SeenFixed:
		return "", ""
	case now.Outcome == SeenFixed:
		return TonightFixed, versionsText(now.Versions, b.Signature.Tool)
	case before == nil:
		return TonightNew, ""
	case before.Outcome == SeenFixed:
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
