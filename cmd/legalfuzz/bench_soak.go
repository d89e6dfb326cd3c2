package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/bench"
)

type benchSoakOptions struct {
	duration, killEvery, drain time.Duration
	campaignKills, workers     int
	forged, oversized          int
	oracles, domains           []string
	generator, fuzzBinary      string
	dir, out                   string
	hostile, liar, hanging     bool
}

// soakCampaign is the campaign ID of every soak: the storm forges for it.
const soakCampaign = "soak"

// soakMarker is in every forged diagnostic and reason of the storm.
const soakMarker = "LEGALFUZZ-SOAK-FORGED"

func newBenchSoakCmd() *cobra.Command {
	var o benchSoakOptions
	cmd := &cobra.Command{
		Use:   "soak --out FILE.json [--duration 10m] [--worker-kill-every 1m] [--campaign-kills 2] [--forged 100000]",
		Short: "Soak a real campaign under SIGKILLs and a storm of forged messages, then audit its store; write JSON",
		Long: `Soak starts a NATS server with JetStream on a loopback port (two users: the coordinator, with every
permission, and a worker holding only queue.WorkerPublish/WorkerSubscribe), then runs this binary as
child processes: one "legalfuzz campaign --nats" (coordinator and one local worker, --duration of
generation) and --workers "legalfuzz worker" processes. Every --worker-kill-every one worker is
SIGKILLed and started again; --campaign-kills times, evenly spread over --duration, the campaign
process is SIGKILLed and started again on the same store (a resume). A campaign that exits 2 (a
drain timeout with jobs owed) is resumed too, at most three times.

Meanwhile a storm, connected as the worker user (what an attacker who stole a worker's credentials
has), publishes --forged messages spread over --duration: random bytes, truncated results,
results forged for cases never enqueued, for an oracle no worker offers (gpu) and for the
campaign's cases under a mismatched oracle, dead letters claiming 16 or 5,000 cases that were
never enqueued, dead letters naming the campaign's own cases 100 times each for one of its oracles,
inputs of unknown domains or campaigns, results just under the payload limit; and
one message in a hundred on a jobs subject, which the worker user may not publish to. --oversized
messages over the payload limit go on raw connections, which the server must refuse.

With --hostile (the default) the campaign and its workers also run ` + hostileOracle + `, a verifier (this
binary's hidden "bench hostile-verifier") that rejects every kindword case with a diagnostic whose
first line is 40 KiB: over bbolt's key limit, which such a line once blocked a campaign on for good.

When the campaign is done the storm stops, the workers are stopped, and the store is opened
read-only and audited (reliability.AuditCampaign): every enqueued (case, oracle) pair has exactly
one verdict or dead mark (lost, double), no verdict, dead mark or bucket comes from a forged
message (forged_kept: the marker ` + soakMarker + `, an oracle outside the campaign, a
pair never enqueued), no counter or bucket counts more or less than the store holds (miscounted).

The JSON written to --out (field names are stable):
  generated, command, machine (cores, gomaxprocs, load_average at the start)
  duration_s, wall_s, campaign, oracles, domains, generator
  workers, worker_kills, worker_restarts
  campaign_starts, campaign_kills, campaign_exits[]   how each campaign process ended
  storm        sent (messages the streams stored), by_kind{}, publish_errors,
               jobs_attempted, jobs_denied (refused by the worker user's permissions),
               oversized, oversized_refused (by the server), unread (left on the streams at the end)
  store        the audit: cases, pairs, verdicts, dead_pairs, dead_letters, forged_dead_letters,
               buckets, findings, lost, double, forged_kept, miscounted, violations[]
  ok           every invariant held

Exit 1 when any invariant failed (the report is written anyway).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", 10*time.Minute, "the campaign's generation time; the storm is spread over it")
	f.DurationVar(&o.killEvery, "worker-kill-every", time.Minute, "SIGKILL one worker process this often (round robin) and start it again")
	f.IntVar(&o.campaignKills, "campaign-kills", 2, "SIGKILL the campaign process this many times, evenly spread, and resume it")
	f.IntVar(&o.workers, "workers", 2, "worker processes beside the campaign's own local worker")
	f.IntVar(&o.forged, "forged", 100000, "garbage and forged messages the storm publishes")
	f.IntVar(&o.oversized, "oversized", 20, "messages over the payload limit, on raw connections")
	f.DurationVar(&o.drain, "drain-timeout", 5*time.Minute, "the campaign's --drain-timeout")
	f.StringSliceVar(&o.oracles, "oracles", []string{"spec/seed", "spec/ptxisa", "ptxas"}, "the campaign's oracles (those not available here are left out)")
	f.StringSliceVar(&o.domains, "domains", nil, "domains (default: all)")
	f.StringVar(&o.generator, "generator", coordinator.GenStructured,
		"the campaign's --generator (structured: paced to keep every oracle busy; the fuzz slices of all are not paced by the judges, and the random fallback floods the inputs)")
	f.StringVar(&o.fuzzBinary, "fuzz-binary", "bin/fuzz.test", "instrumented fuzz binary for campaign and workers; missing: random inputs")
	f.BoolVar(&o.liar, "liar", true, "add a lying worker (it answers the opposite verdict for one case in ten, each lie marked as forged); the campaign keeps every verdict, so that the audit sees every lie kept")
	f.BoolVar(&o.hanging, "hanging-toolchain", true, "start one more worker with --toolchain hang=DIR, tools that hang even on --version: it must refuse to start, naming them, while the campaign goes on")
	f.BoolVar(&o.hostile, "hostile", true, "add "+hostileOracle+", a verifier whose diagnostics' first lines pass the store's key limit, to the campaign and workers")
	f.StringVar(&o.dir, "dir", "legalfuzz-out/bench-soak", "work folder (replaced): NATS data, the store, logs")
	f.StringVar(&o.out, "out", "", "write the JSON report to this file (required)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// soakReport is the JSON of a soak.
type soakReport struct {
	Generated      time.Time         `json:"generated"`
	Command        string            `json:"command"`
	Machine        bench.Machine     `json:"machine"`
	DurationS      float64           `json:"duration_s"`
	WallS          float64           `json:"wall_s"`
	Campaign       string            `json:"campaign"`
	Oracles        []string          `json:"oracles"`
	Domains        []string          `json:"domains"`
	Generator      string            `json:"generator"`
	Workers        int               `json:"workers"`
	WorkerKills    int               `json:"worker_kills"`
	WorkerRestarts int               `json:"worker_restarts"`
	CampaignStarts int               `json:"campaign_starts"`
	CampaignKills  int               `json:"campaign_kills"`
	CampaignExits  []string          `json:"campaign_exits"`
	Storm          stormCounts       `json:"storm"`
	Store          reliability.Audit `json:"store"`
	// Quarantine is the campaign's quarantined workers; LiarCaught says the
	// lying worker is among them, and no honest one is.
	Quarantine []store.Quarantine `json:"quarantine"`
	LiarCaught bool               `json:"liar_caught,omitempty"`
	// HangingWorker is how the worker given the hanging toolchain ended.
	HangingWorker string `json:"hanging_worker,omitempty"`
	OK            bool   `json:"ok"`
}

func (o *benchSoakOptions) validate() error {
	if o.duration <= 0 || o.killEvery <= 0 || o.drain <= 0 {
		return fmt.Errorf("--duration %s, --worker-kill-every %s and --drain-timeout %s must be positive", o.duration, o.killEvery, o.drain)
	}
	if o.campaignKills < 0 || o.workers < 1 || o.forged < 0 || o.oversized < 0 {
		return errors.New("--campaign-kills, --forged and --oversized must not be negative, --workers at least 1")
	}
	for _, name := range o.oracles {
		if _, ok := oracles.Lookup(name); !ok {
			return fmt.Errorf("unknown oracle %q (see legalfuzz oracles)", name)
		}
	}
	return coordinator.Validate(store.CampaignConfig{Domains: o.domains})
}

func (o *benchSoakOptions) run(cmd *cobra.Command) error {
	if err := o.validate(); err != nil {
		return err
	}
	if err := o.availableOracles(cmd); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if o.hostile {
		o.oracles = append(o.oracles, hostileOracle)
	}
	if err := os.RemoveAll(o.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	rep := soakReport{Generated: time.Now().UTC(), Command: strings.Join(os.Args, " "), DurationS: o.duration.Seconds(),
		Campaign: soakCampaign, Oracles: o.oracles, Domains: o.domains, Generator: o.generator, Workers: o.workers,
		Machine: bench.ThisMachine()}
	ns, users, err := startSoakNATS(filepath.Join(o.dir, "nats"))
	if err != nil {
		return err
	}
	defer ns.Shutdown()
	start := time.Now()
	if err := o.soak(cmd, exe, ns, users, &rep); err != nil {
		return err
	}
	rep.WallS = time.Since(start).Seconds()
	db, err := store.OpenStoreReadOnly(filepath.Join(o.dir, "campaign", "legalfuzz.db"), 10*time.Second)
	if err != nil {
		return err
	}
	rep.Store, err = reliability.AuditCampaign(db, soakCampaign, soakMarker)
	if err == nil {
		rep.Quarantine, err = quarantine(db)
	}
	db.Close()
	if err != nil {
		return err
	}
	rep.LiarCaught = len(rep.Quarantine) == 1 && rep.Quarantine[0].Worker == soakLiar
	rep.OK = rep.Store.OK() && (rep.LiarCaught || !o.liar && len(rep.Quarantine) == 0)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	printSoak(cmd, rep)
	if !rep.OK && rep.Store.OK() {
		return fmt.Errorf("quarantined %+v; want the liar (%s) only: %w", rep.Quarantine, soakLiar, errFindings)
	}
	if !rep.OK {
		return fmt.Errorf("the store breaks %d invariants (see %s): %w", len(rep.Store.Violations), o.out, errFindings)
	}
	return nil
}

// availableOracles keeps the requested oracles installed here.
func (o *benchSoakOptions) availableOracles(cmd *cobra.Command) error {
	found, err := discover(cmd.Context())
	if err != nil {
		return err
	}
	defer found.Close()
	var keep []string
	for _, name := range o.oracles {
		for _, s := range found.Statuses {
			if s.Name == name && s.Available {
				keep = append(keep, name)
			}
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("none of the oracles %q is available here", o.oracles)
	}
	o.oracles = keep
	return nil
}

// soakUsers are the generated passwords of the soak server's two users.
type soakUsers struct{ coordinator, worker string }

// startSoakNATS starts a NATS server with JetStream on a free loopback port
// with two users: the coordinator (every permission) and a worker holding
// exactly the documented worker permissions.
func startSoakNATS(dir string) (*server.Server, soakUsers, error) {
	u := soakUsers{coordinator: secret(), worker: secret()}
	ns, err := server.NewServer(&server.Options{ServerName: "legalfuzz-soak", Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true, Users: []*server.User{
			{Username: "coordinator", Password: u.coordinator},
			{Username: "worker", Password: u.worker, Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: queue.WorkerPublish},
				Subscribe: &server.SubjectPermission{Allow: queue.WorkerSubscribe}}},
		}})
	if err != nil {
		return nil, u, fmt.Errorf("soak NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, u, errors.New("soak NATS did not start within 10s")
	}
	return ns, u, nil
}

func secret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func printSoak(cmd *cobra.Command, rep soakReport) {
	a := rep.Store
	tw := newTable(cmd.OutOrStdout(), "FIGURE\tVALUE")
	for _, row := range []struct {
		name string
		v    any
	}{
		{"wall (s)", fmt.Sprintf("%.0f", rep.WallS)},
		{"cases", a.Cases}, {"enqueued pairs", a.Pairs}, {"verdicts", a.Verdicts}, {"dead pairs", a.DeadPairs},
		{"dead letters (forged)", fmt.Sprintf("%d (%d)", a.DeadLetters, a.ForgedDeadLetters)},
		{"buckets", a.Buckets},
		{"worker kills / restarts", fmt.Sprintf("%d / %d", rep.WorkerKills, rep.WorkerRestarts)},
		{"campaign kills / starts", fmt.Sprintf("%d / %d", rep.CampaignKills, rep.CampaignStarts)},
		{"storm sent / unread", fmt.Sprintf("%d / %d", rep.Storm.Sent, rep.Storm.Unread)},
		{"jobs denied / attempted", fmt.Sprintf("%d / %d", rep.Storm.JobsDenied, rep.Storm.JobsAttempted)},
		{"oversized refused / sent", fmt.Sprintf("%d / %d", rep.Storm.OversizedRefused, rep.Storm.Oversized)},
		{"lost", a.Lost}, {"double", a.Double}, {"forged kept", a.ForgedKept}, {"miscounted", a.Miscounted},
		{"quarantined", quarantined(rep.Quarantine)},
		{"hanging-toolchain worker", rep.HangingWorker},
	} {
		fmt.Fprintf(tw, "%s\t%v\n", row.name, row.v)
	}
	_ = tw.Flush()
	for _, v := range a.Violations {
		fmt.Fprintln(cmd.ErrOrStderr(), "violation:", v)
	}
}

// soakLiar names the soak's lying worker.
const soakLiar = "soak-liar"

// quarantine is the soak campaign's quarantined workers.
func quarantine(db *store.Store) ([]store.Quarantine, error) {
	camp, _, err := db.GetCampaign(soakCampaign)
	return camp.Quarantine, err
}

// quarantined names the quarantined workers and why, for the table.
func quarantined(qs []store.Quarantine) string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Worker+" ("+q.Reason+")")
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}
