package store_test

import (
	"path/filepath"
	"slices"
	"strings"
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

// TestLongDiagnosticFeature: a tool whose diagnostic's first line is over
// bbolt's 32 KiB key limit (a hostile verifier did it, and a real tool
// printing one huge line would) made the feature key too large, failed the
// whole transaction of results with it and blocked the campaign for good.
// Its verdict commits, and the feature keeps its full name.
func TestLongDiagnosticFeature(t *testing.T) {
	s := storetest.Open(t, "")
	if err := s.PutCampaign(store.Campaign{ID: "c", State: store.StateRunning}); err != nil {
		t.Fatal(err)
	}
	line := "error: " + strings.Repeat("overlong ", 40<<10/9)
	if _, err := s.AddCases("c", []store.CaseRecord{{ID: "a", Domain: "d", Campaign: "c"}}); err != nil {
		t.Fatal(err)
	}
	v := oracles.Verdict{Oracle: oracles.PTXAS, Case: "a", Domain: "d", Kind: oracles.Reject, Rule: "verify", Diagnostic: line + "\nmore"}
	if _, err := s.CommitVerdicts(store.Commit{Campaign: "c", Now: time.Unix(1, 0), Verdicts: []oracles.Verdict{v}}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	got, err := s.Features("c")
	if err != nil {
		t.Fatal(err)
	}
	want := signal.VerdictFeature(v)
	if _, ok := got[want]; !ok || len(got) != 1 {
		t.Fatalf("features %d, want the one of %d bytes under its full name", len(got), len(want))
	}
	vs, err := s.Verdicts("a")
	if err != nil || len(vs) != 1 || vs[0].Diagnostic != v.Diagnostic {
		t.Fatalf("verdicts %d, %v: want the full diagnostic kept", len(vs), err)
	}
}
