// Package regress connects the store to the corpus formats: it selects
// what `legalfuzz corpus export` writes (one case per bucket, or every
// case), imports corpus folders back into a store for the next campaign to
// judge, and distills a store's cases to the fewest that keep its rule
// coverage and its buckets.
package regress

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Store is what regress reads from and writes to: the campaign store.
type Store interface {
	Buckets() ([]store.Bucket, error)
	Case(id string) (store.CaseRecord, bool, error)
	BucketCase(b store.Bucket) (store.CaseRecord, error)
	Verdicts(caseID string) ([]oracles.Verdict, error)
	ForEachCase(f func(store.CaseRecord, []oracles.Verdict) error) error
	Members() (map[string][]string, error)
}

// decode turns a stored case back into a domain case.
func decode(rec store.CaseRecord) (domain.Case, domain.Domain, error) {
	d, v, err := rec.Decode()
	if err != nil {
		return domain.Case{}, d, fmt.Errorf("case %s: %w", rec.ID, err)
	}
	return domain.NewCase(d.Name, v), d, nil
}

// ByBucket selects one entry per bucket, in bucket key order: the bucket's
// minimized case, or its example. Entries are named by bucket key.
func ByBucket(s Store) ([]corpus.Entry, error) {
	buckets, err := s.Buckets()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(buckets, func(a, b store.Bucket) int { return strings.Compare(a.Key, b.Key) })
	var out []corpus.Entry
	for _, b := range buckets {
		rec, err := s.BucketCase(b)
		if err != nil {
			return nil, err
		}
		c, d, err := decode(rec)
		if err != nil {
			return nil, err
		}
		vs, err := s.Verdicts(rec.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, corpus.Entry{Name: b.Key, Case: c, FuzzTarget: d.FuzzTarget, Verdicts: vs,
			Buckets: []corpus.BucketRef{{Key: b.Key, Title: b.Title}}})
	}
	return out, nil
}

// ByIDs selects the stored cases with the given IDs, in that order, with
// the buckets each is a finding (or the minimized case) of: a campaign's
// corpus, for `go test -fuzz` to start from what the judges found new.
// Entries are named by case ID; an ID not stored is an error.
func ByIDs(s Store, ids []string) ([]corpus.Entry, error) {
	refs, err := bucketRefs(s)
	if err != nil {
		return nil, err
	}
	out := make([]corpus.Entry, 0, len(ids))
	for _, id := range ids {
		rec, ok, err := s.Case(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("case %s is not stored", id)
		}
		c, d, err := decode(rec)
		if err != nil {
			return nil, err
		}
		vs, err := s.Verdicts(id)
		if err != nil {
			return nil, err
		}
		out = append(out, corpus.Entry{Name: id, Case: c, FuzzTarget: d.FuzzTarget, Verdicts: vs, Buckets: refs[id]})
	}
	return out, nil
}

// All selects every stored case, in case ID order, with the buckets it is a
// finding (or the minimized case) of. Entries are named by case ID.
func All(s Store) ([]corpus.Entry, error) {
	refs, err := bucketRefs(s)
	if err != nil {
		return nil, err
	}
	var out []corpus.Entry
	err = s.ForEachCase(func(rec store.CaseRecord, vs []oracles.Verdict) error {
		c, d, err := decode(rec)
		if err != nil {
			return err
		}
		out = append(out, corpus.Entry{Name: rec.ID, Case: c, FuzzTarget: d.FuzzTarget, Verdicts: vs, Buckets: refs[rec.ID]})
		return nil
	})
	return out, err
}

// bucketRefs maps each case ID to the buckets it stands for: those it is a
// member of, and those it is the minimized case of.
func bucketRefs(s Store) (map[string][]corpus.BucketRef, error) {
	buckets, err := s.Buckets()
	if err != nil {
		return nil, err
	}
	members, err := s.Members()
	if err != nil {
		return nil, err
	}
	byKey := map[string]store.Bucket{}
	for _, b := range buckets {
		byKey[b.Key] = b
	}
	refs := map[string][]corpus.BucketRef{}
	for id, keys := range members {
		for _, k := range keys {
			refs[id] = append(refs[id], corpus.BucketRef{Key: k, Title: byKey[k].Title})
		}
	}
	for _, b := range buckets {
		if b.Minimized != "" && !slices.ContainsFunc(refs[b.Minimized], func(r corpus.BucketRef) bool { return r.Key == b.Key }) {
			refs[b.Minimized] = append(refs[b.Minimized], corpus.BucketRef{Key: b.Key, Title: b.Title})
		}
	}
	return refs, nil
}

