package store_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func bucketFor(key, campaign, oracle, rule, diag string) store.Bucket {
	return store.Bucket{Key: key, Campaign: campaign, Cases: 1, Signature: policy.Signature{Domain: "ldsm",
		Pair: policy.Pair{A: oracles.SpecPTXISA, B: oracle, On: policy.OnVerdict}, KindA: oracles.Reject, KindB: oracles.Accept, RuleA: rule, DiagB: diag}}
}

func TestTriageStatuses(t *testing.T) {
	buckets := []store.Bucket{
		bucketFor("k1", "old", "llc19", "ptxisa.ldsm.target-ptx-version", ""),
		bucketFor("k2", "latest", "ptxas", "ptxisa.ldsm.shape", ""),
		bucketFor("k3", "latest", "llc22", "ptxisa.ldsm.shape", "LLVM ERROR: Cannot select"),
	}
	sups := []store.Suppression{{Oracle: "llc22", DiagContains: "Cannot select", Reason: "known LLVM issue"}}
	got := store.Triage(buckets, "latest", sups)
	want := map[string]string{"k1": store.StatusKnown, "k2": store.StatusNew, "k3": store.StatusSuppressed}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3 (suppressed buckets are listed, not hidden)", len(got))
	}
	for _, e := range got {
		if e.Status != want[e.Key] {
			t.Errorf("bucket %s: status %s, want %s", e.Key, e.Status, want[e.Key])
		}
	}
	if got[0].Key != "k2" || got[2].Suppressed != "known LLVM issue" {
		t.Errorf("order/reasons wrong: %+v", got)
	}
}

func TestEmptyPredicateMatchesNothing(t *testing.T) {
	if (store.Suppression{Reason: "oops"}).Matches(bucketFor("k", "c", "ptxas", "r", "")) {
		t.Fatal("an empty predicate must not silence every bucket")
	}
}

func TestSuppressInStore(t *testing.T) {
	s := storetest.Open(t, "")
	if err := s.Suppress("nope", "why", time.Now()); err == nil {
		t.Fatal("suppressing an unknown bucket succeeded")
	}
	pol := policy.Policy{Domain: "d", Judges: []string{"ptxas"}}
	res, err := s.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Case: "c1", Domain: "d", Kind: oracles.Reject, Rule: "ptxisa.d.r"},
		{Oracle: "ptxas", Case: "c1", Domain: "d", Kind: oracles.Accept}},
		Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }})
	if err != nil || len(res.NewBuckets) != 1 {
		t.Fatal(res, err)
	}
	key := res.NewBuckets[0].Key
	if err := s.Suppress(key, "", time.Now()); err == nil {
		t.Fatal("a suppression without a reason was accepted")
	}
	if err := s.Suppress(key, "ptxas cannot see it", time.Now()); err != nil {
		t.Fatal(err)
	}
	sups, err := s.Suppressions()
	if err != nil || len(sups) != 1 || !sups[0].Matches(res.NewBuckets[0]) {
		t.Fatalf("suppressions %+v, %v", sups, err)
	}
	if err := s.Unsuppress(key); err != nil {
		t.Fatal(err)
	}
	if sups, _ := s.Suppressions(); len(sups) != 0 {
		t.Fatalf("still suppressed: %+v", sups)
	}
}

func TestReadSuppressions(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`[{"oracle":"llc19","rule":"ptxisa.ldsm.target-ptx-version","reason":"llc 19 raises .version"}]`), 0o644)
	ss, err := store.ReadSuppressions(good)
	if err != nil || len(ss) != 1 || ss[0].Oracle != "llc19" {
		t.Fatalf("%+v %v", ss, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"oracle":"llc19"}]`), 0o644)
	if _, err := store.ReadSuppressions(bad); err == nil {
		t.Fatal("a suppression file entry without a reason was accepted")
	}
}
