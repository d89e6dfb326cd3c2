package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// garbage is one message published straight onto a subject, and the words
// its dead letter's reason must contain.
type garbage struct {
	name, subject string
	data          []byte
	reason        string
}

// TestGarbageMessages publishes garbage, truncated and forged messages on
// the jobs, results, inputs and dead-letter subjects, and puts a case whose
// bytes do not match its ID into an otherwise good batch. Each bad message
// becomes exactly one dead letter in the store with a clear reason, the
// corrupt case is dead for each oracle, and every good case is judged.
func TestGarbageMessages(t *testing.T) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 2 * time.Second, MaxDeliver: 2}
	const campaign = "garbage"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := queue.Setup(ctx, js, qcfg); err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t, "")
	coord, err := coordinator.New(kindwordCampaign(db, nc, qcfg, campaign, 2*time.Second, 4))
	if err != nil {
		t.Fatal(err)
	}

	// Cases go into the store as a crashed coordinator leaves them (stored,
	// not enqueued), so the corrupt one sits in the second batch of its own
	// campaign: its ID is another case's, its bytes are a third case's.
	all := mustCases(t, "kindword", 18, 7)
	good, other := all[:16], all[16:]
	corrupt := domain.Case{Domain: "kindword", ID: other[0].ID}
	var recs []store.CaseRecord
	for i, c := range good {
		if i == 5 {
			recs = append(recs, store.CaseRecord{ID: corrupt.ID, Domain: "kindword", Data: other[1].Value.Encode(), Campaign: campaign, Source: "test"})
		}
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: "kindword", Data: c.Value.Encode(), Campaign: campaign, Source: "test"})
	}
	if _, err := db.AddCases(campaign, recs); err != nil {
		t.Fatal(err)
	}

	msgs := garbageMessages(campaign, good[0].ID)
	for _, g := range msgs {
		if _, err := js.Publish(ctx, g.subject, g.data); err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
	}
	a := testoracle.New(testoracle.Config{Name: "fixed-a", Domains: []string{"kindword"}})
	b := testoracle.New(testoracle.Config{Name: "fixed-b", Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, a, b)
	camp := runTo(t, coord, 2*time.Minute)
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)

	want := reliability.Expect{Cases: append(good, corrupt), Oracles: []string{"fixed-a", "fixed-b"},
		Dead: map[string][]string{corrupt.ID: {"fixed-a", "fixed-b"}}}
	if err := reliability.CheckCampaign(db, camp, want); err != nil {
		t.Error(err)
	}
	dls, err := db.DeadLetters()
	if err != nil {
		t.Fatal(err)
	}
	for _, dl := range dls {
		t.Logf("dead letter on %s: %s", dl.Subject, dl.Reason)
	}
	wantDead := len(msgs) + 2 // the corrupt case, once per oracle
	if camp.Stats.DeadLetters != wantDead || len(dls) != wantDead {
		t.Errorf("%d dead letters counted, %d stored; want %d", camp.Stats.DeadLetters, len(dls), wantDead)
	}
	for _, g := range append(msgs, garbage{name: "corrupt case", reason: "case bytes do not match the case ID"}) {
		n := 0
		for _, dl := range dls {
			if strings.Contains(dl.Reason, g.reason) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no dead letter says %q", g.name, g.reason)
		}
	}
	// Nothing is left behind on the streams: every message was acked or
	// terminated.
	for _, name := range []string{"LF_JOBS", "LF_RESULTS", "LF_INPUTS"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.CachedInfo().State.Msgs; n != 0 {
			t.Errorf("%d messages left on %s", n, name)
		}
	}
}

