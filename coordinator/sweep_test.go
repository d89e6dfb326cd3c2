package coordinator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/lattice"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

// TestSweepGoesOnAcrossNights: a lattice sweep left unfinished by one
// campaign goes on in the next on the same store, from the row it reached,
// until it is done and says in which campaign; a sweep of another lattice
// (its fingerprint changed) starts again.
func TestSweepGoesOnAcrossNights(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	l, err := lattice.For(kindword.Domain)
	if err != nil {
		t.Fatal(err)
	}
	stale := store.Sweep{Domain: "kindword", Fingerprint: "another lattice", Next: 100, Rows: 100, Started: "c0"}
	if err := db.PutSweep(stale); err != nil {
		t.Fatal(err)
	}
	orc := testoracle.New(testoracle.Config{Name: "judge", Latency: 20 * time.Millisecond, Domains: []string{"kindword"}})
	ctx := runWorker(t, nc, orc)
	night := func(id string, d time.Duration) store.Sweep {
		t.Helper()
		coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, WaitWorkers: 10 * time.Second, CampaignID: id,
			Config: store.CampaignConfig{Domains: []string{"kindword"}, Oracles: []string{"judge"}, Duration: d, BatchSize: 8,
				Generator: coordinator.GenStructured}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := coord.Run(ctx); err != nil {
			t.Fatal(err)
		}
		sweeps, err := db.Sweeps()
		if err != nil {
			t.Fatal(err)
		}
		return sweeps["kindword"]
	}
	first := night("c1", 500*time.Millisecond)
	t.Logf("after c1: %+v", first)
	if first.Fingerprint != l.Fingerprint || first.Started != "c1" || first.Next == 0 || first.Done() {
		t.Fatalf("after c1: %+v; want the lattice %s begun by c1, part way (%d rows)", first, l.Fingerprint, l.Len())
	}
	if first.Covered != l.Covered(first.Next) || first.Pairs != l.Pairs {
		t.Errorf("after c1: covered %d of %d, want %d of %d", first.Covered, first.Pairs, l.Covered(first.Next), l.Pairs)
	}
	var last store.Sweep
	for i := 2; i < 20 && !last.Done(); i++ {
		prev := last
		last = night(fmt.Sprintf("c%d", i), 2*time.Second)
		if last.Started != "c1" || last.Next <= max(prev.Next, first.Next) && !last.Done() {
			t.Fatalf("night %d: %+v; want c1's sweep gone on from row %d", i, last, max(prev.Next, first.Next))
		}
	}
	if !last.Done() || last.Covered != last.Pairs || last.CompletedIn == "" || last.Completed.IsZero() {
		t.Fatalf("the sweep %+v: want it done, every pair covered, and the night that did it", last)
	}
}
