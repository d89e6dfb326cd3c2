package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// OpenStoreReadOnly opens an existing store for reading only, as reports do:
// it never creates the file or its buckets and takes a shared lock, so it can
// run beside other readers. While a campaign holds the file it waits up to
// timeout, then fails.
func OpenStoreReadOnly(path string, timeout time.Duration) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db, err := bolt.Open(path, 0o444, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("open store %s: still locked after %s (is a campaign running on it?)", path, timeout)
		}
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				return fmt.Errorf("not a legalfuzz store: no %q bucket", b)
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// ForEachCase calls f with every stored case, in case ID order, and its
// verdicts, all in one read transaction, so the cases and verdicts seen are
// one consistent snapshot. An error from f stops the walk and is returned.
func (s *Store) ForEachCase(f func(CaseRecord, []oracles.Verdict) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketCases).ForEach(func(k, data []byte) error {
			var r CaseRecord
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("corrupt case %q: %w", k, err)
			}
			vs, err := caseVerdicts(tx, r.ID)
			if err != nil {
				return err
			}
			return f(r, vs)
		})
	})
}
