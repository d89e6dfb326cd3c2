// Package triage is what people see of a store's buckets: each classified
// (new, known or suppressed, by class and size), the runs ordered and
// compared (a bucket's status tonight against an earlier night, the
// oracles whose versions changed), and the suppression files users keep.
// It reads the store's records and writes nothing; cmd/legalfuzz's triage,
// report and progress, the reports and the coordinator's metrics use it.
package triage

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// ReadSuppressions reads a suppression file users keep in their repository:
// a JSON array of suppressions, each with a reason.
func ReadSuppressions(path string) ([]store.Suppression, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suppressions: %w", err)
	}
	var ss []store.Suppression
	if err := json.Unmarshal(data, &ss); err != nil {
		return nil, fmt.Errorf("suppressions %s: %w", path, err)
	}
	for i, s := range ss {
		if s.Reason == "" {
			return nil, fmt.Errorf("suppressions %s: entry %d has no reason", path, i)
		}
	}
	return ss, nil
}

// Bucket statuses.
const (
	StatusNew        = "new"        // first seen in the latest campaign
	StatusKnown      = "known"      // seen in an earlier campaign
	StatusSuppressed = "suppressed" // covered by a suppression (still counted)
)

// Entry is one bucket as triage shows it.
type Entry struct {
	store.Bucket
	Status string `json:"status"`
	// Class is the bucket's class (policy.ClassOf): a tool bug, a tool's
	// stated limitation, or seed evidence.
	Class      policy.Class `json:"class"`
	Suppressed string       `json:"suppressed_because,omitempty"`
	// Tonight is the bucket's status in the latest run against an earlier
	// one (TonightNew, TonightStill, TonightFixed, TonightRegressed; empty
	// when the run did not look at it), set by Nights.Mark. FixedBy names
	// the tool versions a fixed bucket's replay ran with.
	Tonight string `json:"tonight,omitempty"`
	FixedBy string `json:"fixed_by,omitempty"`
	// NotYetMinimized says the bucket waits for its minimization
	// (store.Bucket.NotYetMinimized): its example stands for it.
	NotYetMinimized bool `json:"not_yet_minimized,omitempty"`
}

// Mark sets each entry's status at run latest against run since (see
// Status).
func (n Nights) Mark(entries []Entry, since, latest string) {
	for i := range entries {
		entries[i].Tonight, entries[i].FixedBy = n.Status(entries[i].Bucket, since, latest)
	}
}

// Classify classifies every bucket: suppressed when a suppression (from the
// store or the given file's list) matches, new when first seen in latest,
// known otherwise. Entries are sorted new first, then by class (crashes and
// miscompiles first), then by case count.
func Classify(buckets []store.Bucket, latest string, sups []store.Suppression) []Entry {
	out := make([]Entry, 0, len(buckets))
	for _, b := range buckets {
		e := Entry{Bucket: b, Status: StatusKnown, Class: policy.ClassOf(b.Signature), NotYetMinimized: b.NotYetMinimized()}
		if b.Campaign == latest {
			e.Status = StatusNew
		}
		for _, s := range sups {
			if s.Matches(b) {
				e.Status, e.Suppressed = StatusSuppressed, s.Reason
				break
			}
		}
		out = append(out, e)
	}
	rank := map[string]int{StatusNew: 0, StatusKnown: 1, StatusSuppressed: 2}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if rank[a.Status] != rank[b.Status] {
			return rank[a.Status] - rank[b.Status]
		}
		if a.Class != b.Class {
			return a.Class.Rank() - b.Class.Rank()
		}
		if a.Cases != b.Cases {
			return b.Cases - a.Cases
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}
