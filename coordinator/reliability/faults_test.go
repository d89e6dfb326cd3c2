package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// TestHungAndCrashingOracles runs one worker with three fixed oracles that
// misbehave on chosen cases: "hangs" blocks (deaf to its context) on the
// first batch, "crashes" reports a tool crash on two cases, "fails" returns
// a harness error on one batch every time. The hang ends in Timeout verdicts
// for its batch after the worker's job timeout, the crashes are Error
// verdicts, the failing batch becomes a dead letter after its deliveries, and
// the same worker goes on judging every later job.
func TestHungAndCrashingOracles(t *testing.T) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 2 * time.Second, MaxDeliver: 2}
	const campaign = "faulty-oracles"
	cases := publishKindword(t, js, qcfg, campaign, 32, 5) // batches of 4: cases[0:4] is the first batch
	is := func(ids ...string) func(domain.Case) bool {
		return func(c domain.Case) bool { return slices.Contains(ids, c.ID) }
	}
	kw := []string{"kindword"}
	hangs := testoracle.New(testoracle.Config{Name: "hangs", Domains: kw, Hang: is(cases[0].ID)})
	t.Cleanup(hangs.Release)
	crashes := testoracle.New(testoracle.Config{Name: "crashes", Domains: kw, Crash: is(cases[5].ID, cases[9].ID)})
	fails := testoracle.New(testoracle.Config{Name: "fails", Domains: kw, Fail: is(cases[13].ID)})
	orcs, sts := statuses(hangs, crashes, fails)
	startWorker(t, connect(t, "worker", []string{ns.ClientURL()}),
		worker.Config{Name: "w1", Oracles: orcs, Statuses: sts, Queue: qcfg, JobTimeout: time.Second})

	db := storetest.Open(t, "")
	camp := runCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, time.Second, 4), 2*time.Minute)
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)

	dead := map[string][]string{}
	for _, c := range cases[12:16] {
		dead[c.ID] = []string{"fails"}
	}
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"crashes", "fails", "hangs"}, Dead: dead}); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		vs, err := db.Verdicts(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			want := oracles.Accept
			switch {
			case v.Oracle == "hangs" && i < 4:
				want = oracles.Timeout
			case v.Oracle == "crashes" && (i == 5 || i == 9):
				want = oracles.Error
			}
			if v.Kind != want {
				t.Errorf("case %d: %s said %s (%s), want %s", i, v.Oracle, v.Kind, v.Diagnostic, want)
			}
			if v.Kind == oracles.Timeout && !strings.Contains(v.Diagnostic, "job timeout (1s)") {
				t.Errorf("timeout verdict without a clear diagnostic: %q", v.Diagnostic)
			}
		}
	}
	// Every batch reached the oracles once; the failing one once per delivery.
	if got := hangs.Batches(); got != 8 {
		t.Errorf("hangs judged %d batches, want 8: the worker stopped after the hang", got)
	}
	if got := fails.Batches(); got != 7+int64(qcfg.MaxDeliver) {
		t.Errorf("fails was called %d times, want 7 batches + %d deliveries of the failing one", got, qcfg.MaxDeliver)
	}
	dls, err := db.DeadLetters()
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 1 || !strings.Contains(dls[0].Reason, "induced harness failure") || !strings.Contains(dls[0].Reason, "oracle fails failed on batch") {
		t.Errorf("dead letters %+v, want one naming the failing oracle and its error", dls)
	}
}

// TestEnqueueFailureLosesNothing makes the jobs stream refuse new jobs while
// the coordinator enqueues a batch of new inputs (as a full queue or a lost
// stream leader does), then lets it accept them again. The cases the failed
// try stored are not lost: redelivered inputs enqueue them at once; inputs
// past their last delivery leave them to the sweep before the campaign ends.
func TestEnqueueFailureLosesNothing(t *testing.T) {
	t.Run("inputs redelivered", func(t *testing.T) { enqueueFailure(t, 5, true) })
	t.Run("inputs not redelivered", func(t *testing.T) { enqueueFailure(t, 1, false) })
}

