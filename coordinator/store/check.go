package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Check runs bbolt's consistency check over the whole file.
func (s *Store) Check() error {
	return s.view(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// Verify is what a reader runs before it trusts what it reads: bbolt's
// check of every page (seconds on a GB store), without decoding the
// records. A damaged page is ErrCorrupt naming the store and store check,
// whichever of its records the reader would have gone on to read (triage
// reads only the buckets, and so missed damage store check found).
func (s *Store) Verify() error {
	err := s.Check()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		err = corrupt(s.path, clip.Text(err.Error()))
	}
	return err
}

// records says how each bucket's values decode; members hold no value.
var records = map[string]func([]byte) error{
	string(bucketCampaigns):      decodes[Campaign],
	string(bucketCases):          decodes[CaseRecord],
	string(bucketVerdicts):       decodes[oracles.Verdict],
	string(bucketBuckets):        decodes[Bucket],
	string(bucketMembers):        func([]byte) error { return nil },
	string(bucketDeadLetters):    decodes[DeadLetter],
	string(bucketSuppressions):   decodes[Suppression],
	string(bucketMeta):           func([]byte) error { return nil },
	string(bucketAliases):        func([]byte) error { return nil },
	string(bucketDead):           func([]byte) error { return nil },
	string(bucketLetterMessages): func([]byte) error { return nil },
	string(bucketFeatures):       decodes[Feature],
	string(bucketCorpus):         decodes[CorpusEntry],
	string(bucketTallies):        decodes[Night],
	string(bucketSeen):           func([]byte) error { return nil },
	string(bucketVersions):       func([]byte) error { return nil },
	string(bucketSweeps):         decodes[Sweep],
	string(bucketHeld):           decodes[Held],
	string(bucketChecks):         decodes[Check],
}

func decodes[T any](data []byte) error {
	var v T
	return json.Unmarshal(data, &v)
}

// Inspect reports every damage it finds: bbolt's consistency check, then
// every record that does not decode. No damage is an empty list.
func (s *Store) Inspect() []string {
	var damage []string
	if err := s.view(s.checkSize); err != nil {
		damage = append(damage, err.Error()) // bbolt's check would fault on the missing pages
	} else if err := s.Check(); err != nil {
		damage = append(damage, "bbolt: "+err.Error())
	}
	for name := range records {
		bad, err := s.readRecords(name, func(k, v []byte) {})
		damage = append(damage, bad...)
		if err != nil {
			damage = append(damage, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return damage
}

// readRecords calls keep with every record of the named bucket that decodes
// and returns a line for each that does not. A read that hits damaged pages
// stops with an error; what was read before it was kept.
func (s *Store) readRecords(name string, keep func(k, v []byte)) (bad []string, err error) {
	decode := records[name]
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(name))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			if err := decode(v); err != nil {
				bad = append(bad, fmt.Sprintf("%s %q: %v", name, k, err))
				return nil
			}
			keep(k, v)
			return nil
		})
	})
	return bad, err
}

// Salvaged says what a salvage copied and what it lost, per bucket.
type Salvaged struct {
	Copied map[string]int `json:"copied"`
	Lost   []string       `json:"lost,omitempty"`
}

// Salvage copies every record of s that still reads and decodes into a new
// store at dst, bucket by bucket, and says what was lost. A bucket whose
// pages are damaged keeps what was read before the damage.
func (s *Store) Salvage(dst string) (Salvaged, error) {
	out, err := OpenStore(dst, time.Second)
	if err != nil {
		return Salvaged{}, err
	}
	defer out.Close()
	res := Salvaged{Copied: map[string]int{}}
	for name := range records {
		if name == string(bucketMeta) {
			continue
		}
		var keys, vals [][]byte
		bad, err := s.readRecords(name, func(k, v []byte) {
			keys, vals = append(keys, append([]byte(nil), k...)), append(vals, append([]byte(nil), v...))
		})
		res.Lost = append(res.Lost, bad...)
		if err != nil {
			res.Lost = append(res.Lost, fmt.Sprintf("%s after %d records: %v", name, len(keys), err))
		}
		if err := out.update(func(tx *bolt.Tx) error { return putAll(tx, name, keys, vals) }); err != nil {
			return res, fmt.Errorf("salvage into %s: %w", dst, err)
		}
		res.Copied[name] = len(keys)
	}
	return res, nil
}

func putAll(tx *bolt.Tx, name string, keys, vals [][]byte) error {
	b, err := tx.CreateBucketIfNotExists([]byte(name))
	if err != nil {
		return err
	}
	b.FillPercent = 1 // keys come in key order: full pages, half the file
	for i, k := range keys {
		if err := b.Put(k, vals[i]); err != nil {
			return err
		}
	}
	if name == string(bucketDeadLetters) && len(keys) > 0 { // keys are sequence numbers: go on after the last
		return b.SetSequence(binary.BigEndian.Uint64(keys[len(keys)-1]))
	}
	return nil
}
