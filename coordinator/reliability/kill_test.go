package reliability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// TestWorkerKilledMidBatch SIGKILLs a worker process while it holds a batch
// and starts three others: the job is redelivered after the ack deadline and
// every case is judged by every oracle exactly once. Batches take twice the
// ack deadline and there are more workers than batches, so a worker that did
// not keep its job alive would see it redelivered to an idle worker while it
// still works on it: each batch must have exactly one result on the wire.
func TestWorkerKilledMidBatch(t *testing.T) {
	ns := queuetest.Server(t, nil)
	url := ns.ClientURL() // a real TCP port: the workers are other processes
	nc := connect(t, "test", []string{url})
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: time.Second, MaxDeliver: 5}
	const campaign = "kill-worker"
	cases := publishKindword(t, js, qcfg, campaign, 16, 1)
	results := watchResults(t, nc, campaign)

	latency := 2 * qcfg.AckWait
	wcfg := procConfig{Role: "worker", NATS: url, Queue: qcfg, Fixed: []fixedSpec{
		{Name: "fixed-a", Latency: latency, Domains: []string{"kindword"}},
		{Name: "fixed-b", Latency: latency, Domains: []string{"kindword"}},
	}}
	w1cfg := wcfg
	w1cfg.Name = "w1"
	w1 := startProc(t, w1cfg)

	db := storetest.Open(t, "")
	_, done := startCoordinator(t, kindwordCampaign(db, nc, qcfg, campaign, time.Second, 8), 2*time.Minute)

	line, err := w1.waitLine("judging ", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(latency / 3) // well inside the batch
	w1.kill()
	t.Logf("killed w1 while %s", line)
	var survivors []*proc
	for _, name := range []string{"w2", "w3", "w4"} {
		cfg := wcfg
		cfg.Name = name
		survivors = append(survivors, startProc(t, cfg))
	}

	var camp store.Campaign
	select {
	case camp = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("campaign did not end")
	}
	t.Logf("campaign %s: %+v", camp.ID, camp.Stats)
	if err := reliability.CheckCampaign(db, camp, reliability.Expect{Cases: cases, Oracles: []string{"fixed-a", "fixed-b"}}); err != nil {
		t.Fatal(err)
	}
	// The killed batch was judged, by a survivor; no batch was judged twice.
	f := strings.Fields(line) // judging ORACLE FIRSTCASE N
	killed := f[2] + "-" + f[1] + " " + f[1]
	batches := results.byBatch()
	t.Logf("results by batch: %v", batches)
	if got := batches[killed]; len(got) != 1 || got[0] == "w1" {
		t.Errorf("killed batch %q has results from %q, want one from a survivor", killed, got)
	}
	for b, ws := range batches {
		if len(ws) != 1 {
			t.Errorf("batch %q judged %d times (by %q)", b, len(ws), ws)
		}
	}
	// A duplicate may still be in progress when the campaign ends: count the
	// batches the survivors started.
	started := map[string][]string{}
	for _, p := range survivors {
		for _, l := range p.drainLines() {
			if f := strings.Fields(l); len(f) == 4 && f[0] == "judging" {
				started[f[2]+"-"+f[1]] = append(started[f[2]+"-"+f[1]], p.name)
			}
		}
	}
	t.Logf("batches started by the survivors: %v", started)
	for b, ws := range started {
		if len(ws) != 1 {
			t.Errorf("batch %s started %d times (by %q): a job was redelivered while a live worker held it", b, len(ws), ws)
		}
	}
	if want := 2 * 2; len(batches) != want {
		t.Errorf("%d batches have results, want %d", len(batches), want)
	}
}

