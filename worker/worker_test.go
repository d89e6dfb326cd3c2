package worker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// TestQueuedJobsJudgedTogether queues three jobs of two domains and a
// garbage message before the worker starts: the worker judges the three
// jobs' cases in one oracle call, publishes each job's own verdicts as its
// own result, and sends the garbage to the dead letters.
func TestQueuedJobsJudgedTogether(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 2}
	if err := queue.Setup(ctx, js, qcfg); err != nil {
		t.Fatal(err)
	}
	const campaign, oracle = "together", "fixed"
	jobs := map[string][]domain.Case{}
	for i, d := range []string{"kindword", "tmamode", "kindword"} {
		cases, err := reliability.Cases(d, 3+i, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		job := queue.Job{V: queue.Version, Campaign: campaign, Batch: string(rune('a' + i)), Oracle: oracle, Domain: d}
		for _, c := range cases {
			job.Cases = append(job.Cases, queue.WireCase{ID: c.ID, Data: c.Value.Encode()})
		}
		jobs[job.Batch] = cases
		if _, err := js.Publish(ctx, queue.JobSubject(oracle, d), queue.Encode(job)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.Publish(ctx, queue.JobSubject(oracle, "kindword"), []byte("{not a job")); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var calls []int
	orc := testoracle.New(testoracle.Config{Name: oracle, OnJudge: func(b []domain.Case) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, len(b))
	}})
	w, err := worker.New(nc, worker.Config{Name: "w1", Oracles: []oracles.Oracle{orc}, Statuses: []oracles.Status{orc.Status()},
		Queue: qcfg, JobsPerCall: 4})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = w.Run(wctx) }()

	results := collect[queue.Result](t, ctx, js, qcfg, queue.ResultConsumer, campaign, len(jobs))
	for _, r := range results {
		want := jobs[r.Batch]
		if len(r.Verdicts) != len(want) {
			t.Fatalf("batch %s: %d verdicts, want %d", r.Batch, len(r.Verdicts), len(want))
		}
		for i, v := range r.Verdicts {
			if v.Case != want[i].ID || v.Kind != oracles.Accept {
				t.Errorf("batch %s verdict %d: %s %s, want accept of %s", r.Batch, i, v.Kind, v.Case, want[i].ID)
			}
		}
	}
	dead := collect[queue.DeadLetter](t, ctx, js, qcfg, queue.DeadConsumer, queue.UnknownCampaign, 1)
	if dead[0].Reason == "" {
		t.Errorf("dead letter without a reason: %+v", dead[0])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0] != 3+4+5 {
		t.Errorf("oracle calls %v, want one of %d cases", calls, 3+4+5)
	}
}

// collect reads n messages of campaign from the consumer made by open.
func collect[T any](t *testing.T, ctx context.Context, js jetstream.JetStream, qcfg queue.Config,
	open func(context.Context, jetstream.JetStream, queue.Config, string) (jetstream.Consumer, error), campaign string, n int) []T {
	t.Helper()
	c, err := open(ctx, js, qcfg, campaign)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for len(out) < n && ctx.Err() == nil {
		batch, err := c.Fetch(n-len(out), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			v, err := queue.Decode[T](m.Data())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
			_ = m.Ack()
		}
	}
	if len(out) < n {
		t.Fatalf("%d messages of %d", len(out), n)
	}
	return out
}