func enqueueFailure(t *testing.T, maxDeliver int, beforeDrain bool) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 2 * time.Second, MaxDeliver: maxDeliver}
	const campaign = "enqueue-failure"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := queue.Setup(ctx, js, qcfg); err != nil {
		t.Fatal(err)
	}
	fixed := testoracle.New(testoracle.Config{Name: "fixed", Latency: 300 * time.Millisecond, Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, fixed)

	db := storetest.Open(t, "")
	coord, done := startCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, 3*time.Second, 4), 2*time.Minute)
	checkFor(t, 30*time.Second, 10*time.Millisecond, func() error { // the coordinator's consumers exist
		_, err := js.Consumer(ctx, "LF_INPUTS", "inputs-"+campaign)
		return err
	})

	jobs, err := js.Stream(ctx, "LF_JOBS")
	if err != nil {
		t.Fatal(err)
	}
	full := jobs.CachedInfo().Config
	full.MaxMsgs, full.Discard = 2, jetstream.DiscardNew
	if _, err := js.UpdateStream(ctx, full); err != nil {
		t.Fatal(err)
	}
	cases := mustCases(t, "kindword", 32, 6)
	for _, in := range reliability.Inputs(campaign, "kindword", cases, 0) { // not publishInputs: Setup would lift the limit
		if _, err := js.Publish(ctx, queue.InputsSubject(campaign), queue.Encode(in)); err != nil {
			t.Fatal(err)
		}
	}
	// The cases are stored at once; their jobs are not enqueued (the stream
	// took two, then refused the third, and nothing was marked).
	checkFor(t, 30*time.Second, 10*time.Millisecond, func() error {
		if s := coord.Campaign().Stats; s.Cases != len(cases) {
			return fmt.Errorf("%w: %+v", errNotYet, s)
		}
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	if s := coord.Campaign().Stats; s.Enqueued != 0 {
		t.Fatalf("the full stream did not stop the enqueue: %+v", s)
	}
	full.MaxMsgs = -1
	if _, err := js.UpdateStream(ctx, full); err != nil {
		t.Fatal(err)
	}
	if beforeDrain {
		checkFor(t, 30*time.Second, 10*time.Millisecond, func() error {
			camp := coord.Campaign()
			if camp.State != store.StateRunning {
				t.Fatalf("the redelivered inputs enqueued nothing before the campaign drained: %+v", camp.Stats)
			}
			if camp.Stats.Enqueued != len(cases) {
				return fmt.Errorf("%w: %+v", errNotYet, camp.Stats)
			}
			return nil
		})
	}
	camp := <-done
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"fixed"}}); err != nil {
		t.Fatal(err)
	}
}

// TestFindingCountedOncePerCase commits a case's verdicts one oracle at a
// time, as results arrive: the finding completed by ptxas's verdict is
// re-evaluated when a later oracle's verdict comes, and must not be counted
// again.
func TestFindingCountedOncePerCase(t *testing.T) {
	db := storetest.Open(t, "")
	camp := store.Campaign{ID: "findings", State: store.StateRunning}
	if err := db.PutCampaign(camp); err != nil {
		t.Fatal(err)
	}
	c := mustCases(t, "kindword", 1, 8)[0]
	if _, err := db.AddCases(camp.ID, []store.CaseRecord{{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: camp.ID}}); err != nil {
		t.Fatal(err)
	}
	judged := func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement {
		return policy.PolicyFor("kindword").Evaluate(c, vs)
	}
	for _, v := range []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Kind: oracles.Reject, Rule: "ptxisa.kindword.1"},
		{Oracle: "ptxas", Kind: oracles.Accept},
		{Oracle: "spec/seed", Kind: oracles.Accept},
		{Oracle: "fixed-late", Kind: oracles.Accept},
	} {
		v.Case, v.Domain = c.ID, c.Domain
		if _, err := db.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{v}, Judged: judged, Campaign: camp.ID, Oracle: v.Oracle}); err != nil {
			t.Fatal(err)
		}
	}
	stored, _, err := db.GetCampaign(camp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := reliability.CheckFindings(db, stored); err != nil || stored.Stats.Findings != 1 {
		t.Errorf("%d findings (%v), want 1", stored.Stats.Findings, err)
	}
}

