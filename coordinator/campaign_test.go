package coordinator_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/worker"
)

func specWorker(t *testing.T, nc *nats.Conn, name string, fuzzer *worker.Fuzzer) *worker.Worker {
	t.Helper()
	orcs, statuses := spec.All()
	w, err := worker.New(nc, worker.Config{Name: name, Oracles: orcs, Statuses: statuses, Fuzz: fuzzer})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runCampaign runs one campaign with opts on nc, served by one spec worker
// (fuzzing with fuzzer; nil for none) that stops when the campaign ends. An
// error of the coordinator or of the worker fails the test.
func runCampaign(t *testing.T, ctx context.Context, nc *nats.Conn, fuzzer *worker.Fuzzer, opts coordinator.Options) store.Campaign {
	t.Helper()
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	w := specWorker(t, nc, "w1", fuzzer)
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

// TestCampaignJudgesEveryCaseOnce runs a short embedded campaign and checks
// that every stored case was judged by every oracle exactly once, and
// settled once: folded into the night's tally, then kept (seeds, corpus) or
// dropped.
func TestCampaignJudgesEveryCaseOnce(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	camp := runCampaign(t, ctx, nc, &worker.Fuzzer{WorkDir: t.TempDir()}, coordinator.Options{Store: db, Seeds: true,
		WaitWorkers: 10 * time.Second,
		Config:      store.CampaignConfig{Domains: []string{"kindword"}, Duration: 2 * time.Second, FuzzSlice: time.Second}})
	st := camp.Stats
	t.Logf("campaign %s: %+v", camp.ID, st)
	if camp.State != store.StateDone {
		t.Fatalf("state %s, want done", camp.State)
	}
	if st.Cases < 40 || st.Enqueued != 2*st.Cases || st.Judged != st.Enqueued || st.Outstanding() != 0 {
		t.Fatalf("stats %+v: want >= 40 cases, each enqueued for 2 oracles and judged exactly once", st)
	}
	cases, verdicts, err := db.Counts()
	nights, nerr := db.Nights()
	if err != nil || nerr != nil {
		t.Fatal(err, nerr)
	}
	night := nights[camp.ID]
	l := night.Ledger
	if cases+l.Dropped != st.Cases || verdicts+l.Verdicts != st.Judged || l.Dropped == 0 {
		t.Fatalf("store holds %d cases, %d verdicts and dropped %+v; stats say %d, %d", cases, verdicts, l, st.Cases, st.Judged)
	}
	if night.Tally.Cases != st.Cases || night.Tally.Verdicts != st.Judged {
		t.Fatalf("the night's tally folded %d cases, %d verdicts; stats say %d, %d (every case settled once)",
			night.Tally.Cases, night.Tally.Verdicts, st.Cases, st.Judged)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
