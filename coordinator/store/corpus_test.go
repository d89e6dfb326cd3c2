package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/signal"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// judgeCase stores case id, enqueued for ptxas and spec/ptxisa, and commits
// the two verdicts as two results in one transaction, as the coordinator
// does with one fetch.
func judgeCase(t *testing.T, s *store.Store, camp, id string, specKind oracles.Kind, rule string) []store.CommitResult {
	t.Helper()
	if _, err := s.AddCases(camp, []store.CaseRecord{{ID: id, Domain: "d", Data: []byte(id), Campaign: camp}}); err != nil {
		t.Fatal(err)
	}
	orcs := []string{oracles.PTXAS, oracles.SpecPTXISA}
	if err := s.MarkEnqueued(camp, map[string][]string{id: orcs}); err != nil {
		t.Fatal(err)
	}
	pol := policy.Policy{Domain: "d", Judges: []string{oracles.PTXAS}}
	judged := func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }
	res, err := s.CommitMany([]store.Commit{
		{Verdicts: []oracles.Verdict{{Oracle: oracles.PTXAS, Case: id, Domain: "d", Kind: oracles.Accept}},
			Judged: judged, Campaign: camp, Now: time.Unix(100, 0), Oracle: oracles.PTXAS},
		{Verdicts: []oracles.Verdict{{Oracle: oracles.SpecPTXISA, Case: id, Domain: "d", Kind: specKind, Rule: rule}},
			Judged: judged, Campaign: camp, Now: time.Unix(100, 0), Oracle: oracles.SpecPTXISA},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorpusGrowsByNewFeatures checks which cases join the corpus, that the
// features stored are those package signal computes from the verdicts, and
// that the corpus and counts survive closing and reopening the store.
func TestCorpusGrowsByNewFeatures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	const camp = "c1"
	if err := s.PutCampaign(store.Campaign{ID: camp}); err != nil {
		t.Fatal(err)
	}
	res := judgeCase(t, s, camp, "a", oracles.Accept, oracles.SpecPTXISA)
	if res[0].NewFeatures != 1 || res[1].NewFeatures != 2 || len(res[1].NewCorpus) != 0 || len(res[0].NewCorpus) != 1 {
		t.Fatalf("first case: %+v; want 1 then 2 new features (the vector completes), in the corpus once", res)
	}
	judgeCase(t, s, camp, "b", oracles.Accept, oracles.SpecPTXISA) // nothing new
	res = judgeCase(t, s, camp, "c", oracles.Reject, "ptxisa.d.r")
	if len(res[1].NewBuckets) != 1 || len(res[1].NewCorpus) != 1 || !res[1].NewCorpus[0].Disagreement {
		t.Fatalf("disagreeing case: %+v; want a new bucket and a corpus entry marked as a disagreement", res[1])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storetest.Open(t, path)
	corpus, err := s.Corpus(camp)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, e := range corpus {
		ids = append(ids, e.Case)
	}
	if !slices.Equal(ids, []string{"a", "c"}) || string(corpus[0].Data) != "a" {
		t.Fatalf("corpus after reopen = %+v; want cases a and c with their data", corpus)
	}
	feats, err := s.Features(camp)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Verdicts("c")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range signal.Features(vs, []string{oracles.PTXAS, oracles.SpecPTXISA}) {
		if _, ok := feats[f]; !ok {
			t.Errorf("feature %q of case c's verdicts not stored; stored %v", f, feats)
		}
	}
	if got := feats[oracles.PTXAS+"|accept|"].Cases; got != 3 {
		t.Errorf("ptxas accept counted in %d cases, want 3", got)
	}
	c, _, err := s.GetCampaign(camp)
	if err != nil || c.Stats.Features != len(feats) || c.Stats.Corpus != 2 || c.Stats.Oracles[oracles.PTXAS].Enqueued != 3 {
		t.Fatalf("stats %+v (%v); want %d features, corpus 2, ptxas enqueued 3", c.Stats, err, len(feats))
	}
}
