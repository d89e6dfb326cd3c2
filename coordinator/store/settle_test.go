package store_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// settleNight is one campaign's night in a store at path: KeepMembers+3
// cases of one finding (ptxas accepts what the PTX ISA rejects), one
// case judged like the first members (nothing new), then a seed judged
// the same. Each case gets its two verdicts in two results.
func settleNight(t *testing.T, path string, keepAll bool) (*store.Store, []string) {
	t.Helper()
	s := storetest.Open(t, path)
	orcs := []string{oracles.SpecPTXISA, "ptxas"}
	const camp = "night1"
	if err := s.PutCampaign(store.Campaign{ID: camp, State: store.StateRunning,
		Config: store.CampaignConfig{Oracles: orcs, KeepAll: keepAll}}); err != nil {
		t.Fatal(err)
	}
	pol := policy.Policy{Domain: "d", Judges: []string{"ptxas"}}
	judged := func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }
	var ids []string
	add := func(source string, spec oracles.Kind) {
		id := fmt.Sprintf("%016x", 0xc0ffee00+len(ids))
		ids = append(ids, id)
		rec := store.CaseRecord{ID: id, Domain: "d", Data: []byte(id), Campaign: camp, Source: source, Seen: time.Unix(int64(100+len(ids)), 0)}
		if _, err := s.AddCases(camp, []store.CaseRecord{rec}); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkEnqueued(camp, map[string][]string{id: orcs}); err != nil {
			t.Fatal(err)
		}
		for _, v := range []oracles.Verdict{
			{Oracle: oracles.SpecPTXISA, Case: id, Domain: "d", Kind: spec, Rule: "ptxisa.d.r", Diagnostic: "a long story"},
			{Oracle: "ptxas", Case: id, Domain: "d", Kind: oracles.Accept},
		} {
			c := store.Commit{Verdicts: []oracles.Verdict{v}, Judged: judged, Campaign: camp, Now: time.Unix(200, 0), Oracle: v.Oracle}
			if _, err := s.CommitVerdicts(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range store.KeepMembers + 3 {
		add("fuzz:x", oracles.Reject)
	}
	add("fuzz:x", oracles.Accept)
	add("fuzz:x", oracles.Accept)
	add("seed", oracles.Accept)
	return s, ids
}

// storedIDs are the cases of ids the store holds, and the verdicts it
// holds of them.
func storedIDs(t *testing.T, s *store.Store, ids []string) (kept []string, verdicts int) {
	t.Helper()
	recs, err := s.Cases(ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, ok := recs[id]; ok {
			kept = append(kept, id)
		}
		vs, err := s.Verdicts(id)
		if err != nil {
			t.Fatal(err)
		}
		verdicts += len(vs)
	}
	return kept, verdicts
}

// TestSettlingKeepsAFewMembersPerBucket: a bucket keeps its first
// KeepMembers members with their verdicts and counts the rest; a seed
// nothing needs, like any case nothing needs, leaves only counts.
func TestSettlingKeepsAFewMembersPerBucket(t *testing.T) {
	s, ids := settleNight(t, "", false)
	buckets, err := s.Buckets()
	if err != nil || len(buckets) != 1 {
		t.Fatalf("buckets %+v, %v; want one", buckets, err)
	}
	members, err := s.Members()
	if err != nil {
		t.Fatal(err)
	}
	if b := buckets[0]; b.Cases != store.KeepMembers+3 || len(members) != store.KeepMembers+3 || b.Example != ids[0] {
		t.Fatalf("bucket counts %d cases, %d members, example %s; want %d, every one named, example %s",
			b.Cases, len(members), b.Example, store.KeepMembers+3, ids[0])
	}
	corpus, err := s.Corpus("night1")
	if err != nil {
		t.Fatal(err)
	}
	inCorpus := map[string]bool{}
	for _, e := range corpus {
		inCorpus[e.Case] = true
	}
	kept, verdicts := storedIDs(t, s, ids)
	for i, id := range ids {
		want := i < store.KeepMembers || inCorpus[id]
		if slices.Contains(kept, id) != want {
			t.Errorf("case %d (%s, in corpus %v): kept %v, want %v", i, id, inCorpus[id], !want, want)
		}
	}
	if verdicts != 2*len(kept) {
		t.Errorf("%d verdicts kept for %d cases kept, want two each", verdicts, len(kept))
	}
	seed := ids[len(ids)-1]
	if gone, err := s.Dropped([]string{seed}); err != nil || !gone[seed] {
		t.Errorf("the seed nothing needs: dropped %v (%v), want dropped", gone, err)
	}
	nights, err := s.Nights()
	if err != nil {
		t.Fatal(err)
	}
	n := nights["night1"]
	if n.Tally.Cases != len(ids) || n.Ledger.Dropped != len(ids)-len(kept) || n.Ledger.Verdicts != 2*n.Ledger.Dropped {
		t.Errorf("night tallies %d cases, drops %d with %d verdicts; want %d tallied, %d dropped with 2 verdicts each",
			n.Tally.Cases, n.Ledger.Dropped, n.Ledger.Verdicts, len(ids), len(ids)-len(kept))
	}
}

// TestCompactingAKeepAllStore: a store a campaign kept whole (--keep-all)
// compacts to what the same campaign settling would have kept: the same
// cases, the same night (tally and ledger), in a file that ends with its
// last page.
func TestCompactingAKeepAllStore(t *testing.T) {
	dir := t.TempDir()
	settled, ids := settleNight(t, filepath.Join(dir, "settled.db"), false)
	whole, _ := settleNight(t, filepath.Join(dir, "whole.db"), true)
	if kept, _ := storedIDs(t, whole, ids); len(kept) != len(ids) {
		t.Fatalf("keep-all kept %d of %d cases", len(kept), len(ids))
	}
	res, err := whole.Compact(filepath.Join(dir, "compacted.db"))
	if err != nil {
		t.Fatal(err)
	}
	file := fileSize(t, filepath.Join(dir, "compacted.db"))
	ro, err := store.OpenStoreReadOnly(filepath.Join(dir, "compacted.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if pages, _, err := ro.Size(); err != nil || file != pages {
		t.Errorf("compacted file %d bytes, its pages %d (%v): want nothing after them", file, pages, err)
	}
	ro.Close()
	compacted := storetest.Open(t, filepath.Join(dir, "compacted.db"))
	wantKept, wantVerdicts := storedIDs(t, settled, ids)
	gotKept, gotVerdicts := storedIDs(t, compacted, ids)
	if !slices.Equal(gotKept, wantKept) || gotVerdicts != wantVerdicts || res.Kept != len(wantKept) || res.Settled != res.Dropped {
		t.Errorf("compacted keeps %v with %d verdicts (%+v); settling kept %v with %d", gotKept, gotVerdicts, res, wantKept, wantVerdicts)
	}
	want, err := settled.Nights()
	if err != nil {
		t.Fatal(err)
	}
	got, err := compacted.Nights()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := jsonText(t, want), jsonText(t, got); a != b {
		t.Errorf("nights differ:\nsettled   %.400s\ncompacted %.400s", a, b)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(got)), []string{"night1"}) {
		t.Errorf("nights %v, want night1", slices.Sorted(maps.Keys(got)))
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestMinimizedCaseOfADroppedOne: the minimizer shrank a bucket's example
// to a case the night had generated, settled and dropped; AddCases took it
// for known and did not store it, the bucket named a missing case, and
// make campaign stopped on "bucket ...: case ... missing". A minimized
// case is stored, with its re-checks' verdicts, whatever the seen set says.
func TestMinimizedCaseOfADroppedOne(t *testing.T) {
	s, ids := settleNight(t, "", false)
	id := ids[store.KeepMembers] // a member past those kept: counted, dropped
	if _, ok, err := s.Case(id); err != nil || ok {
		t.Fatalf("case %s before: stored %v (%v), want dropped", id, ok, err)
	}
	rec := store.CaseRecord{ID: id, Domain: "d", Data: []byte(id), Campaign: "night1", Source: store.MinimizedSource("k")}
	added, err := s.AddCases("", []store.CaseRecord{rec})
	if err != nil || len(added) != 1 {
		t.Fatalf("AddCases of the minimized case: %d added, %v; want 1", len(added), err)
	}
	v := oracles.Verdict{Oracle: "ptxas", Case: id, Domain: "d", Kind: oracles.Accept}
	if _, err := s.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{v}}); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Case(id); err != nil || !ok || got.Source != rec.Source {
		t.Errorf("case %s after: %+v, %v, %v; want the minimized record", id, got, ok, err)
	}
	if vs, err := s.Verdicts(id); err != nil || len(vs) != 1 {
		t.Errorf("verdicts of %s: %v, %v; want the re-check's one", id, vs, err)
	}
	gen := store.CaseRecord{ID: id, Domain: "d", Data: []byte(id), Campaign: "night1", Source: "fuzz:x"}
	if added, err := s.AddCases("night1", []store.CaseRecord{gen}); err != nil || len(added) != 0 {
		t.Errorf("the same case generated again: %d added, %v; want none (it is known)", len(added), err)
	}
}
