package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// A worker's word is checked before it counts. Its results wait in the
// held bucket, outside the campaign's verdicts and counters (their pairs
// are still owed), until a spot check of that worker agrees: then they are
// committed as any result is. When a check shows the worker lied, its held
// results are deleted and their pairs judged again by others; nothing it
// said since its last agreed check was ever counted, so nothing has to be
// undone. The coordinator decides what to check (coordinator/rejudge.go).
var (
	bucketHeld   = []byte("held")   // lane \x00 seq -> Held
	bucketChecks = []byte("checks") // check ID -> Check
)

// Held is one result kept until its worker's word is checked.
type Held struct {
	Seq      uint64            `json:"seq"`
	Campaign string            `json:"campaign"`
	Worker   string            `json:"worker"`
	Oracle   string            `json:"oracle"`
	Domain   string            `json:"domain"`
	Verdicts []oracles.Verdict `json:"verdicts"`
	Elapsed  time.Duration     `json:"elapsed"`
	Time     time.Time         `json:"time"`
}

// Lane names what a check vouches for: one worker's verdicts of one oracle
// on one domain.
func (h Held) Lane() string { return Lane(h.Worker, h.Oracle, h.Domain) }

// Lane is the lane of a worker, oracle and domain.
func Lane(worker, oracle, domain string) string { return worker + "\x00" + oracle + "\x00" + domain }

func heldKey(lane string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(lane+"\x00"), seq)
}

// Check is a spot check in flight: cases of a worker's held results, sent
// to another judge. Claims are what the worker said of them; UpTo is the
// last held result of the lane that an agreement releases.
type Check struct {
	ID     string            `json:"id"`
	Lane   string            `json:"lane"`
	Worker string            `json:"worker"`
	Oracle string            `json:"oracle"`
	Domain string            `json:"domain"`
	UpTo   uint64            `json:"up_to"`
	Claims []oracles.Verdict `json:"claims"`
	Sent   time.Time         `json:"sent"`
}

