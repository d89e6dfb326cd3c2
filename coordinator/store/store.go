// Package store is a campaign's record in one bbolt file: its cases,
// every oracle's verdict on them, the buckets their disagreements fall
// into with their members and the versions they were replayed on, the
// dead letters, the nights and the triage. The coordinator is its only
// writer, committing each batch of results in one transaction; reports,
// reproducers and the corpus commands read it. Settled cases are dropped
// and remembered (the seen ledger), so a long campaign's file stays small,
// and a store of an older schema is migrated when it is opened.
package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Bucket names in the bbolt file. The coordinator is its only writer.
var (
	bucketCampaigns   = []byte("campaigns")
	bucketCases       = []byte("cases")
	bucketVerdicts    = []byte("verdicts")    // case \x00 oracle -> verdict
	bucketBuckets     = []byte("buckets")     // signature key -> Bucket
	bucketMembers     = []byte("members")     // signature key \x00 case -> {}
	bucketDeadLetters = []byte("deadletters") // sequence -> DeadLetter
	// coreBuckets make a file a legalfuzz store (schema 1 had just these);
	// allBuckets are what a store of this schema has.
	coreBuckets = [][]byte{bucketCampaigns, bucketCases, bucketVerdicts, bucketBuckets, bucketMembers, bucketDeadLetters}
	allBuckets  = append(coreBuckets[:len(coreBuckets):len(coreBuckets)], bucketFeatures, bucketCorpus, bucketTallies, bucketSeen, bucketVersions, bucketSweeps)
)

// CaseRecord is a stored case.
type CaseRecord struct {
	ID       string    `json:"id"`
	Domain   string    `json:"domain"`
	Data     []byte    `json:"data"` // canonical bytes
	Campaign string    `json:"campaign"`
	Source   string    `json:"source"` // seed, fuzz:<target>, import:<path>
	Seen     time.Time `json:"seen"`
	// Enqueued lists the oracles a job was created for; nil until the case's
	// jobs are on the queue, so a restarted coordinator finds what to enqueue.
	Enqueued []string `json:"enqueued,omitempty"`
	// Finding marks a case one of the members a finding bucket keeps
	// (KeepMembers): kept when it settles.
	Finding bool `json:"finding,omitempty"`
	// Tallied marks a settled case kept in full: its night's tally holds
	// it already (see settle.go).
	Tallied bool `json:"tallied,omitempty"`
}

// minimizedPrefix starts the Source of a case the minimizer stored for a
// bucket; the bucket's key follows.
const minimizedPrefix = "minimized:"

// MinimizedSource is the Source of the minimized case of bucket key: a case
// stored under the bucket's campaign, outside its counters (no job judged
// it; the minimizer's re-checks did).
func MinimizedSource(bucketKey string) string { return minimizedPrefix + bucketKey }

// MinimizedFor reports the bucket the record was minimized for, if it was.
func (r CaseRecord) MinimizedFor() (bucketKey string, ok bool) {
	return strings.CutPrefix(r.Source, minimizedPrefix)
}

// Decode decodes the record's canonical bytes with its domain. Every reader
// of stored cases (reports, reproducers, minimization, regressions) turns a
// record back into a value this way; a record of a domain this build does not
// have is an error naming the domain.
func (r CaseRecord) Decode() (domain.Domain, domain.Value, error) {
	d, ok := fuzz.Lookup(r.Domain)
	if !ok {
		return d, nil, fmt.Errorf("unknown domain %q", r.Domain)
	}
	v, err := d.Decode(r.Data)
	return d, v, err
}

