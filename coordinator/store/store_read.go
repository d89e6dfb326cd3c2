package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// ForEachCase calls f with every stored case, in case ID order, and its
// verdicts, all in one read transaction, so the cases and verdicts seen are
// one consistent snapshot. An error from f stops the walk and is returned.
func (s *Store) ForEachCase(f func(CaseRecord, []oracles.Verdict) error) error {
	return s.view(func(tx *bolt.Tx) error {
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
