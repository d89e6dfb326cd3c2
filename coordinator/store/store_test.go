package store_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestAddCasesDedups(t *testing.T) {
	s := storetest.Open(t, "")
	recs := []store.CaseRecord{{ID: "a", Domain: "d"}, {ID: "b", Domain: "d"}}
	added, err := s.AddCases("", recs)
	if err != nil || len(added) != 2 {
		t.Fatalf("first add: %v %v", added, err)
	}
	added, err = s.AddCases("", append(recs, store.CaseRecord{ID: "c", Domain: "d"}))
	if err != nil || len(added) != 1 || added[0].ID != "c" {
		t.Fatalf("second add = %v %v, want only c", added, err)
	}
}

// TestCommitVerdictsIdempotent: a redelivered result changes nothing, so a
// crash between commit and ack never double-counts.
func TestCommitVerdictsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	pol := policy.Policy{Domain: "d", Judges: []string{"ptxas"}}
	commit := store.Commit{
		Verdicts: []oracles.Verdict{
			{Oracle: oracles.SpecPTXISA, Case: "c1", Domain: "d", Kind: oracles.Reject, Rule: "ptxisa.d.r"},
			{Oracle: "ptxas", Case: "c1", Domain: "d", Kind: oracles.Accept},
		},
		Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) },
		Now:    time.Unix(100, 0),
	}
	res, err := s.CommitVerdicts(commit)
	if err != nil || res.Stored != 2 || res.Findings != 1 || len(res.NewBuckets) != 1 {
		t.Fatalf("first commit = %+v, %v; want 2 stored, 1 finding, 1 new bucket", res, err)
	}
	res, err = s.CommitVerdicts(commit)
	if err != nil || res.Stored != 0 || res.Findings != 0 || len(res.NewBuckets) != 0 {
		t.Fatalf("redelivered commit = %+v, %v; want nothing changed", res, err)
	}
	// The same finding on a second case joins the bucket.
	commit.Verdicts[0].Case, commit.Verdicts[1].Case = "c2", "c2"
	if res, err = s.CommitVerdicts(commit); err != nil || len(res.NewBuckets) != 0 || res.Findings != 1 {
		t.Fatalf("second case = %+v, %v; want a finding in the known bucket", res, err)
	}
	// Everything survives a reopen.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := storetest.Open(t, path)
	buckets, err := s2.Buckets()
	if err != nil || len(buckets) != 1 || buckets[0].Cases != 2 || buckets[0].Example != "c1" {
		t.Fatalf("buckets after reopen = %+v, %v; want one bucket of 2 cases", buckets, err)
	}
	vs, err := s2.Verdicts("c2")
	if err != nil || len(vs) != 2 {
		t.Fatalf("verdicts of c2 = %v, %v", vs, err)
	}
}

func TestDeadLetters(t *testing.T) {
	s := storetest.Open(t, "")
	for _, reason := range []string{"garbage", "poison"} {
		if err := s.AddDeadLetter(store.DeadLetter{Subject: "jobs.x", Reason: reason}, nil); err != nil {
			t.Fatal(err)
		}
	}
	dls, err := s.DeadLetters()
	if err != nil || len(dls) != 2 || dls[0].Reason != "garbage" || dls[1].Reason != "poison" {
		t.Fatalf("dead letters = %+v, %v", dls, err)
	}
}

// TestRewordedDiagnosticJoinsItsBucket: mlir-opt 22 words one nvvm check
// with a clause mlir-opt 19 lacks (oracles/diag/testdata); the two findings
// are one bucket, which keeps the other title, in either order. Another
// check's message makes its own bucket.
func TestRewordedDiagnosticJoinsItsBucket(t *testing.T) {
	const (
		v19   = "error: 'nvvm.ldmatrix' op expected num attribute to be 1, 2 or 4"
		v22   = "error: 'nvvm.ldmatrix' op expected num attribute to be 1, 2 or 4 for 8x8 matrix"
		other = "error: 'nvvm.ldmatrix' op expected destination type is a structure of 4 elements of type i32"
	)
	pol := policy.Policy{Domain: "ldsm", Judges: []string{oracles.MLIR}}
	for _, order := range [][]string{{v19, v22, other}, {v22, v19, other}} {
		s := storetest.Open(t, "")
		for i, text := range order {
			id := string(rune('a' + i))
			_, err := s.CommitVerdicts(store.Commit{Now: time.Unix(100, 0),
				Verdicts: []oracles.Verdict{
					{Oracle: oracles.SpecPTXISA, Case: id, Domain: "ldsm", Kind: oracles.Accept, Rule: "ptxisa.ldsm"},
					{Oracle: oracles.MLIR, Case: id, Domain: "ldsm", Kind: oracles.Reject, Rule: "lowering", Diagnostic: text},
				},
				Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }})
			if err != nil {
				t.Fatal(err)
			}
		}
		buckets, err := s.Buckets()
		if err != nil || len(buckets) != 2 {
			t.Fatalf("order %q: buckets = %+v, %v; want the reworded pair in one and the other check in another", order, buckets, err)
		}
		for _, b := range buckets {
			if b.Cases == 2 && len(b.AltTitles) != 1 {
				t.Errorf("order %q: the joined bucket keeps %q as alternative titles, want the other version's", order, b.AltTitles)
			}
		}
	}
}

