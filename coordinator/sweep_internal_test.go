package coordinator

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/structured"
)

// TestSweepCatchesUp: the sweep takes half of a batch while it keeps pace
// with the campaign's clock and three quarters while it is behind it.
func TestSweepCatchesUp(t *testing.T) {
	c := &Coordinator{gen: structured.New([]string{"kindword"}, 1)}
	rows, sw := c.gen.Sweep.Rows("kindword", "c1", 100, time.Now())
	if len(rows) != 100 || sw == nil {
		t.Fatalf("%d rows, sweep %v: want 100 of kindword's", len(rows), sw)
	}
	c.gen.Sweep.Advanced(sw)
	share := float64(sw.Next) / float64(sw.Rows)
	camp := func(spent float64) store.Campaign {
		return store.Campaign{Config: store.CampaignConfig{Duration: time.Hour}, Elapsed: time.Duration(spent * float64(time.Hour))}
	}
	if got := c.gen.Sweep.Share(camp(share/2), "kindword", 64); got != 32 {
		t.Errorf("ahead of the clock: %d rows of 64, want 32", got)
	}
	if got := c.gen.Sweep.Share(camp(share*2), "kindword", 64); got != 48 {
		t.Errorf("behind the clock: %d rows of 64, want 48", got)
	}
}

// TestLeastSweptDrawnFirst: of two domains whose sweeps go on, the one
// with fewer rows added is drawn most often.
func TestLeastSweptDrawnFirst(t *testing.T) {
	c := &Coordinator{gen: structured.New([]string{"kindword", "ldsm"}, 1)}
	c.rng = rand.New(rand.NewPCG(1, 2))
	rows, sw := c.gen.Sweep.Rows("kindword", "c1", 250, time.Now())
	if len(rows) == 0 || sw == nil {
		t.Fatal("no kindword rows")
	}
	c.gen.Sweep.Advanced(sw)
	camp := store.Campaign{Stats: store.Stats{Domains: map[string]*store.DomainStats{
		"kindword": {Generated: 250}, "ldsm": {Generated: 250}}}}
	drawn := map[string]int{}
	for range 1000 {
		drawn[c.drawDomain(camp, []string{"kindword", "ldsm"})]++
	}
	if drawn["ldsm"] < 800 {
		t.Errorf("drawn %v: want ldsm, whose sweep has not begun, most often (kindword's is %.0f%% done)", drawn, 100*c.gen.Sweep.Progress("kindword"))
	}
}