// TestRunEndsAfterItsLoops checks that a finished Run leaves nothing running
// that consumes the campaign's messages or writes its store (which its
// caller closes next): a message published right after Run returns stays on
// the stream, and the stored campaign is the one Run returned.
func TestRunEndsAfterItsLoops(t *testing.T) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 2 * time.Second}
	const campaign = "run-ends"
	publishKindword(t, js, qcfg, campaign, 4, 9)
	fixed := testoracle.New(testoracle.Config{Name: "fixed", Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, fixed)
	db := storetest.Open(t, "")
	camp := runCoordinator(t, coordinator.Options{Store: db, Conn: nc, Queue: qcfg, CampaignID: campaign, WaitWorkers: 20 * time.Second,
		Config: store.CampaignConfig{Generator: coordinator.GenNative, Domains: []string{"kindword"}, Duration: 500 * time.Millisecond}}, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, subject := range []string{queue.ResultSubject(campaign), queue.InputsSubject(campaign), queue.DeadSubject(campaign)} {
		if _, err := js.Publish(ctx, subject, []byte("after the end")); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // longer than a fetch's wait
	stored, _, err := db.GetCampaign(campaign)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Stats.DeadLetters != camp.Stats.DeadLetters {
		t.Errorf("the store counted %d dead letters after Run returned %d", stored.Stats.DeadLetters, camp.Stats.DeadLetters)
	}
	for _, name := range []string{"LF_RESULTS", "LF_INPUTS"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.CachedInfo().State.Msgs; n == 0 {
			t.Errorf("a message published on %s after Run returned was consumed", name)
		}
	}
}

// TestOversizedResultsStored: an oracle whose every verdict carries 100 KB of
// diagnostics (a flooding verifier) makes batches of 64 far larger than the
// server's 1 MiB payload limit. Nothing may be lost: every verdict is
// stored, no job is dead, and each diagnostic is cut with a marker.
func TestOversizedResultsStored(t *testing.T) {
	ns, nc := natsServer(t)
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 2}
	const campaign = "flood"
	cases := publishKindword(t, jetStream(t, nc), qcfg, campaign, 128, 11)
	flood := testoracle.New(testoracle.Config{Name: "flood", Domains: []string{"kindword"}, Kind: oracles.Error,
		Diagnostic: strings.Repeat("internal compiler error, stack frame\n", 100_000/37)})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, flood)

	db := storetest.Open(t, "")
	camp := runCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, time.Second, 64), 2*time.Minute)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"flood"}}); err != nil {
		t.Fatal(err)
	}
	vs, err := db.Verdicts(cases[0].ID)
	if err != nil || len(vs) != 1 || len(vs[0].Diagnostic) > clip.Max || !strings.HasSuffix(vs[0].Diagnostic, " bytes more") {
		t.Fatalf("verdicts %d, %v; want one with a diagnostic cut to %d bytes with a marker", len(vs), err, clip.Max)
	}
}

// TestDrainTimeoutLeavesResumable: a drain that times out with jobs a live
// worker is still judging does not mark the campaign done (it was, with
// hundreds of verdicts missing); a second run on the same store resumes it
// and ends with every verdict.
func TestDrainTimeoutLeavesResumable(t *testing.T) {
	ns, nc := natsServer(t)
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 5}
	const campaign = "slow-drain"
	cases := publishKindword(t, jetStream(t, nc), qcfg, campaign, 16, 13)
	slow := testoracle.New(testoracle.Config{Name: "slow", Latency: 700 * time.Millisecond, Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, slow)

	db := storetest.Open(t, "")
	opts := kindwordCampaign(db, nc, qcfg, campaign, 300*time.Millisecond, 2)
	opts.DrainTimeout = 200 * time.Millisecond
	coord, err := coordinator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	camp, err := coord.Run(ctx)
	if !errors.Is(err, coordinator.ErrIncomplete) || camp.State == store.StateDone || camp.Stats.Outstanding() == 0 {
		t.Fatalf("first run: %v, state %s, outstanding %d; want ErrIncomplete, not done, work owed", err, camp.State, camp.Stats.Outstanding())
	}
	// The line names who still owes what (it said only how many).
	if owes := fmt.Sprintf("slow owes %d (offered by w1)", camp.Stats.Outstanding()); !strings.Contains(err.Error(), owes) {
		t.Errorf("first run: %v; want it to say %q", err, owes)
	}
	opts.DrainTimeout = time.Minute
	camp = runCoordinator(t, opts, 2*time.Minute)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"slow"}}); err != nil {
		t.Fatal(err)
	}
}

// TestResumeWithNATSDataLost: the first run's jobs die with its NATS server;
// a resume on a fresh server republishes every job the store says is owed.
func TestResumeWithNATSDataLost(t *testing.T) {
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 5}
	const campaign = "lost-nats"
	cases := mustCases(t, "kindword", 12, 17)
	db := storetest.Open(t, "")
	run := func(latency, drain time.Duration) (store.Campaign, error) {
		ns, nc := natsServer(t)
		publishInputs(t, jetStream(t, nc), qcfg, campaign, "kindword", cases)
		o := testoracle.New(testoracle.Config{Name: "slow", Latency: latency, Domains: []string{"kindword"}})
		startFixedWorker(t, ns.ClientURL(), "w", qcfg, o)
		opts := kindwordCampaign(db, nc, qcfg, campaign, 300*time.Millisecond, 2)
		opts.DrainTimeout = drain
		coord, err := coordinator.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		camp, err := coord.Run(ctx)
		ns.Shutdown() // its jobs are gone
		return camp, err
	}
	if camp, err := run(time.Second, 200*time.Millisecond); !errors.Is(err, coordinator.ErrIncomplete) {
		t.Fatalf("first run: %v (outstanding %d); want ErrIncomplete", err, camp.Stats.Outstanding())
	}
	camp, err := run(0, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"slow"}}); err != nil {
		t.Fatal(err)
	}
}