// Adder stores cases; *store.Store is one.
type Adder interface {
	AddCases(campaign string, recs []store.CaseRecord) ([]store.CaseRecord, error)
}

// Imported counts what an import did.
type Imported struct {
	// Read is the number of distinct cases read; Added of those new to the
	// store; Known of those it already held.
	Read, Added, Known int
	// Duplicates are files holding a case another file already held.
	Duplicates int
	// Ignored are files outside every domain folder (LoadTree).
	Ignored int
	// Problems has one error per bad file.
	Problems []error
}

// Import stores the loaded cases with no campaign and Source
// "import:<path>"; the next campaign on their domain adopts and judges them
// (store.Store.AdoptImported).
func Import(s Adder, l corpus.Loaded, now time.Time) (Imported, error) {
	res := Imported{Read: len(l.Cases), Duplicates: l.Duplicates, Problems: l.Problems}
	recs := make([]store.CaseRecord, len(l.Cases))
	for i, c := range l.Cases {
		recs[i] = store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(),
			Source: store.ImportSource + l.Paths[i], Seen: now}
	}
	added, err := s.AddCases("", recs)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	res.Added, res.Known = len(added), len(recs)-len(added)
	return res, nil
}

// Distilled is a distilled selection with its before and after counts.
type Distilled struct {
	Entries []corpus.Entry
	// Cases and Features are the store's; Buckets the buckets among the
	// features. Every feature stays covered by Entries.
	Cases, Features, Buckets int
}

// Features lists what a case covers: one feature per verdict, (domain,
// oracle, verdict kind, rule), and one per bucket it stands for.
func Features(e corpus.Entry) []string {
	var fs []string
	for _, v := range e.Verdicts {
		fs = append(fs, "verdict\x00"+v.Domain+"\x00"+v.Oracle+"\x00"+string(v.Kind)+"\x00"+v.Rule)
	}
	for _, b := range e.Buckets {
		fs = append(fs, "bucket\x00"+b.Key)
	}
	return fs
}

// Distill selects the fewest stored cases (greedy set cover, corpus.Cover)
// that still cover every (domain, oracle, verdict, rule) seen in the store
// and every bucket.
func Distill(s Store) (Distilled, error) {
	all, err := All(s)
	if err != nil {
		return Distilled{}, err
	}
	cands := make([]corpus.Candidate, len(all))
	features := map[string]bool{}
	buckets := 0
	for i, e := range all {
		cands[i] = corpus.Candidate{ID: e.Case.ID, Size: len(e.Case.Value.Encode()), Features: Features(e)}
		for _, f := range cands[i].Features {
			if !features[f] && strings.HasPrefix(f, "bucket\x00") {
				buckets++
			}
			features[f] = true
		}
	}
	d := Distilled{Cases: len(all), Features: len(features), Buckets: buckets}
	for _, i := range corpus.Cover(cands) {
		d.Entries = append(d.Entries, all[i])
	}
	return d, nil
}

// ErrNoBucket is returned for a bucket ID that matches no bucket.
var ErrNoBucket = errors.New("no such bucket")

// FindBucket finds the bucket whose key starts with id; an ID matching more
// than one bucket is an error that names them.
func FindBucket(s Store, id string) (store.Bucket, error) {
	buckets, err := s.Buckets()
	if err != nil {
		return store.Bucket{}, err
	}
	var found []store.Bucket
	for _, b := range buckets {
		if b.Key == id {
			return b, nil
		}
		if id != "" && strings.HasPrefix(b.Key, id) {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return store.Bucket{}, fmt.Errorf("%w: %q", ErrNoBucket, id)
	case 1:
		return found[0], nil
	}
	var keys []string
	for _, b := range found {
		keys = append(keys, b.Key)
	}
	return store.Bucket{}, fmt.Errorf("bucket ID %q is ambiguous: %s", id, strings.Join(keys, ", "))
}
