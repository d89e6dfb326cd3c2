package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketSweeps holds each domain's lattice sweep: domain -> Sweep.
var bucketSweeps = []byte("sweeps")

// SweepSource is the Source of a case a lattice sweep made: every judge,
// sampled ones included, judges it.
const SweepSource = "lattice"

// SeedSource is the Source of a domain's seed value: every judge judges
// it too.
const SeedSource = "seed"

// Sweep is how far a domain's lattice sweep (package fuzz/lattice) has come
// in this store. Sweeps outlive campaigns: the next night goes on from
// Next, and starts again when the domain's lattice changed (Fingerprint).
type Sweep struct {
	Domain      string `json:"domain"`
	Fingerprint string `json:"fingerprint"`
	// Next is how many of the lattice's rows have been added as cases.
	Next int `json:"next"`
	// Rows and Pairs are the lattice's size: its rows and the pairs of
	// values they hold; Covered is the pairs the first Next rows hold.
	Rows    int `json:"rows"`
	Pairs   int `json:"pairs"`
	Covered int `json:"covered"`
	// Unrealizable is the pairs the domain refuses in every row.
	Unrealizable int `json:"unrealizable,omitempty"`
	// Started names the campaign that began the sweep; Completed and
	// CompletedIn when and in which campaign (night) its last row was added.
	Started     string    `json:"started"`
	Completed   time.Time `json:"completed,omitzero"`
	CompletedIn string    `json:"completed_in,omitempty"`
}

// Done reports whether every row has been added.
func (w Sweep) Done() bool { return w.Rows > 0 && w.Next >= w.Rows }

// Sweeps lists the store's sweeps by domain.
func (s *Store) Sweeps() (map[string]Sweep, error) {
	out := map[string]Sweep{}
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSweeps)
		if b == nil {
			return nil // a store from before sweeps, opened read-only
		}
		return b.ForEach(func(k, v []byte) error {
			var w Sweep
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("corrupt sweep %q: %w", k, err)
			}
			out[string(k)] = w
			return nil
		})
	})
	return out, err
}

// PutSweep records a domain's sweep.
func (s *Store) PutSweep(w Sweep) error {
	return s.update(func(tx *bolt.Tx) error {
		return put(tx.Bucket(bucketSweeps), []byte(w.Domain), w)
	})
}