// TestDeadLetterRedelivered: a stream message recorded as a dead letter and
// delivered again (its Term lost to a crash, or its ack deadline passed
// while it waited behind a backlog: 223 of 4,950 storm messages in a
// one-minute soak) is recorded and counted once; a different message that
// reuses the sequence (the NATS data lost, sequences restarted) is not
// taken for it.
func TestDeadLetterRedelivered(t *testing.T) {
	s := storetest.Open(t, "")
	if err := s.PutCampaign(store.Campaign{ID: "c", State: store.StateRunning}); err != nil {
		t.Fatal(err)
	}
	dl := store.DeadLetter{Campaign: "c", Subject: "results.c", Reason: "garbage", Data: []byte("x"), Message: "LF_RESULTS:7"}
	if err := s.AddDeadLetters([]store.DeadLetter{dl, dl}, [][]store.Pair{nil, nil}); err != nil { // twice in one fetch
		t.Fatal(err)
	}
	if err := s.AddDeadLetter(dl, nil); err != nil { // and in a later one
		t.Fatal(err)
	}
	reused := dl
	reused.Data = []byte("y")
	if err := s.AddDeadLetter(reused, nil); err != nil {
		t.Fatal(err)
	}
	drain := store.DeadLetter{Campaign: "c", Subject: "drain", Reason: "given up"} // no message: each one counts
	for range 2 {
		if err := s.AddDeadLetter(drain, nil); err != nil {
			t.Fatal(err)
		}
	}
	dls, err := s.DeadLetters()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := s.GetCampaign("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 4 || c.Stats.DeadLetters != 4 {
		t.Fatalf("%d dead letters stored, %d counted; want 4 and 4", len(dls), c.Stats.DeadLetters)
	}
}

