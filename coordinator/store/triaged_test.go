package store_test

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// tooPermissive is a commit of one case that ptxas accepts and spec/ptxisa
// rejects: a finding in the one bucket every such case joins.
func tooPermissive(campaign, caseID string) store.Commit {
	pol := policy.Policy{Domain: "d", Judges: []string{"ptxas"}}
	return store.Commit{Campaign: campaign, Now: time.Unix(100, 0),
		Verdicts: []oracles.Verdict{
			{Oracle: oracles.SpecPTXISA, Case: caseID, Domain: "d", Kind: oracles.Reject, Rule: "ptxisa.d.r"},
			{Oracle: "ptxas", Case: caseID, Domain: "d", Kind: oracles.Accept},
		},
		Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }}
}

// TestPutBucketKeepsWhatCommitsAdded: a bucket read, then minimized while
// the campaign's commits add a member to it, keeps that member's count
// when the minimizer stores its result.
func TestPutBucketKeepsWhatCommitsAdded(t *testing.T) {
	s := storetest.Open(t, "")
	res, err := s.CommitVerdicts(tooPermissive("", "c1"))
	if err != nil || len(res.NewBuckets) != 1 {
		t.Fatalf("first commit %+v, %v; want a new bucket", res, err)
	}
	read := res.NewBuckets[0] // what the minimizer starts from
	if _, err := s.CommitVerdicts(tooPermissive("", "c2")); err != nil {
		t.Fatal(err)
	}
	read.Minimized, read.Reliability, read.ReChecks = "c0", 3, 3
	if err := s.PutBucket(read); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Bucket(read.Key)
	if err != nil || !ok || got.Cases != 2 || got.Minimized != "c0" || got.Reliability != 3 {
		t.Fatalf("stored bucket %+v (%v); want 2 cases and the minimizer's result", got, err)
	}
}

// TestMinimizerLeavesACampaignsVerdict: the minimizer's re-check judged a
// case the running campaign had enqueued for ptxas before the campaign's
// job answered. Its commit (outside any campaign) leaves that verdict to
// the job's result, which is stored and counted: the campaign owes
// nothing, where it used to owe the job for ever and never end its drain.
func TestMinimizerLeavesACampaignsVerdict(t *testing.T) {
	s := storetest.Open(t, "")
	if err := s.PutCampaign(store.Campaign{ID: "c", State: store.StateRunning}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddCases("c", []store.CaseRecord{{ID: "x", Domain: "d", Campaign: "c"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkEnqueued("c", map[string][]string{"x": {oracles.SpecPTXISA, "ptxas"}}); err != nil {
		t.Fatal(err)
	}
	minimizer := tooPermissive("", "x")
	minimizer.Judged = nil
	if _, err := s.CommitVerdicts(minimizer); err != nil {
		t.Fatal(err)
	}
	job := tooPermissive("c", "x")
	res, err := s.CommitVerdicts(job)
	if err != nil {
		t.Fatal(err)
	}
	camp, _, err := s.GetCampaign("c")
	if err != nil || res.Stored != 2 || res.Findings != 1 || camp.Stats.Outstanding() != 0 {
		t.Fatalf("the job's commit %+v, campaign %+v (%v); want both verdicts stored, the finding recorded, nothing owed", res, camp.Stats, err)
	}
}

// TestPutBucketKeepsAMinimization: the night's replay read a bucket
// before the triage minimized it; storing the replay's found-in does not
// take the minimization back.
func TestPutBucketKeepsAMinimization(t *testing.T) {
	s := storetest.Open(t, "")
	res, err := s.CommitVerdicts(tooPermissive("", "c1"))
	if err != nil || len(res.NewBuckets) != 1 {
		t.Fatalf("commit %+v, %v; want a new bucket", res, err)
	}
	stale := res.NewBuckets[0]
	minimized := stale
	minimized.Minimized, minimized.Reliability, minimized.ReChecks = "c0", 1, 1
	minimized.Versions = []store.VersionVerdict{{Oracle: "ptxas", Case: "c0", Outcome: store.Reproduces}}
	if err := s.PutBucket(minimized); err != nil {
		t.Fatal(err)
	}
	stale.Versions = []store.VersionVerdict{{Oracle: "ptxas", Case: "c1", Outcome: store.Reproduces}}
	if err := s.PutBucket(stale); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Bucket(stale.Key)
	if err != nil || got.Minimized != "c0" || len(got.Versions) != 1 || got.Versions[0].Case != "c0" {
		t.Fatalf("stored bucket %+v (%v); want the minimization and its replay kept", got, err)
	}
}

// TestMinimizedCaseNeverStranded: the minimizer stores its case under the
// bucket's campaign, with no job; the campaign, still running, must not
// take it for a case whose enqueue failed and send it jobs whose verdicts
// the minimizer already stored (owed for ever).
func TestMinimizedCaseNeverStranded(t *testing.T) {
	s := storetest.Open(t, "")
	recs := []store.CaseRecord{{ID: "gen", Domain: "d", Campaign: "c", Source: "gen:boundary"},
		{ID: "min", Domain: "d", Campaign: "c", Source: store.MinimizedSource("k")}}
	if _, err := s.AddCases("", recs); err != nil {
		t.Fatal(err)
	}
	left, err := s.Unenqueued("c")
	if err != nil || len(left) != 1 || left[0].ID != "gen" {
		t.Fatalf("unenqueued %+v (%v); want only the generated case", left, err)
	}
}
