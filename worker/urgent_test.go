package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// TestUrgentBesideTheJobInHand: while a worker holds a campaign's job (a
// batch its tool is stuck on), a minimizer's candidate sent through a
// Remote panel is judged on the urgent lane at once. With one lane it
// waited behind the job, and behind every job queued before it.
func TestUrgentBesideTheJobInHand(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stuck, candidate := kindword.Seeds()[0], kindword.Seeds()[1]
	stuckID := domain.NewCase(kindword.Name, stuck).ID
	held := make(chan struct{})
	orc := testoracle.New(testoracle.Config{
		Hang: func(c domain.Case) bool { return c.ID == stuckID },
		OnJudge: func(cs []domain.Case) {
			if cs[0].ID == stuckID {
				close(held)
			}
		},
	})
	defer orc.Release()
	w, err := worker.New(nc, worker.Config{Name: "w1", Oracles: []oracles.Oracle{orc}, Statuses: []oracles.Status{orc.Status(kindword.Name)}})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := queue.NewRemote(ctx, nc, queue.Config{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = w.Run(wctx) }()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	job := []queue.WireCase{{ID: stuckID, Data: stuck.Encode()}}
	if err := queue.PublishJobs(ctx, js, queue.Job{Campaign: "c", Oracle: orc.Name(), Domain: kindword.Name, Cases: job}, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the worker never took the campaign's job")
	}
	jctx, jcancel := context.WithTimeout(ctx, 20*time.Second)
	defer jcancel()
	c := domain.NewCase(kindword.Name, candidate)
	got, err := remote.Judge(jctx, []domain.Case{c}, []string{orc.Name()})
	if err != nil {
		t.Fatalf("the candidate was not judged while the worker held a job: %v", err)
	}
	if vs := got[c.ID]; len(vs) != 1 || vs[0].Kind != oracles.Accept {
		t.Errorf("verdicts of the candidate: %+v; want the fixed oracle's accept", vs)
	}
}