// garbageMessages are the bad messages of TestGarbageMessages; known is a
// case of the campaign.
func garbageMessages(campaign, known string) []garbage {
	job := queue.Encode(queue.Job{V: queue.Version, Campaign: campaign, Batch: "b", Oracle: "fixed-a", Domain: "kindword",
		Cases: []queue.WireCase{{ID: known, Data: []byte{1, 2, 3}}}})
	res := queue.Encode(queue.Result{V: queue.Version, Campaign: campaign, Batch: "b", Worker: "forger", Oracle: "fixed-a", Domain: "kindword",
		Verdicts: []oracles.Verdict{{Oracle: "fixed-a", Case: known, Domain: "kindword", Kind: oracles.Accept}}})
	in := queue.Encode(queue.Inputs{V: queue.Version, Campaign: campaign, Domain: "kindword", Source: "test", Inputs: [][]byte{{1, 2, 3}}})
	dl := queue.Encode(queue.DeadLetter{V: queue.Version, Campaign: campaign, Worker: "w", Subject: "jobs.x.y", Reason: "r"})
	jobs, results := queue.JobSubject("fixed-a", "kindword"), queue.ResultSubject(campaign)
	inputs, dead := queue.InputsSubject(campaign), queue.DeadSubject(campaign)
	return []garbage{
		{"job: not JSON", jobs, []byte("\x00\xffnot json"), "looking for beginning of value (on jobs.fixed-a.kindword)"},
		{"job: truncated", jobs, job[:len(job)/2], "garbage message: unexpected EOF (on jobs.fixed-a.kindword)"},
		{"job: empty", jobs, nil, "garbage message: EOF (on jobs.fixed-a.kindword)"},
		{"job: other wire version", jobs, []byte(strings.Replace(string(job), `"v":1`, `"v":2`, 1)), "wire version 2, want 1 (on jobs.fixed-a.kindword)"},
		{"job: unknown field", jobs, []byte(`{"v":1,"campaign":"garbage","evil":true}`), `unknown field "evil" (on jobs.fixed-a.kindword)`},
		{"job: forged, unknown domain and case", jobs,
			queue.Encode(queue.Job{V: queue.Version, Campaign: campaign, Batch: "forged", Oracle: "fixed-a", Domain: "nosuch",
				Cases: []queue.WireCase{{ID: "0123456789abcdef", Data: []byte{1}}}}), `result: undecodable report for case "0123456789abcdef", which is not this campaign's`},
		{"result: not JSON", results, []byte("garbage"), "result: garbage message"},
		{"result: truncated", results, res[:len(res)-3], "result: garbage message"},
		{"result: unknown case", results, []byte(strings.Replace(string(res), known, "fedcba9876543210", 1)), `verdict for case "fedcba9876543210", which is not this campaign's`},
		{"result: forged, an oracle nobody runs", results, []byte(strings.ReplaceAll(string(res), `"fixed-a"`, `"gpu"`)),
			`verdict of gpu for case "` + known + `", which no job of this campaign asked gpu for`},
		{"result: unknown verdict kind", results, []byte(strings.Replace(string(res), `"verdict":"accept"`, `"verdict":"maybe"`, 1)), `unknown verdict kind "maybe"`},
		{"inputs: not JSON", inputs, []byte("{"), "inputs: garbage message"},
		{"inputs: truncated", inputs, in[:len(in)-1], "inputs: garbage message"},
		{"inputs: other campaign", inputs, []byte(strings.Replace(string(in), campaign, "other", 1)), `inputs for campaign "other"`},
		{"inputs: unknown domain", inputs, []byte(strings.Replace(string(in), "kindword", "nosuch", 1)), `inputs: unknown domain "nosuch"`},
		{"dead letter: not JSON", dead, []byte("]]"), "dead letter: garbage message"},
		{"dead letter: truncated", dead, dl[:10], "dead letter: garbage message"},
		{"dead letter: forged, 5000 cases", dead, forgedDead(campaign), "worker w: forged (on jobs.fixed-a.kindword)"},
		// A case stored and not yet marked enqueued (here: as a crash left
		// it) must not be counted dead for an oracle nobody runs: the soak
		// found 5 such dead marks, which lower the work owed.
		{"dead letter: forged, a case of the campaign for an oracle nobody runs", dead, forgedDeadFor(campaign, known, "gpu"),
			"worker w: forged (on jobs.gpu.kindword)"},
		{"result: forged, an undecodable case for an oracle nobody runs", results,
			queue.Encode(queue.Result{V: queue.Version, Campaign: campaign, Batch: "b", Worker: "forger", Oracle: "gpu", Domain: "kindword",
				Bad: []queue.BadCase{{ID: known, Error: "forged"}}}),
			`undecodable report of gpu for case "` + known + `", which no job of this campaign asked gpu for`},
	}
}

