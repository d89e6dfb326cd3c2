package store

import (
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Triaged is what a campaign's triage did with the buckets it had to
// minimize (its new ones, and those earlier campaigns left): which it
// minimized while it generated, which after (in the drain and the tail),
// and which it left, their example kept, for the next campaign on the
// store to minimize first.
type Triaged struct {
	// Tail is the most time the work after generation was given.
	Tail   time.Duration `json:"tail"`
	During []string      `json:"during,omitempty"`
	After  []string      `json:"after,omitempty"`
	Left   []string      `json:"left,omitempty"`
}

// NotYetMinimized reports whether the bucket still waits for its
// minimization: none ran to an end, its example stands for it. A bucket
// whose minimization ended with a note (its oracles unreachable, its
// example no longer failing) is not waiting.
func (b Bucket) NotYetMinimized() bool { return b.Minimized == "" && b.MinimizeNote == "" }

// mergeCommitted keeps in b what was written on the stored bucket since b
// was read: a bucket is minimized while the campaign still finds its cases,
// and replayed by the night while the triage minimizes it. The campaign's
// commits' fields are merged: the larger case count, the later last
// sighting, every alternative title and every night. The minimizer's and
// the replays' fields are b's, unless b has no minimization the stored
// bucket has: b was read before it ended, and what b replayed was the
// example the minimized case supersedes.
func mergeCommitted(b, stored Bucket) Bucket {
	if b.NotYetMinimized() && !stored.NotYetMinimized() {
		b.Minimized, b.Reliability, b.ReChecks, b.MinimizeNote = stored.Minimized, stored.Reliability, stored.ReChecks, stored.MinimizeNote
		b.Versions = stored.Versions
	}
	b.Cases = max(b.Cases, stored.Cases)
	if stored.LastSeen.After(b.LastSeen) {
		b.LastSeen = stored.LastSeen
	}
	for _, t := range stored.AltTitles {
		if !slices.Contains(b.AltTitles, t) {
			b.AltTitles = append(b.AltTitles, t)
		}
	}
	nights := slices.Clone(stored.Nights)
	for _, s := range b.Nights {
		if !slices.ContainsFunc(nights, func(n Sighting) bool { return n.Campaign == s.Campaign }) {
			nights = append(nights, s)
		}
	}
	slices.SortStableFunc(nights, func(x, y Sighting) int { return x.Time.Compare(y.Time) })
	if len(nights) > 0 {
		b.Nights = nights
	}
	return b
}

// Triage is the campaign's triage record, made on first use with the
// tail it was given.
func (c *Campaign) Triage(tail time.Duration) *Triaged {
	if c.Triaged == nil {
		c.Triaged = &Triaged{Tail: tail}
	}
	return c.Triaged
}

// owedToCampaign reports whether a running campaign's job owes the verdict:
// the case is the campaign's (generated, not stored by the minimizer), and
// enqueued for the verdict's oracle (or not marked yet). A commit outside a campaign (the minimizer's, while the
// campaign still runs) leaves it to that job's result, which stores it,
// counts it as judged and judges the case for findings: stored first, the
// job's verdict would be skipped as a duplicate and owed for ever.
func owedToCampaign(tx *bolt.Tx, v oracles.Verdict) bool {
	rec, ok, err := get[CaseRecord](tx.Bucket(bucketCases), []byte(v.Case))
	if err != nil || !ok || rec.Campaign == "" || rec.ByMinimizer() {
		return false // the minimizer stored the case: no job of a campaign asks about it
	}
	camp, ok, err := get[Campaign](tx.Bucket(bucketCampaigns), []byte(rec.Campaign))
	if err != nil || !ok || camp.State == StateDone {
		return false
	}
	return rec.Enqueued == nil || slices.Contains(rec.Enqueued, v.Oracle)
}

// ByMinimizer reports whether the minimizer stored the case (its record
// names the bucket's campaign): no job of the campaign was made for it, nor
// is one to be, though the campaign may generate the same value while the
// triage runs beside it.
func (r CaseRecord) ByMinimizer() bool {
	_, ok := r.MinimizedFor()
	return ok
}