// TestCoordinatorKilledAndRestarted SIGKILLs the coordinator process
// mid-campaign, after some findings were committed, and restarts it on the
// same store and NATS: the campaign resumes under its ID, every bucket
// committed before the kill is still there, and no job is lost or counted
// twice. The fixed "ptxas" accepts everything, so it disagrees with
// spec/ptxisa wherever the reference rejects: there are findings. A slower
// fixed oracle outside the policy judges each case after ptxas, so a finding
// is re-evaluated and must not be counted again.
func TestCoordinatorKilledAndRestarted(t *testing.T) {
	ns := queuetest.Server(t, nil)
	url := ns.ClientURL()
	nc := connect(t, "test", []string{url})
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 2 * time.Second, MaxDeliver: 5}
	const campaign = "kill-coordinator"
	cases := publishKindword(t, js, qcfg, campaign, 64, 2)

	ptxas := testoracle.New(testoracle.Config{Name: "ptxas", Latency: 250 * time.Millisecond, Domains: []string{"kindword"}})
	late := testoracle.New(testoracle.Config{Name: "fixed-late", Latency: 300 * time.Millisecond, Domains: []string{"kindword"}})
	orcs, sts := spec.All()
	orcs, sts = append(orcs, ptxas, late), append(sts, ptxas.Status(), late.Status())
	startWorker(t, connect(t, "worker", []string{url}), worker.Config{Name: "w1", Oracles: orcs, Statuses: sts, Queue: qcfg})

	dir := t.TempDir()
	ccfg := procConfig{Role: "coordinator", Name: "c1", NATS: url, Queue: qcfg, DB: filepath.Join(dir, "lf.db"),
		Campaign: campaign, StatusFile: filepath.Join(dir, "status1"),
		Config: store.CampaignConfig{Generator: coordinator.GenNative, Domains: []string{"kindword"}, Duration: time.Second, BatchSize: 4}}
	c1 := startProc(t, ccfg)
	var addr []byte
	checkFor(t, 30*time.Second, 20*time.Millisecond, func() (err error) {
		addr, err = os.ReadFile(ccfg.StatusFile)
		return err
	})
	checkFor(t, 60*time.Second, 10*time.Millisecond, func() error {
		if c1.exited() {
			t.Fatalf("coordinator exited early: %v; stdout %q", c1.err, c1.drainLines())
		}
		st, err := getStatus(string(addr))
		if err != nil {
			return err
		}
		if s := st.Campaign.Stats; s.NewBuckets == 0 || st.Outstanding < s.Enqueued/4 {
			return fmt.Errorf("%w: %+v", errNotYet, s)
		}
		return nil
	})
	c1.kill()

	before := readStore(t, ccfg.DB)
	t.Logf("killed the coordinator at %+v with %d buckets", before.camp.Stats, len(before.buckets))
	if before.camp.State == store.StateDone || before.camp.Stats.Outstanding() == 0 || len(before.buckets) == 0 {
		t.Fatalf("not killed mid-campaign with findings: %s %+v, %d buckets", before.camp.State, before.camp.Stats, len(before.buckets))
	}

	ccfg.Name, ccfg.Campaign, ccfg.StatusFile = "c2", "", filepath.Join(dir, "status2") // resume whatever is unfinished
	c2 := startProc(t, ccfg)
	if err := c2.wait(2 * time.Minute); err != nil {
		t.Fatalf("restarted coordinator: %v", err)
	}
	var reported store.Campaign
	if err := json.Unmarshal([]byte(<-c2.lines), &reported); err != nil || reported.ID != campaign {
		t.Fatalf("restarted coordinator ran campaign %q (%v), want %q resumed", reported.ID, err, campaign)
	}

	db := storetest.Open(t, ccfg.DB)
	all, err := db.Campaigns()
	if err != nil || len(all) != 1 || all[0].ID != campaign {
		t.Fatalf("store holds campaigns %+v (%v), want only %s", all, err, campaign)
	}
	camp := all[0]
	t.Logf("campaign %s after restart: %+v", camp.ID, camp.Stats)
	want := reliability.Expect{Cases: cases, Oracles: []string{"fixed-late", "ptxas", "spec/ptxisa", "spec/seed"}}
	if err := reliability.CheckCampaign(db, camp, want); err != nil {
		t.Fatal(err)
	}
	after, err := db.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range before.buckets {
		i := slices.IndexFunc(after, func(a store.Bucket) bool { return a.Key == b.Key })
		if i < 0 {
			t.Errorf("bucket %s (%s) committed before the kill is gone", b.Key, b.Title)
			continue
		}
		if a := after[i]; a.Cases < b.Cases || a.Example != b.Example || !a.FirstSeen.Equal(b.FirstSeen) {
			t.Errorf("bucket %s changed its past: before %+v, after %+v", b.Key, b, a)
		}
	}
	corpus, err := db.Corpus(camp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.corpus) == 0 {
		t.Errorf("no corpus committed before the kill")
	}
	for _, e := range before.corpus {
		if !slices.ContainsFunc(corpus, func(a store.CorpusEntry) bool { return a.Case == e.Case }) {
			t.Errorf("corpus case %s committed before the kill is gone", e.Case)
		}
	}
	if len(after) <= len(before.buckets) && camp.Stats.Findings <= before.camp.Stats.Findings {
		t.Errorf("no finding after the restart: %d buckets before, %d after", len(before.buckets), len(after))
	}
	for _, c := range cases {
		if err := wantFinding(db, c.ID); err != nil {
			t.Error(err)
		}
	}
}