// TestLongDiagnosticLine: a verifier whose diagnostic's first line passes
// bbolt's 32 KiB key limit failed the store transaction of every result
// fetched with it ("key too large"), real oracles' results included; after
// the last delivery the messages were dropped and the drain timed out, on
// every resume. Every verdict is stored, of both oracles.
func TestLongDiagnosticLine(t *testing.T) {
	ns, nc := natsServer(t)
	qcfg := queue.Config{AckWait: 2 * time.Second, MaxDeliver: 2}
	const campaign = "longline"
	cases := publishKindword(t, jetStream(t, nc), qcfg, campaign, 32, 19)
	long := testoracle.New(testoracle.Config{Name: "longline", Domains: []string{"kindword"}, Kind: oracles.Reject,
		Diagnostic: "error: " + strings.Repeat("overlong ", 40<<10/9) + "\nsecond line"})
	fine := testoracle.New(testoracle.Config{Name: "fine", Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, long, fine)

	db := storetest.Open(t, "")
	opts := kindwordCampaign(db, nc, qcfg, campaign, time.Second, 8)
	opts.DrainTimeout = 15 * time.Second
	camp := runCoordinator(t, opts, time.Minute)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"fine", "longline"}}); err != nil {
		t.Fatal(err)
	}
	checkClipped(t, db, cases, "longline")
}

// checkClipped checks that the stored verdicts of oracle for the cases
// still in the store quote at most clip.Max bytes of their diagnostic,
// saying how much was cut (a 40 KiB line was stored whole).
func checkClipped(t *testing.T, db *store.Store, cases []domain.Case, oracle string) {
	t.Helper()
	var seen int
	for _, c := range cases {
		vs, err := db.Verdicts(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.Oracle != oracle {
				continue
			}
			seen++
			if len(v.Diagnostic) > clip.Max || !strings.HasSuffix(v.Diagnostic, " bytes more") {
				t.Fatalf("case %s: a %d-byte diagnostic stored, ending %q; want it clipped", c.ID, len(v.Diagnostic), v.Diagnostic[max(0, len(v.Diagnostic)-40):])
			}
		}
	}
	if seen == 0 {
		t.Fatalf("no verdict of %s kept in the store to check", oracle)
	}
}

// TestStopGraceBoundsTheJobInHand: a campaign's drain timeout overran by a
// verifier's batch (60 s of generation and a 90 s drain took 175 s): its
// local workers finished the batch in hand after the campaign gave up. With
// StopGrace the oracle call in hand is cancelled that long after the stop
// and the job nak'ed: it comes again, neither judged nor dead.
func TestStopGraceBoundsTheJobInHand(t *testing.T) {
	_, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 30 * time.Second, MaxDeliver: 5}
	setupStreams(t, js, qcfg)
	cases := mustCases(t, "kindword", 4, 23)
	job := queue.Job{V: queue.Version, Campaign: "grace", Batch: "b", Oracle: "slow", Domain: "kindword"}
	for _, c := range cases {
		job.Cases = append(job.Cases, queue.WireCase{ID: c.ID, Data: c.Value.Encode()})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.Publish(ctx, queue.JobSubject("slow", "kindword"), queue.Encode(job)); err != nil {
		t.Fatal(err)
	}
	inHand := make(chan struct{}, 1)
	slow := testoracle.New(testoracle.Config{Name: "slow", Latency: time.Minute, Domains: []string{"kindword"},
		OnJudge: func([]domain.Case) { inHand <- struct{}{} }})
	orcs, sts := statuses(slow)
	w, err := worker.New(nc, worker.Config{Name: "w", Oracles: orcs, Statuses: sts, Queue: qcfg, StopGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	<-inHand
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker still judges its batch 10 s after its stop, with a 200 ms grace")
	}
	cons, err := queue.JobConsumer(ctx, js, qcfg, "slow")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for m := range batch.Messages() {
		meta, err := m.Metadata()
		if err != nil || meta.NumDelivered != 2 {
			t.Fatalf("the job came again as delivery %v (%v), want 2", meta, err)
		}
		return
	}
	t.Fatal("the job cut short was not redelivered")
}