// forgedDeadFor is a dead letter claiming a job of oracle for one case.
func forgedDeadFor(campaign, caseID, oracle string) []byte {
	job := queue.Job{V: queue.Version, Campaign: campaign, Batch: "forged", Oracle: oracle, Domain: "kindword",
		Cases: []queue.WireCase{{ID: caseID, Data: []byte{1}}}}
	return queue.Encode(queue.DeadLetter{V: queue.Version, Campaign: campaign, Worker: "w", Subject: queue.JobSubject(oracle, "kindword"),
		Reason: "forged", Data: queue.Encode(job)})
}

// forgedDead is a dead letter claiming a job of 5,000 cases the campaign
// never had: it must count as one dead letter and no dead case.
func forgedDead(campaign string) []byte {
	job := queue.Job{V: queue.Version, Campaign: campaign, Batch: "forged", Oracle: "fixed-a", Domain: "kindword"}
	for i := range 5000 {
		job.Cases = append(job.Cases, queue.WireCase{ID: fmt.Sprintf("%016x", i), Data: []byte{1}})
	}
	return queue.Encode(queue.DeadLetter{V: queue.Version, Campaign: campaign, Worker: "w", Subject: "jobs.fixed-a.kindword",
		Reason: "forged", Data: queue.Encode(job)})
}

// TestWorkerWithoutCredentialsRefused starts a server that requires a user
// and password: clients and worker processes with no or wrong credentials
// are refused with an authorization error, and never join the registry; a
// worker with the right ones joins.
func TestWorkerWithoutCredentialsRefused(t *testing.T) {
	const user, password = "legalfuzz", "s3cret-for-tests"
	ns := queuetest.Server(t, func(o *server.Options) { o.Username, o.Password = user, password })
	url := ns.ClientURL()
	for _, opt := range []nats.Option{func(*nats.Options) error { return nil }, nats.UserInfo(user, "wrong")} {
		nc, err := nats.Connect(url, opt, nats.MaxReconnects(0))
		if err == nil {
			nc.Close()
			t.Fatal("connected without valid credentials")
		}
		if !errors.Is(err, nats.ErrAuthorization) {
			t.Errorf("connect: %v, want an authorization error", err)
		}
	}
	wcfg := procConfig{Role: "worker", NATS: url, User: user, Password: "wrong", Name: "intruder",
		Fixed: []fixedSpec{{Name: "fixed", Domains: []string{"kindword"}}}}
	intruder := startProc(t, wcfg)
	err := intruder.wait(30 * time.Second)
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(intruder.stderr.String(), "Authorization Violation") {
		t.Errorf("worker with a wrong password: %v, stderr %q; want exit 2 and an authorization error", err, intruder.stderr.String())
	}

	nc := connect(t, "test", []string{url}, nats.UserInfo(user, password))
	js := jetStream(t, nc)
	setupStreams(t, js, queue.Config{}) // the coordinator's job; workers wait for it
	wcfg.Password, wcfg.Name = password, "member"
	startProc(t, wcfg)
	checkFor(t, 30*time.Second, 50*time.Millisecond, func() error {
		ws, err := queue.Workers(context.Background(), js)
		if err != nil {
			return err
		}
		var names []string
		for _, w := range ws {
			names = append(names, w.Worker)
		}
		if fmt.Sprint(names) != "[member]" {
			return fmt.Errorf("%w: registry holds %q, want only member", errNotYet, names)
		}
		return nil
	})
}

