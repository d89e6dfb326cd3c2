package coordinator_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
	"github.com/nats-io/nats.go"
)

// acceptAll is a fixed-latency oracle under ptxas's name that accepts
// every case: each kindword case spec/ptxisa rejects is a too-permissive
// finding of "ptxas", so the seed values show buckets at once.
func acceptAll(latency time.Duration) *testoracle.FixedLatency {
	return testoracle.New(testoracle.Config{Name: oracles.PTXAS, Latency: latency, Domains: []string{"kindword"}})
}

// runTriaged runs one campaign with opts on nc, served by one worker of the
// spec oracles and acceptAll, that stops when the campaign ends.
func runTriaged(t *testing.T, ctx context.Context, nc *nats.Conn, opts coordinator.Options) store.Campaign {
	t.Helper()
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	orcs, statuses := spec.All()
	ptxas := acceptAll(10 * time.Millisecond)
	w, err := worker.New(nc, worker.Config{Name: "w1", Oracles: append(orcs, ptxas), Statuses: append(statuses, ptxas.Status())})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	opts.Conn = nc
	coord, err := coordinator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	camp, err := coord.Run(ctx)
	stopWorker()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return camp
}

// TestBucketMinimizedWhileGenerating: the seed values show buckets in the
// campaign's first moments; the campaign minimizes them through its own
// workers while it still generates, and records that it did before its
// duration ended.
func TestBucketMinimizedWhileGenerating(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	panel, err := queue.NewRemote(ctx, nc, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	camp := runTriaged(t, ctx, nc, coordinator.Options{Store: db, Seeds: true, WaitWorkers: 10 * time.Second,
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: 10 * time.Second, BatchSize: 16, Generator: coordinator.GenStructured},
		Triage: &coordinator.TriageOptions{Panel: panel, Tail: time.Minute, Minimize: &coordinator.MinimizeOptions{Budget: 20, ReChecks: 1}}})
	tr := camp.Triaged
	if camp.State != store.StateDone || tr == nil || len(tr.During) == 0 {
		t.Fatalf("campaign %s %s, triaged %+v; want a bucket minimized while it generated", camp.ID, camp.State, tr)
	}
	for _, key := range tr.During {
		b, ok, err := db.Bucket(key)
		if err != nil || !ok || b.NotYetMinimized() || b.Campaign != camp.ID {
			t.Errorf("bucket %s minimized while generating: %+v, %v, %v; want a bucket of the campaign, minimized", key, b, ok, err)
		}
	}
	if len(tr.Left) != 0 || camp.Stats.Outstanding() != 0 {
		t.Errorf("left %v, jobs owed %d; want every bucket minimized within the tail and nothing owed", tr.Left, camp.Stats.Outstanding())
	}
}

// TestTailBoundedThenNextCampaignMinimizesFirst: the minimizer's panel
// takes an hour a judgment (its ptxas is acceptAll with an hour's
// latency), so no bucket's minimization can end: the campaign still ends,
// at its tail, its buckets marked not yet minimized with their example.
// The next campaign on the store, which finds nothing new, minimizes
// them.
func TestTailBoundedThenNextCampaignMinimizesFirst(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stuck := oracles.Local{Oracles: []oracles.Oracle{spec.New(spec.PTXISA), acceptAll(time.Hour)}}
	first := runTriaged(t, ctx, nc, coordinator.Options{Store: db, Seeds: true, WaitWorkers: 10 * time.Second, CampaignID: "first",
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: time.Second, Generator: coordinator.GenNone},
		Triage: &coordinator.TriageOptions{Panel: stuck, Tail: time.Millisecond, Minimize: &coordinator.MinimizeOptions{Budget: 20, ReChecks: 1}}})
	buckets, err := db.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	tr := first.Triaged
	if first.State != store.StateDone || len(buckets) == 0 || tr == nil || len(tr.During)+len(tr.After) != 0 || len(tr.Left) != len(buckets) {
		t.Fatalf("first campaign %s, %d buckets, triaged %+v; want it done at its tail with every bucket left", first.State, len(buckets), tr)
	}
	for _, b := range buckets {
		if !b.NotYetMinimized() || b.Example == "" {
			t.Errorf("bucket %s: minimized %q, note %q, example %q; want it waiting, its example kept", b.Key, b.Minimized, b.MinimizeNote, b.Example)
		}
	}
	fast := oracles.Local{Oracles: []oracles.Oracle{spec.New(spec.PTXISA), acceptAll(0)}}
	next := runTriaged(t, ctx, nc, coordinator.Options{Store: db, WaitWorkers: 10 * time.Second, CampaignID: "next",
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: time.Second, Generator: coordinator.GenNone},
		Triage: &coordinator.TriageOptions{Panel: fast, Tail: time.Minute, Minimize: &coordinator.MinimizeOptions{Budget: 20, ReChecks: 1}}})
	got := append(slices.Clone(next.Triaged.During), next.Triaged.After...)
	if len(got) == 0 {
		t.Fatal("the next campaign minimized nothing")
	}
	for _, key := range tr.Left {
		// A minimized bucket may take the key its minimized case shows (a
		// merge, issue 36): the old key is its alias. It may also be
		// minimized by another's split, whose witness joined it.
		b, ok, err := db.Bucket(key)
		if err != nil || !ok || b.NotYetMinimized() {
			t.Errorf("bucket %s left by the first campaign: %+v (found %v, %v), not minimized by the next (it minimized %v)", key, b, ok, err, got)
		}
	}
	if len(next.Triaged.Left) != 0 {
		t.Errorf("the next campaign left %v", next.Triaged.Left)
	}
}

// TestSeedsJudgedOnce: a new campaign publishes each seed's job once. The
// republishing of a resumed campaign's owed jobs ran after the seeds were
// enqueued and sent every seed job again: the judges judged the seeds
// twice, the backlog a triage's candidates wait behind.
func TestSeedsJudgedOnce(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ptxas := acceptAll(0)
	ctx := runWorker(t, nc, ptxas)
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, Seeds: true, WaitWorkers: 10 * time.Second,
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: time.Second, Generator: coordinator.GenNone}})
	if err != nil {
		t.Fatal(err)
	}
	camp, err := coord.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if camp.Stats.Cases == 0 || ptxas.Cases() != int64(camp.Stats.Cases) {
		t.Fatalf("%d seed cases, judged %d times; want each once", camp.Stats.Cases, ptxas.Cases())
	}
}