// markedCampaign is a fresh store holding campaign "c" with the cases ids,
// each enqueued for oracle.
func markedCampaign(t *testing.T, oracle string, ids ...string) *store.Store {
	t.Helper()
	s := storetest.Open(t, "")
	if err := s.PutCampaign(store.Campaign{ID: "c", State: store.StateRunning}); err != nil {
		t.Fatal(err)
	}
	enq := map[string][]string{}
	var recs []store.CaseRecord
	for _, id := range ids {
		recs = append(recs, store.CaseRecord{ID: id, Domain: "d", Campaign: "c"})
		enq[id] = []string{oracle}
	}
	if _, err := s.AddCases("c", recs); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkEnqueued("c", enq); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRepeatedDeadPairsCountOnce: a dead letter naming one pending pair 100
// times (a forged one did, 57 seed cases 100 times each, and the campaign
// ended with outstanding -4010 and 1,633 pairs never judged) marks it dead
// once, as do two letters of one fetch naming it; the verdict that comes
// after all revives it once.
func TestRepeatedDeadPairsCountOnce(t *testing.T) {
	s := markedCampaign(t, "slow", "a", "b")
	var pairs []store.Pair
	for range 100 {
		pairs = append(pairs, store.Pair{Case: "a", Oracle: "slow"})
	}
	dl := store.DeadLetter{Campaign: "c", Subject: "dead.c", Reason: "forged"}
	second := []store.Pair{{Case: "a", Oracle: "slow"}, {Case: "b", Oracle: "slow"}, {Case: "b", Oracle: "slow"}}
	if err := s.AddDeadLetters([]store.DeadLetter{dl, dl}, [][]store.Pair{pairs, second}); err != nil {
		t.Fatal(err)
	}
	c, _, err := s.GetCampaign("c")
	if err != nil {
		t.Fatal(err)
	}
	if c.Stats.DeadCases != 2 || c.Stats.Outstanding() != 0 {
		t.Fatalf("dead_cases %d, outstanding %d; want 2 and 0 (two pairs marked dead)", c.Stats.DeadCases, c.Stats.Outstanding())
	}
	if _, err := s.CommitVerdicts(store.Commit{Campaign: "c", Now: time.Unix(1, 0),
		Verdicts: []oracles.Verdict{{Oracle: "slow", Case: "a", Domain: "d", Kind: oracles.Accept}}}); err != nil {
		t.Fatal(err)
	}
	if c, _, _ = s.GetCampaign("c"); c.Stats.DeadCases != 1 || c.Stats.Judged != 1 || c.Stats.Outstanding() != 0 {
		t.Fatalf("after a's verdict: dead_cases %d, judged %d, outstanding %d; want 1, 1, 0", c.Stats.DeadCases, c.Stats.Judged, c.Stats.Outstanding())
	}
}

// TestFindingsOfOneCaseInOneTransactionCountOnce: two results for one case
// committed together (a plain 30 s campaign did it: findings 229 for 182
// distinct findings, 22 buckets of one member counting 2 cases) record its
// finding once.
func TestFindingsOfOneCaseInOneTransactionCountOnce(t *testing.T) {
	s := storetest.Open(t, "")
	pol := policy.Policy{Domain: "d", Judges: []string{"ptxas"}}
	judged := func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }
	commit := func(vs ...oracles.Verdict) store.Commit {
		return store.Commit{Verdicts: vs, Judged: judged, Now: time.Unix(100, 0)}
	}
	res, err := s.CommitMany([]store.Commit{
		commit(oracles.Verdict{Oracle: oracles.SpecPTXISA, Case: "c1", Domain: "d", Kind: oracles.Reject, Rule: "ptxisa.d.r"},
			oracles.Verdict{Oracle: "ptxas", Case: "c1", Domain: "d", Kind: oracles.Accept}),
		commit(oracles.Verdict{Oracle: oracles.SpecSeed, Case: "c1", Domain: "d", Kind: oracles.Reject, Rule: "seed.d.r"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := res[0].Findings + res[1].Findings; n != 1 {
		t.Errorf("findings counted %d, want 1", n)
	}
	buckets, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		if b.Cases != 1 {
			t.Errorf("bucket %s counts %d cases, has one member", b.Key, b.Cases)
		}
	}
}

// TestCommitManyNamesWhatItCannotStore: a commit the store refuses for a
// reason of its own is named by its index, so the caller can commit the
// others without it; nothing of the transaction is kept.
func TestCommitManyNamesWhatItCannotStore(t *testing.T) {
	s := storetest.Open(t, "")
	commit := func(oracle, id string) store.Commit {
		return store.Commit{Now: time.Unix(1, 0), Verdicts: []oracles.Verdict{{Oracle: oracle, Case: id, Domain: "d", Kind: oracles.Accept}}}
	}
	_, err := s.CommitMany([]store.Commit{commit("a", "x"), commit(strings.Repeat("o", 40<<10), "y"), commit("a", "z")})
	var own *store.ResultError
	if !errors.As(err, &own) || own.Index != 1 {
		t.Fatalf("err = %v, want a ResultError naming commit 1", err)
	}
	if _, n, err := s.Counts(); err != nil || n != 0 {
		t.Fatalf("%d verdicts kept, %v; want none", n, err)
	}
}

// TestVerdictRecordsNameTheirVersion: a verdict's record holds neither its
// case and oracle (its key's) nor its tool version (an mlir-opt version is
// its pass pipeline), which the store keeps once; all read back whole.
func TestVerdictRecordsNameTheirVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	version := "mlir-opt 24.0.0 passes " + strings.Repeat("canonicalize,cse,", 10)
	var vs []oracles.Verdict
	for _, id := range []string{"c1", "c2"} {
		vs = append(vs, oracles.Verdict{Oracle: "mlir", Version: version, Case: id, Domain: "d", Kind: oracles.Reject, Rule: "verify", Diagnostic: "no"})
	}
	if _, err := s.CommitVerdicts(store.Commit{Verdicts: vs, Now: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	storetest.Close(t, s)
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("verdicts")).ForEach(func(k, v []byte) error {
			if strings.Contains(string(v), "canonicalize") || strings.Contains(string(v), `"c1"`) || strings.Contains(string(v), `"mlir"`) {
				t.Errorf("verdict %q is stored as %s: want no version, case or oracle in it", k, v)
			}
			return nil
		})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s = storetest.Open(t, path)
	for _, want := range vs {
		got, err := s.Verdicts(want.Case)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("verdicts of %s = %+v, %v; want %+v", want.Case, got, err, want)
		}
	}
}

// TestMarkEnqueuedAddsWhatTheFirstMarkLacked: two producers made one case;
// the first marked it without the sampled judge (its backlog was full) and
// the second published a job to that judge too. The second mark adds the
// judge, so its verdict is one the campaign asked for (the judge's real
// verdicts were dead-lettered while the first mark won alone); marking
// again what is marked counts nothing twice.
func TestMarkEnqueuedAddsWhatTheFirstMarkLacked(t *testing.T) {
	s := markedCampaign(t, "fixed", "a")
	for range 2 {
		if err := s.MarkEnqueued("c", map[string][]string{"a": {"fixed", "samp"}}); err != nil {
			t.Fatal(err)
		}
	}
	r, ok, err := s.Case("a")
	if err != nil || !ok {
		t.Fatalf("case a: %v, %v", ok, err)
	}
	if !slices.Equal(r.Enqueued, []string{"fixed", "samp"}) {
		t.Errorf("enqueued %v, want [fixed samp]", r.Enqueued)
	}
	c, _, err := s.GetCampaign("c")
	if err != nil {
		t.Fatal(err)
	}
	if c.Stats.Enqueued != 2 || c.Oracle("samp").Enqueued != 1 || c.Oracle("fixed").Enqueued != 1 {
		t.Errorf("enqueued counts: campaign %d, samp %d, fixed %d; want 2, 1, 1",
			c.Stats.Enqueued, c.Oracle("samp").Enqueued, c.Oracle("fixed").Enqueued)
	}
}

// TestMarkEnqueuedCountsWhatAReplayJudged: a found-in replay (a commit of
// no campaign) judged a case with the sampled judge the campaign had left
// it out of; the campaign then sends it that judge too (a lattice row it
// had made otherwise). The job's verdict is a duplicate the commit skips,
// so the mark counts the replay's verdict judged: nothing stays owed.
func TestMarkEnqueuedCountsWhatAReplayJudged(t *testing.T) {
	s := markedCampaign(t, "fixed", "a")
	v := oracles.Verdict{Oracle: "samp", Case: "a", Domain: "kindword", Kind: oracles.Accept}
	if _, err := s.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{v}}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkEnqueued("c", map[string][]string{"a": {"samp"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CommitVerdicts(store.Commit{Campaign: "c", Oracle: "samp", Verdicts: []oracles.Verdict{v}}); err != nil {
		t.Fatal(err)
	}
	c, _, err := s.GetCampaign("c")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Oracle("samp"); got.Enqueued != 1 || got.Judged != 1 {
		t.Errorf("samp enqueued %d, judged %d; want 1, 1", got.Enqueued, got.Judged)
	}
	if n := c.Stats.Outstanding() - c.Oracle("fixed").Enqueued + c.Oracle("fixed").Judged; n != 0 {
		t.Errorf("the replayed pair is still owed: outstanding %d besides fixed's", n)
	}
}

// TestBucketCaseFallsBackToTheExample: a store written before minimized
// cases were kept whatever the night dropped can name a minimized case it
// lacks; the bucket's example stands for it, and a bucket with neither is
// an error naming both.
func TestBucketCaseFallsBackToTheExample(t *testing.T) {
	s := markedCampaign(t, "fixed", "a")
	rec, err := s.BucketCase(store.Bucket{Key: "k", Minimized: "gone", Example: "a"})
	if err != nil || rec.ID != "a" {
		t.Errorf("BucketCase = %q, %v; want the example a", rec.ID, err)
	}
	_, err = s.BucketCase(store.Bucket{Key: "k", Minimized: "gone", Example: "lost"})
	if err == nil || !strings.Contains(err.Error(), `neither its minimized case "gone" nor its example "lost"`) {
		t.Errorf("BucketCase of a bucket with neither case: %v", err)
	}
}
