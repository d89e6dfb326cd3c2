package store

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// WarnSize is the file size past which opening a store warns: at the rate
// docs/nightly.md states, months of nights of a cluster, or a store written
// before schema 3 (every case kept), which `legalfuzz store compact` shrinks.
const WarnSize = 8 << 30

// warnIfLarge logs a warning when the store's file is past WarnSize.
func warnIfLarge(path string) {
	if st, err := os.Stat(path); err == nil && st.Size() > WarnSize {
		slog.Warn("the store is large: reading and copying it is slow (see docs/nightly.md; a store from before schema 3 shrinks with legalfuzz store compact)",
			"path", path, "bytes", st.Size(), "warn_at", int64(WarnSize))
	}
}

// Compacted says what a compaction did.
type Compacted struct {
	Cases   int `json:"cases"`   // cases read
	Settled int `json:"settled"` // folded into their nights' tallies
	Dropped int `json:"dropped"` // of those, dropped
	Kept    int `json:"kept"`    // cases written to the new store
}

// compactBatch is how many cases one write transaction of a compaction holds.
const compactBatch = 5000

// Compact writes a new store at dst (which must not exist) in this
// schema's form: every record of s, except that each settled case no tally
// holds yet is folded into its night's tally and, unless something needs it
// (a finding, the corpus, a seed, an import), dropped, as a campaign of
// this schema would have done when it settled. s is only read, so a store
// written before schema 3 is compacted without being changed.
func (s *Store) Compact(dst string) (Compacted, error) {
	var res Compacted
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("compact into %s: want a path where no file is", dst)
	}
	out, err := OpenStore(dst, time.Second)
	if err != nil {
		return res, err
	}
	defer out.Close()
	for name := range records {
		if name == string(bucketMeta) || name == string(bucketCases) || name == string(bucketVerdicts) {
			continue
		}
		if err := s.copyBucket(out, name); err != nil {
			return res, fmt.Errorf("compact %s: %w", name, err)
		}
	}
	kept, err := s.keptMembers()
	if err != nil {
		return res, err
	}
	c := &compactor{out: out, kept: kept, res: &res}
	if err := s.ForEachCase(c.add); err != nil {
		return res, fmt.Errorf("compact cases: %w", err)
	}
	if err := c.flush(); err != nil {
		return res, err
	}
	return res, out.shrink()
}

// keptMembers returns the members each bucket keeps (KeepMembers of them)
// in a store where buckets kept every member, or where the marks do not
// say which (a store from before CaseRecord.Finding): its example and its
// earliest members by when their case was first seen, the order in which
// a campaign of this schema keeps them.
func (s *Store) keptMembers() (map[string]bool, error) {
	byCase, err := s.Members()
	if err != nil {
		return nil, err
	}
	buckets, err := s.Buckets()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(byCase))
	for id := range byCase {
		ids = append(ids, id)
	}
	recs, err := s.Cases(ids)
	if err != nil {
		return nil, err
	}
	byBucket := map[string][]CaseRecord{}
	for id, keys := range byCase {
		for _, k := range keys {
			if r, ok := recs[id]; ok {
				byBucket[k] = append(byBucket[k], r)
			}
		}
	}
	kept := map[string]bool{}
	for _, b := range buckets {
		kept[b.Example] = true
		ms := byBucket[b.Key]
		slices.SortFunc(ms, func(x, y CaseRecord) int {
			return cmp.Or(x.Seen.Compare(y.Seen), cmp.Compare(x.ID, y.ID))
		})
		for _, r := range ms[:min(len(ms), KeepMembers)] {
			kept[r.ID] = true
		}
	}
	return kept, nil
}