type storeSnapshot struct {
	camp    store.Campaign
	buckets []store.Bucket
	corpus  []store.CorpusEntry
}

// readStore opens the store of a dead process, snapshots it, and closes it.
func readStore(t *testing.T, path string) storeSnapshot {
	t.Helper()
	db := storetest.Open(t, path)
	defer storetest.Close(t, db)
	all, err := db.Campaigns()
	if err != nil || len(all) != 1 {
		t.Fatalf("campaigns %+v, %v", all, err)
	}
	bs, err := db.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := db.Corpus(all[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return storeSnapshot{camp: all[0], buckets: bs, corpus: corpus}
}

// wantFinding checks the policy's verdict on one case: spec/ptxisa
// rejecting it (and the fixed ptxas accepting) is exactly one finding.
func wantFinding(db *store.Store, caseID string) error {
	vs, err := db.Verdicts(caseID)
	if err != nil {
		return err
	}
	reject := slices.ContainsFunc(vs, func(v oracles.Verdict) bool {
		return v.Oracle == oracles.SpecPTXISA && v.Kind == oracles.Reject
	})
	findings := 0
	for _, d := range policy.PolicyFor("kindword").Evaluate(domain.Case{ID: caseID, Domain: "kindword"}, vs) {
		if d.Finding() {
			findings++
		}
	}
	if reject != (findings == 1) || findings > 1 {
		return fmt.Errorf("case %s: spec/ptxisa rejects: %v, but %d findings", caseID, reject, findings)
	}
	return nil
}

var _ = context.Background

// TestResumeKeepsSampledJobs: a coordinator killed after publishing a
// case's jobs and before marking them enqueued left a sampled judge's job
// on the queue; the resumed campaign decided again, with that judge's
// backlog full, and marked the case without it, so the judge's real
// verdict became a dead letter ("which no job of this campaign asked sass
// for"). A case whose jobs may be on the queue goes to every judge it may
// have gone to.
func TestResumeKeepsSampledJobs(t *testing.T) {
	ns, nc := natsServer(t)
	js := jetStream(t, nc)
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 5}
	setupStreams(t, js, qcfg)
	const campaign = "sampled"
	db := storetest.Open(t, "")
	opts := kindwordCampaign(db, nc, qcfg, campaign, 300*time.Millisecond, 1)
	opts.Config.Oracles = []string{"fixed", "samp"}
	opts.Config.KeepAll = true          // the stranded cases' verdicts are read back
	coord, err := coordinator.New(opts) // the campaign as the killed run left it:
	if err != nil {
		t.Fatal(err)
	}
	all := mustCases(t, "kindword", 42, 29)
	owed, stranded := all[:40], all[40:] // a full backlog for samp, and two cases caught by the kill
	var recs []store.CaseRecord
	enq := map[string][]string{}
	for i, c := range all {
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: "kindword", Data: c.Value.Encode(), Campaign: campaign, Source: "test"})
		if i < len(owed) {
			enq[c.ID] = []string{"fixed", "samp"}
		}
	}
	if _, err := db.AddCases(campaign, recs); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkEnqueued(campaign, enq); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range all { // samp's jobs as the killed run left them: the stranded cases' behind the backlog
		job := queue.Job{V: queue.Version, Campaign: campaign, Oracle: "samp", Domain: "kindword", Batch: c.ID + "-samp",
			Cases: []queue.WireCase{{ID: c.ID, Data: c.Value.Encode()}}}
		if _, err := js.Publish(ctx, queue.JobSubject("samp", "kindword"), queue.Encode(job)); err != nil {
			t.Fatal(err)
		}
	}
	fixed := testoracle.New(testoracle.Config{Name: "fixed", Domains: []string{"kindword"}})
	samp := testoracle.New(testoracle.Config{Name: "samp", Domains: []string{"kindword"}, Sampled: true, Latency: 20 * time.Millisecond})
	startFixedWorker(t, ns.ClientURL(), "w1", qcfg, fixed, samp)

	camp := runTo(t, coord, time.Minute)
	if camp.Stats.DeadLetters != 0 {
		dls, _ := db.DeadLetters()
		t.Errorf("%d dead letters, want none: %+v", camp.Stats.DeadLetters, dls)
	}
	for _, c := range stranded {
		if vs, err := db.Verdicts(c.ID); err != nil || len(vs) != 2 {
			t.Errorf("stranded case %s: %d verdicts, %v; want fixed's and samp's", c.ID, len(vs), err)
		}
	}
}
