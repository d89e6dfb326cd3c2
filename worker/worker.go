// Package worker consumes jobs from NATS JetStream, runs oracles (and fuzz
// engines) on them, and publishes results. A worker never loses a job it
// took: a job is acked only after its result is stored by the server, and an
// unacked job is redelivered after the consumer's ack deadline.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Config is one worker's setup.
type Config struct {
	// Name identifies the worker in results and the registry; empty means
	// host-pid.
	Name    string
	Oracles []oracles.Oracle
	// Statuses are advertised with the oracles (versions, targets).
	Statuses []oracles.Status
	// Fuzz, if set, makes the worker also run fuzz slices.
	Fuzz  *Fuzzer
	Queue queue.Config
	// JobTimeout bounds one oracle call on one batch; a call that has not
	// answered by then (even one that ignores its context) is abandoned and
	// every case of the batch gets a Timeout verdict. Zero means
	// DefaultJobTimeout.
	JobTimeout time.Duration
	// StopGrace bounds how long a job in hand may go on once Run's context
	// has ended: then its oracle call is cancelled and the job nak'ed, to
	// be judged again by whoever runs next. A campaign's own workers use it
	// so that its drain timeout holds (a verifier's batch in hand made it
	// overrun by the batch). Zero means no bound: the job in hand is
	// finished (a worker's graceful drain on SIGTERM).
	StopGrace time.Duration
}

// givenBackDelay is the least time a job that names this worker in its
// NotBy waits before it is offered again: long enough for another worker
// to take it first.
const givenBackDelay = 200 * time.Millisecond

// DefaultJobTimeout bounds one batch when Config.JobTimeout is zero: far
// above any tool's own per-process timeout, so it only catches hangs.
const DefaultJobTimeout = 10 * time.Minute

// Worker runs jobs until its context ends.
type Worker struct {
	cfg Config
	js  jetstream.JetStream
	log *slog.Logger
	// stopped ends StopGrace after Run's context: the oracle calls in hand
	// are cancelled then. Never done when StopGrace is zero.
	stopped context.Context
	// refused is set once a job names this worker as quarantined: it
	// fetches nothing more.
	refused atomic.Bool
}

// errStopped is a job's oracle call cut short by StopGrace: the job is
// nak'ed, neither judged nor dead.
var errStopped = errors.New("worker stopped before the batch was judged")

// New makes a worker on a NATS connection.
func New(nc *nats.Conn, cfg Config) (*Worker, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return &Worker{cfg: cfg, js: js, log: slog.With("worker", cfg.Name), stopped: context.Background()}, nil
}

// stopAfterGrace makes w.stopped end StopGrace after ctx, if StopGrace is
// set; the returned function releases it when Run returns.
func (w *Worker) stopAfterGrace(ctx context.Context) func() {
	if w.cfg.StopGrace <= 0 {
		return func() {}
	}
	stopped, stop := context.WithCancel(context.Background())
	w.stopped = stopped
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped.Done():
			return
		}
		select {
		case <-time.After(w.cfg.StopGrace):
		case <-stopped.Done():
		}
		stop()
	}()
	return stop
}

// Run advertises the worker and consumes jobs until ctx is done; then it
// finishes the jobs in hand (graceful drain) and returns.
//
// A worker whose NATS user lacks a permission it needs does not start: it
// advertises why (Capability.Fault), so that the campaign stops naming it,
// and returns the reason.
func (w *Worker) Run(ctx context.Context) error {
	if err := queue.CheckWorkerPermissions(w.js.Conn()); err != nil {
		w.advertiseFault(ctx, err)
		return fmt.Errorf("worker %s: %w", w.cfg.Name, err)
	}
	if err := queue.WaitStreams(ctx, w.js); err != nil {
		return err
	}
	loops, err := w.loops(ctx)
	if err != nil {
		return err
	}
	defer w.stopAfterGrace(ctx)()
	// In the registry before its first job: a panel that found no worker
	// of an oracle whose job was already in hand called it unavailable.
	c := w.capability()
	w.put(ctx, c)
	var wg sync.WaitGroup
	errs := make(chan error, len(loops)+1)
	wg.Add(1)
	go func() { defer wg.Done(); errs <- w.advertise(ctx, c) }()
	for _, loop := range loops {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- loop() }()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// loops binds the worker's consumers, all before it takes a first job (a
// job in hand must never wait on a consumer that a stop then fails to
// bind), and returns the loop reading each. Each oracle reads its jobs
// and, beside them, its urgent lane: a minimizer's candidate is judged at
// once, not after the job in hand.
func (w *Worker) loops(ctx context.Context) ([]func() error, error) {
	var loops []func() error
	for _, o := range w.cfg.Oracles {
		for _, lane := range []func(context.Context, jetstream.JetStream, queue.Config, string) (jetstream.Consumer, error){
			queue.JobConsumer, queue.UrgentConsumer} {
			c, err := lane(ctx, w.js, w.cfg.Queue, o.Name())
			if err != nil {
				return nil, err
			}
			loops = append(loops, func() error { return w.consume(ctx, c, func(m jetstream.Msg) { w.handleJob(o, m) }) })
		}
	}
	if w.cfg.Fuzz != nil {
		c, err := queue.FuzzConsumer(ctx, w.js, w.cfg.Queue)
		if err != nil {
			return nil, err
		}
		loops = append(loops, func() error { return w.consume(ctx, c, func(m jetstream.Msg) { w.handleFuzz(ctx, m) }) })
	}
	return loops, nil
}

// capability is what the worker advertises.
func (w *Worker) capability() queue.Capability {
	c := queue.Capability{Worker: w.cfg.Name, Oracles: w.cfg.Statuses, Fuzz: w.cfg.Fuzz != nil, Urgent: true}
	c.Host, _ = os.Hostname()
	return c
}

// faultWait bounds how long a worker that cannot work waits for the
// coordinator's registry to say so there.
const faultWait = 10 * time.Second

// advertiseFault tells the campaign why the worker cannot work, if the
// registry is there within faultWait and the user may write it; the worker
// stops either way.
func (w *Worker) advertiseFault(ctx context.Context, fault error) {
	ctx, cancel := context.WithTimeout(ctx, faultWait)
	defer cancel()
	c := w.capability()
	c.Fault = fault.Error()
	err := queue.WaitStreams(ctx, w.js)
	if err == nil {
		err = queue.Advertise(ctx, w.js, c)
	}
	if err != nil {
		w.log.Warn("could not tell the campaign why this worker stops", "err", err)
	}
}

// advertise keeps the worker's registry entry fresh.
func (w *Worker) advertise(ctx context.Context, c queue.Capability) error {
	t := time.NewTicker(queue.HeartbeatPeriod())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		w.put(ctx, c)
	}
}