// TestWorkerLeastPrivilege runs a campaign whose worker holds only
// queue.WorkerPublish and queue.WorkerSubscribe: the campaign completes, and
// the worker's user can neither reconfigure a stream nor read results.
func TestWorkerLeastPrivilege(t *testing.T) {
	ns := queuetest.Server(t, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "coordinator", Password: "c-secret"},
			{Username: "worker", Password: "w-secret", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: queue.WorkerPublish},
				Subscribe: &server.SubjectPermission{Allow: queue.WorkerSubscribe}}},
		}
	})
	url := ns.ClientURL()
	nc := connect(t, "coordinator", []string{url}, nats.UserInfo("coordinator", "c-secret"))
	qcfg := queue.Config{AckWait: 5 * time.Second}
	const campaign = "least-privilege"
	cases := publishKindword(t, jetStream(t, nc), qcfg, campaign, 8, 21)
	wc := connect(t, "worker", []string{url}, nats.UserInfo("worker", "w-secret"))
	fixed := testoracle.New(testoracle.Config{Name: "fixed", Domains: []string{"kindword"}})
	orcs, sts := statuses(fixed)
	startWorker(t, wc, worker.Config{Name: "w", Oracles: orcs, Statuses: sts, Queue: qcfg})

	db := storetest.Open(t, "")
	camp := runCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, time.Second, 4), 2*time.Minute)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"fixed"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // a refused request times out
	defer cancel()
	wjs := jetStream(t, wc)
	if err := queue.Setup(ctx, wjs, qcfg); err == nil {
		t.Error("the worker user reconfigured the streams")
	}
	if _, err := queue.ResultConsumer(ctx, wjs, qcfg, campaign); err == nil {
		t.Error("the worker user made a consumer of the results")
	}
}

// TestDuplicateDeadLetterCountsOnce: a forged dead letter naming the
// campaign's pending cases 100 times each, for its slow oracle, counted
// each 100 times dead (the issue's: 5,700 dead cases, outstanding -4010,
// the campaign done with 1,633 pairs never judged, exit 0). Each pending
// pair counts dead once, a verdict after it revives it, and the audit
// finds the counters as the store holds them.
func TestDuplicateDeadLetterCountsOnce(t *testing.T) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 5}
	const campaign = "dup-dead"
	cases := publishKindword(t, js, qcfg, campaign, 8, 31)
	slow := testoracle.New(testoracle.Config{Name: "slow", Latency: 300 * time.Millisecond, Domains: []string{"kindword"}})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, slow)
	db := storetest.Open(t, "")
	opts := kindwordCampaign(db, nc, qcfg, campaign, 2*time.Second, 1)
	opts.Config.Oracles = []string{"slow"}
	coord, done := startCoordinator(t, opts, time.Minute)
	checkFor(t, 10*time.Second, 20*time.Millisecond, func() error { // the jobs are out, the verdicts not all in
		if c := coord.Campaign(); c.Stats.Enqueued < len(cases) {
			return fmt.Errorf("%d pairs enqueued", c.Stats.Enqueued)
		}
		return nil
	})
	job := queue.Job{V: queue.Version, Campaign: campaign, Batch: "forged", Oracle: "slow", Domain: "kindword"}
	for _, c := range cases {
		for range 100 {
			job.Cases = append(job.Cases, queue.WireCase{ID: c.ID, Data: []byte{1}})
		}
	}
	dl := queue.DeadLetter{V: queue.Version, Campaign: campaign, Worker: "forger", Subject: queue.JobSubject("slow", "kindword"),
		Reason: "forged", Data: queue.Encode(job)}
	if _, err := js.Publish(context.Background(), queue.DeadSubject(campaign), queue.Encode(dl)); err != nil {
		t.Fatal(err)
	}
	camp := <-done
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)
	if camp.Stats.Outstanding() != 0 || camp.Stats.DeadCases > len(cases) {
		t.Errorf("outstanding %d, dead cases %d; want 0 and at most %d", camp.Stats.Outstanding(), camp.Stats.DeadCases, len(cases))
	}
	a, err := reliability.AuditCampaign(db, campaign, "")
	if err != nil || !a.OK() {
		t.Errorf("audit: %v, violations %q", err, a.Violations)
	}
}