// Quarantine is a worker whose verdict the tool did not reproduce: its
// results are refused from then on.
type Quarantine struct {
	Worker string    `json:"worker"`
	Oracle string    `json:"oracle"`
	Case   string    `json:"case"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

// Hold keeps results until their workers' next agreed checks, numbering
// each in the order it came.
func (s *Store) Hold(hs []Held) ([]Held, error) {
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketHeld)
		if err != nil {
			return err
		}
		for i := range hs {
			if hs[i].Seq, err = b.NextSequence(); err != nil {
				return err
			}
			if err := put(b, heldKey(hs[i].Lane(), hs[i].Seq), hs[i]); err != nil {
				return err
			}
		}
		return countHeld(tx, hs, 1)
	})
	return hs, err
}

// countHeld adds (sign 1) or takes (-1) the held results' verdicts to
// their campaign's held counts: a held verdict is not in the oracle's
// backlog, which generation is paced by, though its pair is still owed.
func countHeld(tx *bolt.Tx, hs []Held, sign int) error {
	for _, h := range hs {
		if err := updateCampaign(tx, h.Campaign, func(c *Campaign) { c.Oracle(h.Oracle).Held += sign * len(h.Verdicts) }); err != nil {
			return err
		}
	}
	return nil
}

// HeldLane is what a lane holds: how many results, since when.
type HeldLane struct {
	Results int
	Oldest  time.Time
}

// heldHead is a held result without its verdicts: what HeldLanes reads.
type heldHead struct {
	Worker string    `json:"worker"`
	Oracle string    `json:"oracle"`
	Domain string    `json:"domain"`
	Time   time.Time `json:"time"`
}

// HeldLanes says what each lane holds.
func (s *Store) HeldLanes() (map[string]HeldLane, error) {
	out := map[string]HeldLane{}
	err := s.view(func(tx *bolt.Tx) error {
		return eachPrefix(tx.Bucket(bucketHeld), nil, "held result", func(_ []byte, h heldHead) error {
			lane := Lane(h.Worker, h.Oracle, h.Domain)
			l := out[lane]
			if l.Results == 0 || h.Time.Before(l.Oldest) {
				l.Oldest = h.Time
			}
			l.Results++
			out[lane] = l
			return nil
		})
	})
	return out, err
}

// HeldOf returns a lane's held results in the order they came.
func (s *Store) HeldOf(lane string) ([]Held, error) {
	var out []Held
	err := s.view(func(tx *bolt.Tx) error {
		return eachPrefix(tx.Bucket(bucketHeld), []byte(lane+"\x00"), "held result", func(_ []byte, h Held) error {
			out = append(out, h)
			return nil
		})
	})
	return out, err
}

// Release commits a lane's held results up to seq, as CommitMany would,
// and forgets them and the lane's check, in one transaction. commitOf
// makes each result's commit.
func (s *Store) Release(lane string, upTo uint64, commitOf func(Held) Commit) ([]Commit, []CommitResult, error) {
	var commits []Commit
	var outs []CommitResult
	err := s.update(func(tx *bolt.Tx) error {
		hs, err := takeHeld(tx, lane, upTo)
		if err != nil {
			return err
		}
		st := newSettler(tx)
		for _, h := range hs {
			c := commitOf(h)
			out, err := commitOne(tx, st, c)
			if err != nil {
				return fmt.Errorf("release held result %d of %q: %w", h.Seq, lane, err)
			}
			commits, outs = append(commits, c), append(outs, out)
		}
		if err := deleteChecks(tx, func(c Check) bool { return c.Lane == lane }); err != nil {
			return err
		}
		return st.flush()
	})
	if err != nil {
		return nil, nil, err
	}
	return commits, outs, nil
}

// takeHeld deletes and returns a lane's held results up to seq.
func takeHeld(tx *bolt.Tx, lane string, upTo uint64) ([]Held, error) {
	return deleteHeld(tx, []byte(lane+"\x00"), func(h Held) bool { return h.Seq <= upTo })
}

// deleteHeld deletes and returns the held results under prefix that take
// selects.
func deleteHeld(tx *bolt.Tx, prefix []byte, take func(Held) bool) ([]Held, error) {
	b := tx.Bucket(bucketHeld)
	if b == nil {
		return nil, nil
	}
	var hs []Held
	var keys [][]byte
	if err := eachPrefix(b, prefix, "held result", func(k []byte, h Held) error {
		if take(h) {
			hs, keys = append(hs, h), append(keys, slices.Clone(k))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return nil, err
		}
	}
	return hs, countHeld(tx, hs, -1)
}

// QuarantineWorker refuses a worker's word from now on: it records q on
// the campaign and deletes the worker's held results and checks, which it
// returns: their pairs are owed again, for other workers to judge.
func (s *Store) QuarantineWorker(campaign string, q Quarantine) ([]Held, error) {
	var dropped []Held
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		if dropped, err = deleteHeld(tx, []byte(q.Worker+"\x00"), func(Held) bool { return true }); err != nil {
			return err
		}
		if err := deleteChecks(tx, func(c Check) bool { return c.Worker == q.Worker }); err != nil {
			return err
		}
		return updateCampaign(tx, campaign, func(c *Campaign) {
			if !c.Quarantined(q.Worker) {
				c.Quarantine = append(c.Quarantine, q)
			}
		})
	})
	return dropped, err
}

// Quarantined reports whether the campaign refuses the worker's word.
func (c Campaign) Quarantined(worker string) bool {
	for _, q := range c.Quarantine {
		if q.Worker == worker {
			return true
		}
	}
	return false
}

// PutCheck records a check sent, replacing the lane's earlier one.
func (s *Store) PutCheck(ck Check) error {
	return s.update(func(tx *bolt.Tx) error {
		if err := deleteChecks(tx, func(c Check) bool { return c.Lane == ck.Lane }); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketChecks)
		if err != nil {
			return err
		}
		return put(b, []byte(ck.ID), ck)
	})
}

// DropCheck forgets a check in flight.
func (s *Store) DropCheck(id string) error {
	return s.update(func(tx *bolt.Tx) error { return deleteChecks(tx, func(c Check) bool { return c.ID == id }) })
}

// Checks lists the checks in flight.
func (s *Store) Checks() ([]Check, error) {
	var out []Check
	err := s.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketChecks); b != nil {
			return each(b, "check", func(c Check) error { out = append(out, c); return nil })
		}
		return nil
	})
	return out, err
}

// deleteChecks deletes the checks drop selects.
func deleteChecks(tx *bolt.Tx, drop func(Check) bool) error {
	b := tx.Bucket(bucketChecks)
	if b == nil {
		return nil
	}
	var keys [][]byte
	if err := each(b, "check", func(c Check) error {
		if drop(c) {
			keys = append(keys, []byte(c.ID))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// errDryRun rolls back a dry run.
var errDryRun = errors.New("dry run")

// DryRun reports what committing the results would change, and commits
// nothing: what a spot check must confirm first (a new bucket).
func (s *Store) DryRun(commits []Commit) ([]CommitResult, error) {
	out := make([]CommitResult, len(commits))
	err := s.db.Update(func(tx *bolt.Tx) error {
		st := newSettler(tx)
		for i, c := range commits {
			res, err := commitOne(tx, st, c)
			if err != nil {
				return err
			}
			out[i] = res
		}
		return errDryRun
	})
	if !errors.Is(err, errDryRun) {
		return nil, s.named(err)
	}
	return out, nil
}
