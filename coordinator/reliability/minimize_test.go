package reliability_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/worker"
)

// TestMinimizeOnRemoteWorker: the campaign's only "ptxas13" lives in another
// process (a fixed test oracle under that name, rejecting every kindword
// case), the spec oracles in this one. The disagreement spec/ptxisa accept ~
// ptxas13 reject makes buckets, and the remote panel minimizes them on the
// worker that has ptxas13, where the local panel cannot.
func TestMinimizeOnRemoteWorker(t *testing.T) {
	ns := queuetest.Server(t, nil)
	url := ns.ClientURL()
	nc := connect(t, "test", []string{url})
	qcfg := queue.Config{AckWait: 5 * time.Second}
	setupStreams(t, jetStream(t, nc), qcfg)
	startProc(t, procConfig{Role: "worker", Name: "gpu-box", NATS: url, Queue: qcfg,
		Fixed: []fixedSpec{{Name: "ptxas13", Kind: oracles.Reject, Domains: []string{"kindword"}}}})
	so, ss := spec.All()
	startWorker(t, connect(t, "local", []string{url}), worker.Config{Name: "local", Oracles: so, Statuses: ss, Queue: qcfg})
	js := jetStream(t, nc)
	checkFor(t, 30*time.Second, 100*time.Millisecond, func() error { // the coordinator enqueues for live workers only
		ws, err := queue.Workers(context.Background(), js)
		for _, name := range []string{"gpu-box", "local"} {
			if err != nil || !slices.ContainsFunc(ws, func(c queue.Capability) bool { return c.Worker == name }) {
				return fmt.Errorf("worker %s not registered (%v)", name, err)
			}
		}
		return nil
	})

	db := storetest.Open(t, "")
	camp := runCoordinator(t, coordinator.Options{Store: db, Conn: nc, Queue: qcfg, Seeds: true,
		WaitWorkers: 20 * time.Second, DrainTimeout: time.Minute,
		Config: store.CampaignConfig{Generator: coordinator.GenNative, Domains: []string{"kindword"}, Oracles: []string{"spec/ptxisa", "spec/seed", "ptxas13"},
			Duration: time.Second}}, 2*time.Minute)
	buckets, err := db.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	var b store.Bucket
	for _, cand := range buckets {
		if cand.Signature.Pair.B == "ptxas13" && cand.Signature.KindA == oracles.Accept {
			b = cand
		}
	}
	if b.Key == "" {
		t.Fatalf("campaign %+v made no spec/ptxisa accept ~ ptxas13 reject bucket among %d", camp.Stats, len(buckets))
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	local, err := coordinator.MinimizeBucket(ctx, db, oracles.Local{Oracles: so}, b, coordinator.MinimizeOptions{Budget: 20, ReChecks: 1})
	if err != nil || local.Minimized != "" || local.MinimizeNote == "" {
		t.Fatalf("local panel: bucket %+v, err %v; want a note that ptxas13 is not here", local, err)
	}
	remote, err := queue.NewRemote(ctx, nc, qcfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := coordinator.MinimizeBucket(ctx, db, remote, b, coordinator.MinimizeOptions{Budget: 60, ReChecks: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Minimized == "" || got.Reliability != 2 || got.MinimizeNote != "" {
		t.Fatalf("remote panel: bucket %+v; want it minimized and reproducing 2/2", got)
	}
	vs, err := db.Verdicts(got.Minimized)
	if err != nil || len(vs) != 2 {
		t.Fatalf("minimized case's verdicts %v, %v; want spec/ptxisa's and ptxas13's", vs, err)
	}
	t.Logf("bucket %s: %s -> %s", got.Key, got.Example, got.Minimized)
	// The minimized case is the campaign's, outside its counters: the audit
	// flagged it (lost, forged kept, miscounted) where nothing was wrong.
	if a, err := reliability.AuditCampaign(db, camp.ID, ""); err != nil || !a.OK() || a.Minimized != 1 {
		t.Errorf("audit after minimizing: %v, %d minimized cases, violations %q; want one, none", err, a.Minimized, a.Violations)
	}
}
