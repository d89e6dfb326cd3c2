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

func bucketFor(key, campaign, oracle, rule, diag string) store.Bucket {
	return store.Bucket{Key: key, Campaign: campaign, Cases: 1, Signature: policy.Signature{Domain: "ldsm",
		Pair: policy.Pair{A: oracles.SpecPTXISA, B: oracle, On: policy.OnVerdict}, KindA: oracles.Reject, KindB: oracles.Accept, RuleA: rule, DiagB: diag}}
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
