package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
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
		Judged: func(id string, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(id, vs) },
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
		if err := s.AddDeadLetter(store.DeadLetter{Subject: "jobs.x", Reason: reason}, 0); err != nil {
			t.Fatal(err)
		}
	}
	dls, err := s.DeadLetters()
	if err != nil || len(dls) != 2 || dls[0].Reason != "garbage" || dls[1].Reason != "poison" {
		t.Fatalf("dead letters = %+v, %v", dls, err)
	}
}

func TestSignatureStable(t *testing.T) {
	mk := func(caseID, diag string) policy.Disagreement {
		return policy.Disagreement{Case: caseID, Domain: "ldsm", Pair: policy.Pair{A: oracles.SpecPTXISA, B: "ptxas", On: policy.OnVerdict},
			A: oracles.Verdict{Oracle: oracles.SpecPTXISA, Kind: oracles.Accept, Rule: "ptxisa.ldsm"},
			B: oracles.Verdict{Oracle: "ptxas", Kind: oracles.Reject, Diagnostic: diag}}
	}
	a := policy.SignatureOf(mk("c1", "ptxas /tmp/a/x.ptx, line 12; error   : Arguments mismatch for instruction 'ldmatrix' at %r7"))
	b := policy.SignatureOf(mk("c2", "ptxas /tmp/b/y.ptx, line 940; error   : Arguments mismatch for instruction 'ldmatrix' at %r19"))
	c := policy.SignatureOf(mk("c3", "ptxas /tmp/b/y.ptx, line 9; error   : Unknown modifier '.m8n32'"))
	if a.Key() != b.Key() {
		t.Errorf("same bug, different keys:\n%+v\n%+v", a, b)
	}
	if a.Key() == c.Key() {
		t.Errorf("different bugs, same key: %+v", c)
	}
	// ptxas 12.4's words for one check on two targets (see oracles/diag/testdata).
	d := policy.SignatureOf(mk("c4", "ptxas /tmp/a/x.ptx, line 2; error   : PTX .version 7.0 does not support .target sm_90a"))
	e := policy.SignatureOf(mk("c5", "ptxas /tmp/b/y.ptx, line 2; error   : PTX .version 6.0 does not support .target sm_86"))
	if d.Key() != e.Key() {
		t.Errorf("one check on two targets, different keys:\n%+v\n%+v", d, e)
	}
}

func TestSignatureTitle(t *testing.T) {
	d := policy.Disagreement{Domain: "mma", Pair: policy.Pair{A: oracles.SpecPTXISA, B: "ptxas", On: policy.OnVerdict},
		A: oracles.Verdict{Oracle: oracles.SpecPTXISA, Kind: oracles.Reject, Rule: "ptxisa.mma.selector"},
		B: oracles.Verdict{Oracle: "ptxas", Kind: oracles.Accept}}
	want := "mma: spec/ptxisa reject (ptxisa.mma.selector), ptxas accept"
	if got := policy.SignatureOf(d).Title(); got != want {
		t.Fatalf("title %q, want %q", got, want)
	}
}