// Bucket groups the findings that share a signature.
type Bucket struct {
	Key       string           `json:"key"`
	Signature policy.Signature `json:"signature"`
	Title     string           `json:"title"`
	// AltTitles are the other diagnostic titles findings of this bucket
	// came with (a tool version's rewording, see diag.AltTitles).
	AltTitles []string  `json:"alt_titles,omitempty"`
	Cases     int       `json:"cases"`
	Example   string    `json:"example"` // first case seen
	Campaign  string    `json:"campaign"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// Minimized is the minimized case's ID once minimization ran; empty before.
	Minimized string `json:"minimized,omitempty"`
	// Reliability is how many of the re-checks of the minimized case showed
	// the same signature, out of ReChecks.
	Reliability int `json:"reliability,omitempty"`
	ReChecks    int `json:"rechecks,omitempty"`
	// MinimizeNote says why a bucket was not minimized, if it was not.
	MinimizeNote string `json:"minimize_note,omitempty"`
	// Versions is what each installed version of the deviating tool's
	// family said of the minimized case (the example when there is none),
	// oldest first: found-in / fixed-in. Empty until replayed.
	Versions []VersionVerdict `json:"versions,omitempty"`
	// Split are the buckets split off this one's example: the witnesses of
	// the other rules it broke that the tool mis-judges alone (issue 36).
	Split []string `json:"split,omitempty"`
	// Nights are the runs that looked at the bucket, oldest first: found
	// by their cases, or replayed at their end (reproduced or fixed), with
	// the tool versions (see History for stores older than this field).
	Nights []Sighting `json:"nights,omitempty"`
}

// DeadLetter is a job or result legalfuzz could not process after bounded
// retries: kept, counted and reported, never dropped silently.
type DeadLetter struct {
	Campaign string    `json:"campaign"`
	Subject  string    `json:"subject"`
	Reason   string    `json:"reason"`
	Data     []byte    `json:"data"`
	Time     time.Time `json:"time"`
	// Message names the stream message the letter records (stream and
	// sequence, see queue.MessageID); empty when it records none (a
	// drain's give-up). A message redelivered after its letter was stored
	// (its ack lost to a crash, or its ack deadline passed while it waited
	// in a busy coordinator's buffer) is recorded and counted once.
	Message string `json:"message,omitempty"`
}

func put(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}

// setMark stores key as a mark (a key whose presence is the fact: a dead
// pair, a bucket's member, a recorded message), and hasMark reads one. A
// mark is written with an empty, non-nil value and read by its key: inside
// the transaction that wrote it, bbolt's Get returns nil for a key put with
// a nil value, and a mark read that way was counted again (a pair dead 100
// times, a case counted twice in a bucket).
func setMark(b *bolt.Bucket, key []byte) error { return b.Put(key, []byte{}) }

// hasMark reports whether b holds key, whatever its value (marks of older
// stores were written with a nil one).
func hasMark(b *bolt.Bucket, key []byte) bool {
	if b == nil {
		return false
	}
	k, _ := b.Cursor().Seek(key)
	return k != nil && string(k) == string(key)
}

func get[T any](b *bolt.Bucket, key []byte) (T, bool, error) {
	var v T
	data := b.Get(key)
	if data == nil {
		return v, false, nil
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, false, fmt.Errorf("%w record %q: %w", errRecord, key, err)
	}
	return v, true, nil
}

// lookup is get in a read transaction of its own: the one record key of
// bucket, with whether it is there.
func lookup[T any](s *Store, bucket []byte, key string) (T, bool, error) {
	var (
		v  T
		ok bool
	)
	err := s.view(func(tx *bolt.Tx) (err error) {
		v, ok, err = get[T](tx.Bucket(bucket), []byte(key))
		return err
	})
	return v, ok, err
}

// each decodes every record of b, in key order, as a T and calls f with it;
// a record that does not decode is an error naming what it is and its key.
// A nil b (a bucket an older store lacks) holds no records.
func each[T any](b *bolt.Bucket, what string, f func(T) error) error {
	return eachPrefix(b, nil, what, func(_ []byte, v T) error { return f(v) })
}

// scan reads, in one read transaction, every record of bucket whose key
// starts with prefix (nil: all of them), in key order.
func scan[T any](s *Store, bucket, prefix []byte, what string) ([]T, error) {
	var out []T
	err := s.view(func(tx *bolt.Tx) error {
		// a schema-1 store, read-only, lacks the newer buckets: none yet
		return eachPrefix(tx.Bucket(bucket), prefix, what, func(_ []byte, v T) error {
			out = append(out, v)
			return nil
		})
	})
	return out, err
}

// eachPrefix is each over the records whose keys start with prefix (a
// campaign's, a case's), with their keys. It is the one walk over a
// bucket's JSON records, as get is the one read of a record.
func eachPrefix[T any](b *bolt.Bucket, prefix []byte, what string, f func(k []byte, v T) error) error {
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, data := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, data = c.Next() {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("%w %s %q: %w", errRecord, what, clip.To(string(k), 256), err)
		}
		if err := f(k, v); err != nil {
			return err
		}
	}
	return nil
}

// AddCases stores the cases not yet known (stored, or settled and dropped), counts them in the campaign, and
// returns those, in order. A minimized case is stored though it was settled
// and dropped: its bucket names it, and the minimizer often shrinks a case to
// one the campaign generated (make campaign stopped on "case ... missing"
// when it replayed such a bucket). So is a lattice sweep's row: every judge
// judges every row, and a case the campaign had made otherwise and dropped
// may not have been judged by all (a sampled judge's sample left it out).
func (s *Store) AddCases(campaign string, recs []CaseRecord) ([]CaseRecord, error) {
	var added []CaseRecord
	err := s.update(func(tx *bolt.Tx) error {
		added = added[:0]
		b, seen := tx.Bucket(bucketCases), tx.Bucket(bucketSeen)
		for _, r := range recs {
			_, minimized := r.MinimizedFor()
			if b.Get([]byte(r.ID)) != nil || hasMark(seen, seenKey(r.ID)) && !minimized && r.Source != SweepSource {
				continue
			}
			if err := put(b, []byte(r.ID), r); err != nil {
				return err
			}
			added = append(added, r)
		}
		return countCases(tx, campaign, added)
	})
	return added, err
}

// countCases counts recs, new to campaign, in its stats, in all and per
// domain: a campaign gains cases two ways, adding new ones and adopting
// imported ones, and both count them alike.
func countCases(tx *bolt.Tx, campaign string, recs []CaseRecord) error {
	return updateCampaign(tx, campaign, func(c *Campaign) {
		c.Stats.Cases += len(recs)
		for _, r := range recs {
			c.Domain(r.Domain).Cases++
		}
	})
}

// MarkEnqueued records that jobs were created for each case (by ID) for the
// listed oracles. Call it after the jobs are on the queue: a crash in between
// enqueues them again, and duplicate verdicts are skipped on commit. A case
// all of whose verdicts came first gets its verdict vector counted here.
//
// An oracle added to a case already marked may have judged it already,
// outside the campaign's jobs: a found-in replay of a bucket whose example
// the sampled judge had been left out of. Its verdict is counted judged
// here, since the job's own verdict will be a duplicate the commit skips
// (it was counted owed forever, and the drain waited its whole timeout).
//
// A case already marked gains the oracles it lacked: two producers that made
// the same case both publish its jobs, one of them to a sampled judge the
// other left out (its backlog was full), and whichever marks second must not
// turn that judge's verdict into a dead letter.
func (s *Store) MarkEnqueued(campaign string, oraclesByCase map[string][]string) error {
	now := time.Now().UTC()
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCases)
		n := 0
		perOracle, judged := map[string]int{}, map[string]int{}
		var res CommitResult
		st := newSettler(tx)
		for id, orcs := range oraclesByCase {
			r, ok, err := get[CaseRecord](b, []byte(id))
			if err != nil {
				return err
			}
			added := slices.DeleteFunc(slices.Clone(orcs), func(o string) bool { return slices.Contains(r.Enqueued, o) })
			if !ok || r.Enqueued != nil && len(added) == 0 {
				continue
			}
			for _, o := range added {
				if r.Enqueued != nil && tx.Bucket(bucketVerdicts).Get(verdictKey(id, o)) != nil {
					judged[o]++
				}
			}
			r.Enqueued = append(slices.Clip(r.Enqueued), added...)
			if r.Enqueued == nil {
				r.Enqueued = []string{}
			}
			n += len(added)
			for _, o := range added {
				perOracle[o]++
			}
			if err := put(b, []byte(id), r); err != nil {
				return err
			}
			if err := lateVector(tx, campaign, now, r, &res); err != nil {
				return err
			}
			if err := st.settle(id); err != nil {
				return err
			}
		}
		if err := st.flush(); err != nil {
			return err
		}
		return updateCampaign(tx, campaign, func(c *Campaign) {
			c.Stats.Enqueued += n
			for o, k := range perOracle {
				c.Oracle(o).Enqueued += k
			}
			for o, k := range judged {
				c.Stats.Judged += k
				c.Oracle(o).Judged += k
			}
			res.countSignal(c)
		})
	})
}

// Unenqueued returns a campaign's cases whose jobs were never created;
// the cases the minimizer stored under its name never have any.
func (s *Store) Unenqueued(campaign string) ([]CaseRecord, error) {
	var out []CaseRecord
	err := s.view(func(tx *bolt.Tx) error {
		return each(tx.Bucket(bucketCases), "case", func(r CaseRecord) error {
			if r.Campaign == campaign && r.Enqueued == nil && !r.ByMinimizer() {
				out = append(out, r)
			}
			return nil
		})
	})
	return out, err
}

// Case returns a stored case.
func (s *Store) Case(id string) (CaseRecord, bool, error) {
	return lookup[CaseRecord](s, bucketCases, id)
}

// BucketCase is the case that stands for a bucket: its minimized case when
// minimization stored one, else its example (a store written before
// minimized cases were kept whatever the night dropped may lack the first).
func (s *Store) BucketCase(b Bucket) (CaseRecord, error) {
	for _, id := range []string{b.Minimized, b.Example} {
		if id == "" {
			continue
		}
		rec, ok, err := s.Case(id)
		if err != nil {
			return rec, err
		}
		if ok {
			return rec, nil
		}
	}
	return CaseRecord{}, fmt.Errorf("bucket %s: neither its minimized case %q nor its example %q is stored", b.Key, b.Minimized, b.Example)
}

func verdictKey(caseID, oracle string) []byte { return []byte(caseID + "\x00" + oracle) }

// storedVerdict is a verdict as the verdicts bucket holds it: its case and
// oracle are its key's (verdictKey), its tool version is named by its key
// in the versions bucket (an mlir-opt version names its pass pipeline, 190
// bytes), and the fields it lacks are left out: a third of a kept case's
// verdicts. Records of older stores, with every field, read the same
// (readVerdict).
type storedVerdict struct {
	Version    string       `json:"version,omitempty"` // records before the versions bucket
	VersionKey string       `json:"vk,omitempty"`
	Domain     string       `json:"domain,omitempty"`
	Kind       oracles.Kind `json:"verdict"`
	Rule       string       `json:"rule,omitempty"`
	Diagnostic string       `json:"diagnostic,omitempty"`
	Value      string       `json:"value,omitempty"`
}

// bucketVersions holds each tool version string once, by versionKey.
var bucketVersions = []byte("versions")

// versionKey is the versions bucket's key of a version string: 8 bytes of
// its hash (two versions collide with probability n²/2⁶⁵).
func versionKey(version string) []byte {
	h := sha256.Sum256([]byte(version))
	return h[:8]
}

// putVerdict stores v under its case and oracle, and its version once.
func putVerdict(tx *bolt.Tx, v oracles.Verdict) error {
	sv := storedVerdict{Domain: v.Domain, Kind: v.Kind, Rule: v.Rule, Diagnostic: v.Diagnostic, Value: v.Value}
	if v.Version != "" {
		k := versionKey(v.Version)
		if vb := tx.Bucket(bucketVersions); vb.Get(k) == nil {
			if err := vb.Put(k, []byte(v.Version)); err != nil {
				return err
			}
		}
		sv.VersionKey = hex.EncodeToString(k)
	}
	return put(tx.Bucket(bucketVerdicts), verdictKey(v.Case, v.Oracle), sv)
}

// readVerdict decodes the verdict stored under key k: its case and oracle
// from the key, its version from the versions bucket (or the record, in an
// older one).
func readVerdict(tx *bolt.Tx, k, data []byte) (oracles.Verdict, error) {
	var sv storedVerdict
	if err := json.Unmarshal(data, &sv); err != nil {
		return oracles.Verdict{}, fmt.Errorf("%w verdict %q: %w", errRecord, k, err)
	}
	caseID, oracle, _ := strings.Cut(string(k), "\x00")
	v := oracles.Verdict{Oracle: oracle, Version: sv.Version, Case: caseID, Domain: sv.Domain, Kind: sv.Kind,
		Rule: sv.Rule, Diagnostic: sv.Diagnostic, Value: sv.Value}
	if sv.VersionKey != "" {
		key, err := hex.DecodeString(sv.VersionKey)
		var version []byte
		if vb := tx.Bucket(bucketVersions); err == nil && vb != nil {
			version = vb.Get(key)
		}
		if version == nil {
			return v, fmt.Errorf("%w verdict %q: no version %q in the store", errRecord, k, sv.VersionKey)
		}
		v.Version = string(version)
	}
	return v, nil
}

// Commit is what one result changes, written in one transaction so that a
// result is either wholly recorded or not at all.
type Commit struct {
	Verdicts []oracles.Verdict
	// Judged receives, for every verdict newly stored, its case (decoded
	// from the store when it holds it, else only its ID and domain) and its
	// verdicts so far; it returns the disagreements to record (may be nil).
	Judged func(c domain.Case, verdicts []oracles.Verdict) []policy.Disagreement
	// Campaign and Now stamp new buckets; the campaign's stats are updated.
	Campaign string
	Now      time.Time
	// Oracle and Elapsed are the result's oracle and its time on the batch.
	Oracle  string
	Elapsed time.Duration
}

// CommitResult is what a Commit changed.
type CommitResult struct {
	// Stored counts the verdicts newly stored; verdicts already present (a
	// redelivered result) are skipped, so nothing is counted twice.
	Stored     int
	NewBuckets []Bucket
	// Findings counts the (bucket, case) findings newly recorded, in new or
	// known buckets; a finding re-evaluated after a later verdict of its case
	// is not counted again.
	Findings int
	// Revived counts verdicts for pairs marked dead before they came.
	Revived int
	// NewFeatures counts the features the campaign saw first in this
	// commit; NewCorpus lists the cases that joined its corpus.
	NewFeatures int
	NewCorpus   []CorpusEntry
	// featuresByDomain counts NewFeatures by the domain of their case.
	featuresByDomain map[string]int
}

// CommitVerdicts stores a result's verdicts, idempotently, and the findings
// they complete, in one transaction.
func (s *Store) CommitVerdicts(c Commit) (CommitResult, error) {
	res, err := s.CommitMany([]Commit{c})
	if err != nil {
		return CommitResult{}, err
	}
	return res[0], nil
}

// CommitMany stores several results in one transaction: one disk sync for
// all of them, which is what lets the coordinator keep up with many
// workers. Each commit is applied as CommitVerdicts would; a failure
// commits none of them.
//
// A commit that cannot be stored for a reason of its own is named by a
// *ResultError, so that the caller can commit the others without it.
func (s *Store) CommitMany(commits []Commit) ([]CommitResult, error) {
	out := make([]CommitResult, len(commits))
	err := s.update(func(tx *bolt.Tx) error {
		st := newSettler(tx)
		for i, c := range commits {
			res, err := commitOne(tx, st, c)
			if ownFault(err) {
				return &ResultError{Index: i, Err: err}
			}
			if err != nil {
				return fmt.Errorf("commit result %d: %w", i, err)
			}
			out[i] = res
		}
		return st.flush()
	})
	return out, err
}

// ResultError is CommitMany's error when the commit at Index cannot be
// stored for a reason of its own (a key or value bbolt refuses, a value
// that does not encode): nothing was committed, and the other commits can
// be without it. Retrying it can never succeed.
type ResultError struct {
	Index int
	Err   error
}

func (e *ResultError) Error() string {
	return fmt.Sprintf("result %d cannot be stored: %v", e.Index, e.Err)
}

func (e *ResultError) Unwrap() error { return e.Err }

// ownFault reports whether err, met while a commit was applied, is the
// commit's own fault: what it asked to store, not the store, is wrong.
func ownFault(err error) bool {
	var (
		unsupportedValue *json.UnsupportedValueError
		unsupportedType  *json.UnsupportedTypeError
		marshaler        *json.MarshalerError
	)
	return errors.Is(err, bolterrors.ErrKeyTooLarge) || errors.Is(err, bolterrors.ErrValueTooLarge) ||
		errors.Is(err, bolterrors.ErrKeyRequired) ||
		errors.As(err, &unsupportedValue) || errors.As(err, &unsupportedType) || errors.As(err, &marshaler)
}

// commitOne applies one result inside tx, and settles the cases it
// completed.
func commitOne(tx *bolt.Tx, st *settler, c Commit) (CommitResult, error) {
	var res CommitResult
	vb := tx.Bucket(bucketVerdicts)
	touched := map[string]bool{}
	var stored []oracles.Verdict
	disagreeing := map[string]bool{}
	for _, v := range c.Verdicts {
		key := verdictKey(v.Case, v.Oracle)
		if vb.Get(key) != nil || dropped(tx, v.Case) {
			continue
		}
		if c.Campaign == "" && owedToCampaign(tx, v) {
			continue
		}
		if err := putVerdict(tx, v); err != nil {
			return res, err
		}
		res.Stored++
		if was, err := revive(tx, key); err != nil {
			return res, err
		} else if was {
			res.Revived++
		}
		touched[v.Case] = true
		stored = append(stored, v)
	}
	if c.Judged != nil {
		if err := commitFindings(tx, c, touched, disagreeing, &res); err != nil {
			return res, err
		}
	}
	if err := commitSignal(tx, c, stored, disagreeing, &res); err != nil {
		return res, err
	}
	for id := range touched {
		if err := st.settle(id); err != nil {
			return res, err
		}
	}
	return res, updateCampaign(tx, c.Campaign, func(camp *Campaign) {
		camp.Stats.Judged += res.Stored
		camp.Stats.DeadCases -= res.Revived
		camp.Stats.Findings += res.Findings
		camp.Stats.NewBuckets += len(res.NewBuckets)
		res.countSignal(camp)
		if c.Oracle != "" {
			o := camp.Oracle(c.Oracle)
			o.Judged += res.Stored
			o.Elapsed += c.Elapsed
		}
		for _, v := range stored {
			o := camp.Oracle(v.Oracle)
			if o.Kinds == nil {
				o.Kinds = map[oracles.Kind]int{}
			}
			o.Kinds[v.Kind]++
			o.Version = v.Version
		}
		for _, b := range res.NewBuckets {
			camp.Domain(b.Signature.Domain).NewBuckets++
		}
	})
}

// commitFindings records the findings completed by the touched cases, and
// marks in disagreeing the cases found in a finding.
func commitFindings(tx *bolt.Tx, c Commit, touched, disagreeing map[string]bool, res *CommitResult) error {
	for caseID := range touched {
		vs, err := caseVerdicts(tx, caseID)
		if err != nil {
			return err
		}
		for _, d := range c.Judged(storedCase(tx, caseID, vs), vs) {
			if !d.Finding() {
				continue
			}
			disagreeing[caseID] = true
			b, isNew, newMember, err := recordFinding(tx, d, c.Campaign, c.Now)
			if err != nil {
				return err
			}
			if newMember && b.Cases <= KeepMembers {
				if err := markFinding(tx, caseID); err != nil {
					return err
				}
			}
			if newMember { // a case re-evaluated after a later verdict is not a new finding
				res.Findings++
			}
			if isNew {
				res.NewBuckets = append(res.NewBuckets, b)
			}
		}
	}
	return nil
}

// KeepMembers is how many members of a finding bucket the store keeps
// with their verdicts: the first ones to join it (its example among them),
// as syzkaller keeps a few logs of each crash. Its minimized case is kept
// besides. Every other member is counted in the bucket (Bucket.Cases) and
// named in its member marks, and settles like any other case: its
// verdicts are counted in its night's tally and dropped.
const KeepMembers = 8

// markFinding marks a stored case as a member its bucket keeps, to be kept
// when it settles.
func markFinding(tx *bolt.Tx, caseID string) error {
	b := tx.Bucket(bucketCases)
	rec, ok, err := get[CaseRecord](b, []byte(caseID))
	if err != nil || !ok || rec.Finding {
		return err
	}
	rec.Finding = true
	return put(b, []byte(caseID), rec)
}

// storedCase is the case with its decoded value when the store holds it
// (a condition of an expectation reads it), else its ID and the verdicts'
// domain.
func storedCase(tx *bolt.Tx, caseID string, vs []oracles.Verdict) domain.Case {
	c := domain.Case{ID: caseID}
	if len(vs) > 0 {
		c.Domain = vs[0].Domain
	}
	rec, ok, err := get[CaseRecord](tx.Bucket(bucketCases), []byte(caseID))
	if err != nil || !ok {
		return c
	}
	if _, v, err := rec.Decode(); err == nil {
		c.Domain, c.Value = rec.Domain, v
	}
	return c
}

func caseVerdicts(tx *bolt.Tx, caseID string) ([]oracles.Verdict, error) {
	var out []oracles.Verdict
	prefix := []byte(caseID + "\x00")
	c := tx.Bucket(bucketVerdicts).Cursor()
	for k, data := c.Seek(prefix); k != nil && hasPrefix(k, prefix); k, data = c.Next() {
		v, err := readVerdict(tx, k, data)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// bucketAliases maps the keys a signature has under its alternative titles
// (Signature.AltKeys) to the bucket that holds it. Created on first use.
var bucketAliases = []byte("bucket-aliases")

// recordFinding adds one disagreement to its bucket; a case counts once per
// bucket. A signature whose key has no bucket joins the bucket one of its
// alternative keys leads to, if any. It reports whether the bucket and the
// (bucket, case) member are new.
func recordFinding(tx *bolt.Tx, d policy.Disagreement, campaign string, now time.Time) (b Bucket, isNew, newMember bool, err error) {
	sig := policy.SignatureOf(d)
	bb := tx.Bucket(bucketBuckets)
	aliases, err := tx.CreateBucketIfNotExists(bucketAliases)
	if err != nil {
		return b, false, false, err
	}
	key, exists := resolveBucket(bb, aliases, sig)
	if exists {
		if b, _, err = get[Bucket](bb, []byte(key)); err != nil {
			return b, false, false, err
		}
		if sig.Diag != b.Signature.Diag && !slices.Contains(b.AltTitles, sig.Diag) {
			b.AltTitles = append(b.AltTitles, sig.Diag)
		}
	} else {
		b = Bucket{Key: key, Signature: sig, Title: sig.Title(), Example: d.Case, Campaign: campaign, FirstSeen: now}
	}
	for _, k := range append(sig.AltKeys(), sig.Key()) {
		if k != key && aliases.Get([]byte(k)) == nil {
			if err := aliases.Put([]byte(k), []byte(key)); err != nil {
				return b, false, false, err
			}
		}
	}
	member := []byte(key + "\x00" + d.Case)
	mb := tx.Bucket(bucketMembers)
	if !hasMark(mb, member) {
		if err := setMark(mb, member); err != nil {
			return b, false, false, err
		}
		b.Cases++
		newMember = true
	}
	b.LastSeen = now
	if exists && len(b.Nights) == 0 {
		b.Nights = b.History() // a bucket stored before nights were recorded
	}
	b.see(sightingOf(d, campaign, now))
	return b, !exists, newMember, put(bb, []byte(key), b)
}

// resolveBucket finds the bucket key of a signature: its own key, or the
// bucket an alias of its key or of one of its alternative keys names. When
// none exists it returns the signature's own key and false.
func resolveBucket(bb, aliases *bolt.Bucket, sig policy.Signature) (string, bool) {
	for _, k := range append([]string{sig.Key()}, sig.AltKeys()...) {
		if bb.Get([]byte(k)) != nil {
			return k, true
		}
		if to := aliases.Get([]byte(k)); to != nil && bb.Get(to) != nil {
			return string(to), true
		}
	}
	return sig.Key(), false
}

// PutBucket stores the minimizer's and the replays' results on a bucket.
// What the campaign's commits wrote on it since b was read is kept
// (mergeCommitted): a bucket is minimized while its cases still come.
func (s *Store) PutBucket(b Bucket) error {
	return s.update(func(tx *bolt.Tx) error {
		bb := tx.Bucket(bucketBuckets)
		stored, ok, err := get[Bucket](bb, []byte(b.Key))
		if err != nil {
			return err
		}
		if ok {
			b = mergeCommitted(b, stored)
		} else if to := resolveKey(tx, b.Key); to != b.Key {
			// Merged away since b was read (a minimization re-keyed it):
			// what b saw joins the bucket it became, which keeps its own
			// signature and minimization, instead of b coming back.
			target, ok, err := get[Bucket](bb, []byte(to))
			if err != nil || !ok {
				return errors.Join(fmt.Errorf("bucket %s merged into %s, which is missing", b.Key, to), err)
			}
			b = mergeCommitted(target, b)
		}
		return put(bb, []byte(b.Key), b)
	})
}

// Verdicts returns a case's stored verdicts.
func (s *Store) Verdicts(caseID string) ([]oracles.Verdict, error) {
	var out []oracles.Verdict
	err := s.view(func(tx *bolt.Tx) (err error) {
		out, err = caseVerdicts(tx, caseID)
		return err
	})
	return out, err
}

// Buckets returns every finding bucket.
func (s *Store) Buckets() ([]Bucket, error) {
	return scan[Bucket](s, bucketBuckets, nil, "bucket")
}

// AddDeadLetter records an unprocessable message, and as dead those of its
// (case, oracle) pairs that its campaign enqueued and has not judged: the
// jobs it takes out of the outstanding work. A dead letter's claim about
// itself counts for nothing.
func (s *Store) AddDeadLetter(d DeadLetter, pairs []Pair) error {
	return s.AddDeadLetters([]DeadLetter{d}, [][]Pair{pairs})
}

// AddDeadLetters records several dead letters, pairs[i] those of ds[i], as
// AddDeadLetter would, in one transaction: one disk sync for a fetch of
// garbage, so that a storm of it does not hold up the results behind it.
func (s *Store) AddDeadLetters(ds []DeadLetter, pairs [][]Pair) error {
	return s.update(func(tx *bolt.Tx) error {
		for i, d := range ds {
			if err := addDeadLetter(tx, d, pairs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func addDeadLetter(tx *bolt.Tx, d DeadLetter, pairs []Pair) error {
	d.Reason = clip.Text(d.Reason) // it may quote what a worker sent; Data keeps the message
	if seen, err := seenMessage(tx, d); err != nil || seen {
		return err
	}
	deadCases, err := markDead(tx, d.Campaign, pairs)
	if err != nil {
		return err
	}
	b := tx.Bucket(bucketDeadLetters)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	if err := put(b, binary.BigEndian.AppendUint64(nil, seq), d); err != nil {
		return err
	}
	camp := d.Campaign
	if tx.Bucket(bucketCampaigns).Get([]byte(camp)) == nil {
		camp = "" // unknown campaign (garbage): recorded, counted nowhere
	}
	return updateCampaign(tx, camp, func(c *Campaign) {
		c.Stats.DeadLetters++
		c.Stats.DeadCases += deadCases
	})
}

// DeadLetters returns every dead letter, oldest first.
func (s *Store) DeadLetters() ([]DeadLetter, error) {
	return scan[DeadLetter](s, bucketDeadLetters, nil, "dead letter")
}

// Counts returns how many cases and verdicts the store holds.
func (s *Store) Counts() (cases, verdicts int, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		cases = tx.Bucket(bucketCases).Stats().KeyN
		verdicts = tx.Bucket(bucketVerdicts).Stats().KeyN
		return nil
	})
	return cases, verdicts, err
}