// put writes the worker's capability into the registry once.
func (w *Worker) put(ctx context.Context, c queue.Capability) {
	if err := queue.Advertise(ctx, w.js, c); err != nil && ctx.Err() == nil {
		w.log.Warn("advertise", "err", err)
	}
}

// consume fetches one message at a time and handles it; it stops fetching
// when ctx ends or the campaign quarantined the worker, but a message in
// hand is always finished.
func (w *Worker) consume(ctx context.Context, c jetstream.Consumer, handle func(jetstream.Msg)) error {
	for ctx.Err() == nil && !w.refused.Load() {
		batch, err := c.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			w.log.Warn("fetch", "err", err)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for m := range batch.Messages() {
			handle(m)
		}
	}
	return nil
}

// handleJob judges one job and publishes its result, then acks it.
func (w *Worker) handleJob(o oracles.Oracle, m jetstream.Msg) {
	ctx := context.Background() // a job in hand is finished even while draining
	job, err := queue.Decode[queue.Job](m.Data())
	if err != nil {
		w.deadLetter(ctx, m, queue.UnknownCampaign, err.Error())
		return
	}
	if slices.Contains(job.NotBy, w.cfg.Name) {
		// Another worker's to judge: a spot check of ours, or we are
		// quarantined. The delay varies, so that two workers each handed
		// the other's check do not swap them back in step.
		_ = m.NakWithDelay(givenBackDelay + rand.N(4*givenBackDelay))
		if job.Check == "" && !w.refused.Swap(true) {
			// Quarantined: taking jobs would only use up their
			// deliveries, which the others need.
			w.log.Error("the campaign quarantined this worker (a spot check found a verdict its tool does not give); it takes no more jobs", "campaign", job.Campaign)
		}
		return
	}
	cases, bad := decodeCases(job)
	stop := keepAlive(m, w.keepAlivePeriod())
	start := time.Now()
	verdicts, err := w.judge(o, cases)
	stop()
	if errors.Is(err, errStopped) {
		w.log.Warn("stopped with a job in hand; it will be redelivered", "batch", job.Batch)
		_ = m.Nak()
		return
	}
	if err != nil {
		w.retryOrDead(ctx, m, job.Campaign, fmt.Sprintf("oracle %s failed on batch %s: %v", o.Name(), job.Batch, err))
		return
	}
	res := queue.Result{V: queue.Version, Campaign: job.Campaign, Batch: job.Batch, Worker: w.cfg.Name,
		Oracle: o.Name(), Domain: job.Domain, Verdicts: verdicts, Bad: bad, Elapsed: time.Since(start), Check: job.Check}
	if err := w.publishResult(ctx, res); err != nil {
		w.retryOrDead(ctx, m, job.Campaign, fmt.Sprintf("publish result of batch %s: %v", job.Batch, err))
		return
	}
	if err := m.DoubleAck(ctx); err != nil {
		w.log.Warn("ack job; a redelivery is deduplicated by the coordinator", "batch", job.Batch, "err", err)
	}
}

