package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// bucketDead marks the (case, oracle) pairs a campaign gave up on: a job of
// theirs became a dead letter. The marks make the dead count the store's
// own, so a dead letter counts only pairs the campaign enqueued and never
// judged, once, whatever the dead letter claims.
var bucketDead = []byte("dead") // case \x00 oracle -> {}

// bucketLetterMessages holds the stream messages recorded as dead letters,
// so that a redelivered one is recorded once.
var bucketLetterMessages = []byte("deadletter-messages") // message \x00 hash of subject and data -> {}

// seenMessage reports whether d's stream message was already recorded, and
// remembers it otherwise. The key holds a hash of the message's subject
// and data beside its stream sequence: sequences start again when the NATS
// data is lost, and a new message must not pass for an old one.
func seenMessage(tx *bolt.Tx, d DeadLetter) (bool, error) {
	if d.Message == "" {
		return false, nil
	}
	b, err := tx.CreateBucketIfNotExists(bucketLetterMessages)
	if err != nil {
		return false, err
	}
	h := sha256.New()
	h.Write([]byte(d.Subject))
	h.Write([]byte{0})
	h.Write(d.Data)
	key := []byte(d.Message + "\x00" + hex.EncodeToString(h.Sum(nil)[:8]))
	if hasMark(b, key) {
		return true, nil
	}
	return false, setMark(b, key)
}

// Pair names one (case, oracle) job.
type Pair struct{ Case, Oracle string }

// markDead marks the pairs of campaign that are enqueued (or in flight),
// unjudged and not yet dead, and returns how many it marked.
func markDead(tx *bolt.Tx, campaign string, pairs []Pair) (int, error) {
	db, err := tx.CreateBucketIfNotExists(bucketDead)
	if err != nil {
		return 0, err
	}
	cases, verdicts := tx.Bucket(bucketCases), tx.Bucket(bucketVerdicts)
	n := 0
	for _, p := range pairs {
		key := verdictKey(p.Case, p.Oracle)
		if hasMark(db, key) || verdicts.Get(key) != nil {
			continue
		}
		r, ok, err := get[CaseRecord](cases, []byte(p.Case))
		if err != nil {
			return n, err
		}
		// A case not yet marked enqueued has jobs in flight (results can
		// overtake the mark); its pairs count, and a verdict that comes
		// after all revives them. The caller passes only pairs of oracles
		// the case is going to (Coordinator.jobPairs): the store cannot
		// tell them from a forged oracle's.
		if !ok || r.Campaign != campaign || r.Enqueued != nil && !slices.Contains(r.Enqueued, p.Oracle) {
			continue // not a job of this campaign: nothing to count
		}
		if err := setMark(db, key); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// revive removes the dead mark of a pair whose verdict came after all (a job
// redelivered before it was given up), and reports whether there was one.
func revive(tx *bolt.Tx, key []byte) (bool, error) {
	db := tx.Bucket(bucketDead)
	if !hasMark(db, key) {
		return false, nil
	}
	return true, db.Delete(key)
}

// Cases returns the stored records of the IDs that are stored, in one read.
func (s *Store) Cases(ids []string) (map[string]CaseRecord, error) {
	out := make(map[string]CaseRecord, len(ids))
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCases)
		for _, id := range ids {
			r, ok, err := get[CaseRecord](b, []byte(id))
			if err != nil {
				return err
			}
			if ok {
				out[id] = r
			}
		}
		return nil
	})
	return out, err
}

// Unjudged returns, by oracle, the campaign's cases enqueued for that oracle
// with neither a verdict nor a dead mark: the work a resumed or draining
// campaign still owes.
func (s *Store) Unjudged(campaign string) (map[string][]CaseRecord, error) {
	out := map[string][]CaseRecord{}
	err := s.view(func(tx *bolt.Tx) error {
		verdicts, dead := tx.Bucket(bucketVerdicts), tx.Bucket(bucketDead)
		return each(tx.Bucket(bucketCases), "case", func(r CaseRecord) error {
			if r.Campaign != campaign {
				return nil
			}
			for _, o := range r.Enqueued {
				key := verdictKey(r.ID, o)
				if verdicts.Get(key) == nil && !hasMark(dead, key) {
					out[o] = append(out[o], r)
				}
			}
			return nil
		})
	})
	return out, err
}

// DeadPairs returns every (case, oracle) pair marked dead, in key order: the
// jobs the store counts as given up, for an audit against the verdicts.
func (s *Store) DeadPairs() ([]Pair, error) {
	var out []Pair
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDead)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			caseID, oracle, ok := strings.Cut(string(k), "\x00")
			if !ok {
				return fmt.Errorf("%w dead mark %q", errRecord, k)
			}
			out = append(out, Pair{Case: caseID, Oracle: oracle})
			return nil
		})
	})
	return out, err
}
