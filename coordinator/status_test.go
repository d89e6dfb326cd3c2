package coordinator_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// TestStatusWhileStarting: the progress line said "left 1m0s" for the 30 s
// the coordinator waited for its workers and stored the seeds, and "mlir
// 4309%" when the seeds' busy time was divided by the few generation
// seconds counted so far. Status says it is starting until generation
// begins, and utilization is busy time over the wall time since Run began:
// never more than the tool processes an oracle runs at once.
func TestStatusWhileStarting(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, Seeds: true, WaitWorkers: time.Minute,
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: 2 * time.Second, FuzzSlice: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := coord.Run(ctx); done <- err }()
	for deadline := time.Now().Add(10 * time.Second); !coord.Status().Starting; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a coordinator waiting for workers does not say it is starting")
		}
	}
	time.Sleep(500 * time.Millisecond)
	if s := coord.Status(); !s.Starting || s.TimeLeft != 2*time.Second {
		t.Fatalf("waiting for workers: starting %t, time left %s; want starting, the whole duration left", s.Starting, s.TimeLeft)
	}
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	w := specWorker(t, nc, "w1", nil)
	go func() { _ = w.Run(wctx) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := coord.Status()
	if s.Starting || s.Campaign.State != store.StateDone {
		t.Fatalf("after the run: starting %t, state %s", s.Starting, s.Campaign.State)
	}
	for name, u := range s.Utilization {
		if u < 0 || u > float64(runtime.GOMAXPROCS(0)) {
			t.Errorf("%s: utilization %.2f, more than its %d tool processes can be", name, u, runtime.GOMAXPROCS(0))
		}
	}
	if len(s.Utilization) == 0 {
		t.Error("no utilization after a campaign")
	}
}
