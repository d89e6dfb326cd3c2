package store

import (
	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// ForEachCase calls f with every stored case, in case ID order, and its
// verdicts, all in one read transaction, so the cases and verdicts seen are
// one consistent snapshot. An error from f stops the walk and is returned.
func (s *Store) ForEachCase(f func(CaseRecord, []oracles.Verdict) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return each(tx.Bucket(bucketCases), "case", func(r CaseRecord) error {
			vs, err := caseVerdicts(tx, r.ID)
			if err != nil {
				return err
			}
			return f(r, vs)
		})
	})
}
