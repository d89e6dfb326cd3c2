package coordinator_test

import (
	"context"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
)

// TestCampaignJudgesImportedCases stores cases as `legalfuzz corpus import`
// does (no campaign, no jobs) and checks that the next campaign on their
// domain judges them with every oracle, while a domain outside the
// campaign keeps its imports for a later one.
func TestCampaignJudgesImportedCases(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	var recs []store.CaseRecord
	for _, v := range mma.Seeds()[:3] {
		c := domain.NewCase(mma.Name, v)
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: v.Encode(), Source: store.ImportSource + "corpus/" + c.ID})
	}
	other := store.CaseRecord{ID: "kw", Domain: "kindword", Data: []byte{0}, Source: store.ImportSource + "kw"}
	if _, err := db.AddCases("", append(recs, other)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	camp := runCampaign(t, ctx, nc, nil, coordinator.Options{Store: db, WaitWorkers: 10 * time.Second,
		Config: store.CampaignConfig{Domains: []string{mma.Name}, Duration: time.Second, Generator: coordinator.GenNative}})
	if camp.Stats.Cases != len(recs) || camp.Stats.Outstanding() != 0 {
		t.Fatalf("campaign stats %+v: want %d adopted cases, nothing outstanding", camp.Stats, len(recs))
	}
	for _, r := range recs {
		vs, err := db.Verdicts(r.ID)
		if err != nil || len(vs) != 2 {
			t.Errorf("imported case %s: %d verdicts (%v), want one per spec oracle", r.ID, len(vs), err)
		}
		got, _, _ := db.Case(r.ID)
		if got.Campaign != camp.ID || got.Source != r.Source {
			t.Errorf("imported case %s: campaign %q source %q, want %q and its import source", r.ID, got.Campaign, got.Source, camp.ID)
		}
	}
	if got, _, _ := db.Case(other.ID); got.Campaign != "" || got.Enqueued != nil {
		t.Errorf("kindword import taken by an mma campaign: %+v", got)
	}
}
