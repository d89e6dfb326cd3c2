package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// lieMarker is in every lie's diagnostic: the audit counts each one kept.
const lieMarker = "LEGALFUZZ-TEST-LIE"

// lyingSpec is the spec oracles, each wrapped by a lying test oracle that
// flips one verdict in ten.
func lyingSpec() ([]oracles.Oracle, []oracles.Status) {
	orcs, sts := spec.All()
	for i, o := range orcs {
		orcs[i] = testoracle.Liar{Oracle: o, OneIn: 10, Marker: lieMarker}
	}
	return orcs, sts
}

// rejudgeCampaign is a kindword campaign of the spec oracles, judged by
// the given workers, with spot checks and the spec oracles as arbiter. It
// keeps every verdict, so that the audit sees every lie kept.
func rejudgeCampaign(t *testing.T, campaign string, workers map[string]bool, drain time.Duration) (*store.Store, store.Campaign, error) {
	t.Helper()
	ns, nc := natsServer(t)
	qcfg := queue.Config{AckWait: 5 * time.Second, MaxDeliver: 20}
	for name, lies := range workers {
		orcs, sts := spec.All()
		if lies {
			orcs, sts = lyingSpec()
		}
		startWorker(t, connect(t, name, []string{ns.ClientURL()}), worker.Config{Name: name, Oracles: orcs, Statuses: sts, Queue: qcfg})
	}
	db := storetest.Open(t, "")
	arbiter, _ := spec.All()
	opts := coordinator.Options{Store: db, Conn: nc, Queue: qcfg, CampaignID: campaign, WaitWorkers: 20 * time.Second,
		DrainTimeout: drain, Seeds: true, Rejudge: 0.05, Arbiter: oracles.Local{Oracles: arbiter},
		Config: store.CampaignConfig{Generator: coordinator.GenStructured, Domains: []string{"kindword"},
			Oracles: []string{"spec/seed", "spec/ptxisa"}, Duration: 6 * time.Second, BatchSize: 32, KeepAll: true, Seed: 7}}
	coord, err := coordinator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	camp, err := coord.Run(ctx)
	t.Logf("campaign %s: %d cases, %d verdicts, %d spot checks, quarantine %+v; %v", camp.ID, camp.Stats.Cases, camp.Stats.Judged,
		camp.Stats.SpotChecks, camp.Quarantine, err)
	return db, camp, err
}

// auditClean audits the campaign for lies kept, pairs lost or counted
// twice; unfinished allows a campaign left draining.
func auditClean(t *testing.T, db *store.Store, campaign string, unfinished bool) {
	t.Helper()
	a, err := reliability.AuditCampaign(db, campaign, lieMarker)
	if err != nil {
		t.Fatal(err)
	}
	if unfinished {
		// Not done, and cases stored for want of a judge: a rerun with a
		// worker enqueues them, and the campaign's error says so.
		a.Violations = slices.DeleteFunc(a.Violations, func(v string) bool {
			return strings.HasPrefix(v, "state: ") || strings.HasPrefix(v, "never enqueued: ")
		})
	}
	if !a.OK() {
		t.Errorf("audit: lost %d, double %d, forged kept %d, miscounted %d: %q", a.Lost, a.Double, a.ForgedKept, a.Miscounted,
			a.Violations[:min(len(a.Violations), 10)])
	}
}

// TestLyingWorkerQuarantined: a worker whose oracles flip one verdict in
// ten, beside an honest one, is caught by a spot check, named, and none of
// its lies is kept; every pair still gets one verdict.
func TestLyingWorkerQuarantined(t *testing.T) {
	db, camp, err := rejudgeCampaign(t, "liar", map[string]bool{"honest": false, "liar": true}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !camp.Quarantined("liar") || camp.Quarantined("honest") {
		t.Fatalf("quarantine %+v; want the liar only", camp.Quarantine)
	}
	if q := camp.Quarantine[0]; !strings.Contains(q.Reason, "says") || q.Case == "" {
		t.Errorf("quarantine reason %q does not say what the tool said", q.Reason)
	}
	auditClean(t, db, camp.ID, false)
}

// TestSingleWorkerCheckedHere: with no other worker, the coordinator
// judges the spot checks itself, and an honest worker keeps its word.
func TestSingleWorkerCheckedHere(t *testing.T) {
	db, camp, err := rejudgeCampaign(t, "lone", map[string]bool{"lone": false}, time.Minute)
	if err != nil || len(camp.Quarantine) > 0 || camp.Stats.SpotChecks == 0 {
		t.Errorf("campaign: %v, quarantine %+v, %d spot checks; want done, none quarantined, some checks", err, camp.Quarantine, camp.Stats.SpotChecks)
	}
	auditClean(t, db, camp.ID, false)
}

// TestSingleLyingWorkerJudgedHere: a lone liar is caught by the
// coordinator's own checks; its jobs, which nobody else offers, become dead
// letters at the drain, never its lies, and the campaign says why it
// judged nothing.
func TestSingleLyingWorkerJudgedHere(t *testing.T) {
	db, camp, err := rejudgeCampaign(t, "lone-liar", map[string]bool{"liar": true}, 5*time.Second)
	if !camp.Quarantined("liar") {
		t.Fatalf("quarantine %+v; want the liar", camp.Quarantine)
	}
	if !errors.Is(err, coordinator.ErrNotJudged) || !strings.Contains(fmt.Sprint(err), "worker liar is quarantined (case ") {
		t.Errorf("campaign: %v; want ErrNotJudged naming the quarantine", err)
	}
	auditClean(t, db, camp.ID, true)
}

// TestHonestWorkersKeptWithChecks: honest workers are never quarantined,
// and a campaign with spot checks judges every pair once.
func TestHonestWorkersKeptWithChecks(t *testing.T) {
	db, camp, err := rejudgeCampaign(t, "honest", map[string]bool{"a": false, "b": false}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(camp.Quarantine) > 0 || camp.Stats.SpotChecks == 0 {
		t.Errorf("quarantine %+v, %d spot checks; want none quarantined and some checks", camp.Quarantine, camp.Stats.SpotChecks)
	}
	auditClean(t, db, camp.ID, false)
}