// shrink packs a freshly written store into the least file: bbolt's own
// compaction (every page full, where a store written at random fills its
// pages about half) into a scratch file, then that file's pages and
// nothing after them (bbolt grows a file ahead of its data, 16 MiB at a
// time past that size). A campaign writing to it again grows it as it
// needs.
func (s *Store) shrink() error {
	packed, err := scratch(s.path)
	if err != nil {
		return err
	}
	defer os.Remove(packed)
	dst, err := bolt.Open(packed, 0o644, &bolt.Options{NoSync: true}) // an empty file: bbolt makes it a database
	if err != nil {
		return fmt.Errorf("shrink %s: %w", s.path, err)
	}
	defer dst.Close()
	if err := bolt.Compact(dst, s.db, 64<<20); err != nil {
		return fmt.Errorf("shrink %s: %w", s.path, err)
	}
	tight, err := scratch(s.path)
	if err != nil {
		return err
	}
	defer os.Remove(tight)
	f, err := os.OpenFile(tight, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("shrink %s: %w", s.path, err)
	}
	err = dst.View(func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(f)
		return err
	})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = keepMode(tight, s.path)
	}
	if err != nil {
		return fmt.Errorf("shrink %s: %w", s.path, err)
	}
	return os.Rename(tight, s.path)
}

// scratch makes an empty file of its own beside path (renamed over it or
// removed when done).
func scratch(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".shrink-*")
	if err != nil {
		return "", fmt.Errorf("shrink %s: %w", path, err)
	}
	return f.Name(), f.Close()
}

// keepMode gives the file at path the permissions of the file at like.
func keepMode(path, like string) error {
	st, err := os.Stat(like)
	if err != nil {
		return err
	}
	return os.Chmod(path, st.Mode().Perm())
}

// copyBucket copies bucket name of s into out as it is.
func (s *Store) copyBucket(out *Store, name string) error {
	var keys, vals [][]byte
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(name))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			keys, vals = append(keys, append([]byte(nil), k...)), append(vals, append([]byte{}, v...))
			return nil
		})
	})
	if err != nil {
		return err
	}
	return out.update(func(tx *bolt.Tx) error { return putAll(tx, name, keys, vals) })
}

// compactor writes the cases of a compaction in batches.
type compactor struct {
	out   *Store
	kept  map[string]bool // the bucket members kept (keptMembers)
	res   *Compacted
	batch []caseWithVerdicts
}

type caseWithVerdicts struct {
	rec CaseRecord
	vs  []oracles.Verdict
}

func (c *compactor) add(rec CaseRecord, vs []oracles.Verdict) error {
	c.res.Cases++
	rec.Finding = c.kept[rec.ID]
	c.batch = append(c.batch, caseWithVerdicts{rec, vs})
	if len(c.batch) < compactBatch {
		return nil
	}
	return c.flush()
}

// flush writes the batch: every case with its verdicts, then settles each
// as a commit would.
func (c *compactor) flush() error {
	if len(c.batch) == 0 {
		return nil
	}
	err := c.out.update(func(tx *bolt.Tx) error {
		cases, verdicts := tx.Bucket(bucketCases), tx.Bucket(bucketVerdicts)
		cases.FillPercent, verdicts.FillPercent = 1, 1 // written in key order
		st := newSettler(tx)
		st.compacting = true
		for _, cv := range c.batch {
			if err := put(cases, []byte(cv.rec.ID), cv.rec); err != nil {
				return err
			}
			for _, v := range cv.vs {
				if err := putVerdict(tx, v); err != nil {
					return err
				}
			}
			if err := st.settle(cv.rec.ID); err != nil {
				return err
			}
		}
		return st.flush()
	})
	if err != nil {
		return err
	}
	return c.count()
}

// count adds the batch's outcome to the result.
func (c *compactor) count() error {
	ids := make([]string, len(c.batch))
	for i, cv := range c.batch {
		ids[i] = cv.rec.ID
	}
	kept, err := c.out.Cases(ids)
	if err != nil {
		return err
	}
	for _, cv := range c.batch {
		r, ok := kept[cv.rec.ID]
		switch {
		case !ok:
			c.res.Settled++
			c.res.Dropped++
		case r.Tallied && !cv.rec.Tallied:
			c.res.Settled++
			c.res.Kept++
		default:
			c.res.Kept++
		}
	}
	c.batch = c.batch[:0]
	return nil
}

// Size returns the store file's size and the bytes of its pages in use
// (the file less its free pages): what the data takes, whatever bbolt
// allocated ahead.
func (s *Store) Size() (file, used int64, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		file = tx.Size()
		return nil
	})
	st := s.db.Stats()
	return file, file - int64(st.FreeAlloc), err
}