// publishResult publishes a result, split into parts that each fit the
// server's payload limit, so a batch whose verdicts carry large diagnostics
// is stored rather than retried into oblivion. Each part is a result of its
// own for some of the batch's verdicts; the coordinator stores verdicts
// idempotently, whichever part brings them.
func (w *Worker) publishResult(ctx context.Context, res queue.Result) error {
	oracles.Clip(res.Verdicts) // a flooding verifier's diagnostics stay a few KiB each
	for _, part := range queue.SplitResult(res, w.js.Conn().MaxPayload()) {
		if _, err := w.js.Publish(ctx, queue.ResultSubject(res.Campaign), part); err != nil {
			return err
		}
	}
	return nil
}

// decodeCases rebuilds the job's cases from their canonical bytes. A case
// whose bytes do not decode, or do not hash to its ID, is reported as bad.
func decodeCases(job queue.Job) ([]domain.Case, []queue.BadCase) {
	d, ok := fuzz.Lookup(job.Domain)
	var cases []domain.Case
	var bad []queue.BadCase
	for _, wc := range job.Cases {
		if !ok {
			bad = append(bad, queue.BadCase{ID: wc.ID, Error: fmt.Sprintf("unknown domain %q", job.Domain)})
			continue
		}
		v, err := d.Decode(wc.Data)
		if err == nil && domain.ID(d.Name, v.Encode()) != wc.ID {
			err = errors.New("case bytes do not match the case ID")
		}
		if err != nil {
			bad = append(bad, queue.BadCase{ID: wc.ID, Error: err.Error()})
			continue
		}
		cases = append(cases, domain.NewCase(d.Name, v))
	}
	return cases, bad
}

// judge runs the oracle on a batch under the job timeout. An oracle that has
// not answered in time gets Timeout verdicts for the whole batch; its call
// is abandoned (its context is cancelled, and its goroutine ends whenever the
// oracle returns).
func (w *Worker) judge(o oracles.Oracle, cases []domain.Case) ([]oracles.Verdict, error) {
	limit := w.cfg.JobTimeout
	if limit <= 0 {
		limit = DefaultJobTimeout
	}
	ctx, cancel := context.WithTimeout(w.stopped, limit)
	defer cancel()
	type answer struct {
		verdicts []oracles.Verdict
		err      error
	}
	done := make(chan answer, 1)
	go func() {
		vs, err := o.Judge(ctx, cases)
		done <- answer{vs, err}
	}()
	select {
	case a := <-done:
		if a.err == nil || ctx.Err() == nil {
			return a.verdicts, a.err
		}
	case <-ctx.Done():
	}
	if w.stopped.Err() != nil {
		return nil, errStopped
	}
	out := make([]oracles.Verdict, len(cases))
	for i, c := range cases {
		out[i] = oracles.Verdict{Oracle: o.Name(), Version: o.Version(), Case: c.ID, Domain: c.Domain, Kind: oracles.Timeout,
			Diagnostic: fmt.Sprintf("%s did not judge its batch of %d cases within the job timeout (%s)", o.Name(), len(cases), limit)}
	}
	return out, nil
}

// keepAlivePeriod is how often a job in hand is reported in progress: well
// within the consumer's ack deadline, so a live worker's job is never
// redelivered to another.
func (w *Worker) keepAlivePeriod() time.Duration {
	ackWait := w.cfg.Queue.AckWait
	if ackWait <= 0 {
		ackWait = queue.DefaultAckWait
	}
	return min(5*time.Second, ackWait/3)
}

// keepAlive tells the server the job is in progress every period, so a slow
// batch is not redelivered while a killed worker's job still is.
func keepAlive(m jetstream.Msg, period time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// retryOrDead naks a job that failed for a harness reason, until its last
// delivery; then it becomes a dead letter so it never blocks the stream.
func (w *Worker) retryOrDead(ctx context.Context, m jetstream.Msg, campaign, reason string) {
	meta, err := m.Metadata()
	if err == nil && int(meta.NumDelivered) < w.maxDeliver() {
		w.log.Warn("job failed; will be redelivered", "reason", reason, "delivery", meta.NumDelivered)
		_ = m.NakWithDelay(time.Second)
		return
	}
	w.deadLetter(ctx, m, campaign, reason)
}

func (w *Worker) maxDeliver() int {
	if w.cfg.Queue.MaxDeliver > 0 {
		return w.cfg.Queue.MaxDeliver
	}
	return 5
}

// deadLetter publishes the message to the campaign's dead letters and
// terminates it (no more redeliveries).
func (w *Worker) deadLetter(ctx context.Context, m jetstream.Msg, campaign, reason string) {
	w.log.Error("dead letter", "subject", m.Subject(), "reason", reason)
	dl := queue.DeadLetter{V: queue.Version, Campaign: campaign, Worker: w.cfg.Name, Subject: m.Subject(), Reason: reason, Data: m.Data()}
	if _, err := w.js.Publish(ctx, queue.DeadSubject(campaign), queue.Encode(dl)); err != nil {
		w.log.Warn("publish dead letter; message will be redelivered", "err", err)
		_ = m.NakWithDelay(time.Second)
		return
	}
	_ = m.Term()
}
