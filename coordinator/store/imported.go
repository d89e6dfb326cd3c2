package store

import (
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ImportSource prefixes the Source of a case that `legalfuzz corpus import`
// stored: "import:" and the file it came from.
const ImportSource = "import:"

// AdoptImported hands the imported cases of the given domains that were
// never enqueued to campaign, and returns them: an import stores cases
// with no campaign (none is running), so the next campaign on those domains
// takes them over and judges them. A case adopted by a campaign that ended
// before it could enqueue them (no oracle judged its domain) is adopted
// again by the next one. The campaign counts adopted cases as its own.
func (s *Store) AdoptImported(campaign string, domains []string) ([]CaseRecord, error) {
	var adopted []CaseRecord
	err := s.update(func(tx *bolt.Tx) error {
		adopted = adopted[:0]
		b := tx.Bucket(bucketCases)
		var recs []CaseRecord
		err := each(b, "case", func(r CaseRecord) error {
			if strings.HasPrefix(r.Source, ImportSource) && r.Enqueued == nil && r.Campaign != campaign &&
				slices.Contains(domains, r.Domain) {
				recs = append(recs, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range recs { // not inside ForEach: bbolt forbids writes while iterating
			r.Campaign = campaign
			if err := put(b, []byte(r.ID), r); err != nil {
				return err
			}
			adopted = append(adopted, r)
		}
		return countCases(tx, campaign, adopted)
	})
	return adopted, err
}

// Members returns, by case ID, the keys of the buckets the case is a finding
// of, in key order. A bucket's minimized case is not a member (it was
// judged by the pair alone, outside any campaign); read Bucket.Minimized.
func (s *Store) Members() (map[string][]string, error) {
	out := map[string][]string{}
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMembers).ForEach(func(k, _ []byte) error {
			key, caseID, ok := strings.Cut(string(k), "\x00")
			if !ok {
				return fmt.Errorf("%w member %q", errRecord, k)
			}
			out[caseID] = append(out[caseID], key)
			return nil
		})
	})
	return out, err
}
