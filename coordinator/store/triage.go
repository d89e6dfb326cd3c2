package store

import (
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
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
