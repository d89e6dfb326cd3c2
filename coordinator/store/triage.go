package store

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
)

// Suppression hides nothing: a suppressed bucket is still stored, counted and
// listed, but it no longer counts as new (and no longer fails a nightly job).
// It matches a bucket by its key, or by a predicate over signature fields;
// empty predicate fields match anything.
type Suppression struct {
	// Bucket is a signature key; when set the predicate fields are ignored.
	Bucket string `json:"bucket,omitempty"`
	Domain string `json:"domain,omitempty"`
	Oracle string `json:"oracle,omitempty"` // the deviating tool, or either side of the pair
	Rule   string `json:"rule,omitempty"`   // spec/ptxisa's rule, or either side's
	// DiagContains matches a substring of the deviating tool's diagnostic
	// title, or of either side's.
	DiagContains string    `json:"diag_contains,omitempty"`
	Reason       string    `json:"reason"`
	Created      time.Time `json:"created,omitzero"`
}

// Matches reports whether s covers bucket b.
func (s Suppression) Matches(b Bucket) bool {
	if s.Bucket != "" {
		return s.Bucket == b.Key
	}
	sig := b.Signature
	if s.Domain == "" && s.Oracle == "" && s.Rule == "" && s.DiagContains == "" {
		return false // an empty predicate would silence everything
	}
	return (s.Domain == "" || s.Domain == sig.Domain) &&
		(s.Oracle == "" || s.Oracle == sig.Tool || s.Oracle == sig.Pair.A || s.Oracle == sig.Pair.B) &&
		(s.Rule == "" || s.Rule == sig.Rule || s.Rule == sig.RuleA || s.Rule == sig.RuleB) &&
		(s.DiagContains == "" || strings.Contains(sig.Diag, s.DiagContains) ||
			strings.Contains(sig.DiagA, s.DiagContains) || strings.Contains(sig.DiagB, s.DiagContains))
}

// ReadSuppressions reads a suppression file users keep in their repository:
// a JSON array of suppressions, each with a reason.
func ReadSuppressions(path string) ([]Suppression, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suppressions: %w", err)
	}
	var ss []Suppression
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

var bucketSuppressions = []byte("suppressions") // bucket key -> Suppression

// Suppress records a suppression of one bucket in the store.
func (s *Store) Suppress(bucket, reason string, now time.Time) error {
	if reason == "" {
		return fmt.Errorf("a suppression needs a reason")
	}
	return s.update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketBuckets).Get([]byte(bucket)) == nil {
			return fmt.Errorf("no bucket %q", bucket)
		}
		b, err := tx.CreateBucketIfNotExists(bucketSuppressions)
		if err != nil {
			return err
		}
		return put(b, []byte(bucket), Suppression{Bucket: bucket, Reason: reason, Created: now})
	})
}

// Unsuppress removes the store's suppression of a bucket.
func (s *Store) Unsuppress(bucket string) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSuppressions)
		if b == nil || b.Get([]byte(bucket)) == nil {
			return fmt.Errorf("bucket %q is not suppressed in the store", bucket)
		}
		return b.Delete([]byte(bucket))
	})
}

// Suppressions lists the store's suppressions.
func (s *Store) Suppressions() ([]Suppression, error) {
	return scan[Suppression](s, bucketSuppressions, nil, "suppression")
}

// Bucket statuses.
const (
	StatusNew        = "new"        // first seen in the latest campaign
	StatusKnown      = "known"      // seen in an earlier campaign
	StatusSuppressed = "suppressed" // covered by a suppression (still counted)
)

// TriageEntry is one bucket as triage shows it.
type TriageEntry struct {
	Bucket
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
	// (Bucket.NotYetMinimized): its example stands for it.
	NotYetMinimized bool `json:"not_yet_minimized,omitempty"`
}

// Mark sets each entry's status at run latest against run since (see
// Status).
func (n Nights) Mark(entries []TriageEntry, since, latest string) {
	for i := range entries {
		entries[i].Tonight, entries[i].FixedBy = n.Status(entries[i].Bucket, since, latest)
	}
}

// Triage classifies every bucket: suppressed when a suppression (from the
// store or the given file's list) matches, new when first seen in latest,
// known otherwise. Entries are sorted new first, then by class (crashes and
// miscompiles first), then by case count.
func Triage(buckets []Bucket, latest string, sups []Suppression) []TriageEntry {
	out := make([]TriageEntry, 0, len(buckets))
	for _, b := range buckets {
		e := TriageEntry{Bucket: b, Status: StatusKnown, Class: policy.ClassOf(b.Signature), NotYetMinimized: b.NotYetMinimized()}
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
	slices.SortStableFunc(out, func(a, b TriageEntry) int {
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
