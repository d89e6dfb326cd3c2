package coordinator

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
)

func bucketFor(key, campaign, oracle, rule, diag string) Bucket {
	return Bucket{Key: key, Campaign: campaign, Cases: 1, Signature: Signature{Domain: "ldsm",
		Pair: Pair{SpecPTXISA, oracle, OnVerdict}, KindA: oracles.Reject, KindB: oracles.Accept, RuleA: rule, DiagB: diag}}
}

func TestTriageStatuses(t *testing.T) {
	buckets := []Bucket{
		bucketFor("k1", "old", "llc19", "ptxisa.ldsm.target-ptx-version", ""),
		bucketFor("k2", "latest", "ptxas", "ptxisa.ldsm.shape", ""),
		bucketFor("k3", "latest", "llc22", "ptxisa.ldsm.shape", "LLVM ERROR: Cannot select"),
	}
	sups := []Suppression{{Oracle: "llc22", DiagContains: "Cannot select", Reason: "known LLVM issue"}}
	got := Triage(buckets, "latest", sups)
	want := map[string]string{"k1": StatusKnown, "k2": StatusNew, "k3": StatusSuppressed}
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
	if (Suppression{Reason: "oops"}).Matches(bucketFor("k", "c", "ptxas", "r", "")) {
		t.Fatal("an empty predicate must not silence every bucket")
	}
}

func TestSuppressInStore(t *testing.T) {
	s, _ := openTestStore(t)
	if err := s.Suppress("nope", "why", time.Now()); err == nil {
		t.Fatal("suppressing an unknown bucket succeeded")
	}
	policy := Policy{Domain: "d", Judges: []string{"ptxas"}}
	res, err := s.CommitVerdicts(Commit{Verdicts: []oracles.Verdict{
		{Oracle: SpecPTXISA, Case: "c1", Domain: "d", Kind: oracles.Reject, Rule: "ptxisa.d.r"},
		{Oracle: "ptxas", Case: "c1", Domain: "d", Kind: oracles.Accept}},
		Judged: func(id string, vs []oracles.Verdict) []Disagreement { return policy.Evaluate(id, vs) }})
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
	ss, err := ReadSuppressions(good)
	if err != nil || len(ss) != 1 || ss[0].Oracle != "llc19" {
		t.Fatalf("%+v %v", ss, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"oracle":"llc19"}]`), 0o644)
	if _, err := ReadSuppressions(bad); err == nil {
		t.Fatal("a suppression file entry without a reason was accepted")
	}
}
