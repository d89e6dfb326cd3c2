package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/internal/stress"
)

// benchSoakOptions are bench soak's flags: the soak's settings, the
// hostile verifier and the report's file.
type benchSoakOptions struct {
	stress.SoakOptions
	hostile bool
	out     string
}

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

With --hostile (the default) the campaign and its workers also run ` + stress.HostileOracle + `, a verifier (this
binary's hidden "bench hostile-verifier") that rejects every kindword case with a diagnostic whose
first line is 40 KiB: over bbolt's key limit, which such a line once blocked a campaign on for good.

When the campaign is done the storm stops, the workers are stopped, and the store is opened
read-only and audited (reliability.AuditCampaign): every enqueued (case, oracle) pair has exactly
one verdict or dead mark (lost, double), no verdict, dead mark or bucket comes from a forged
message (forged_kept: the marker ` + stress.Marker + `, an oracle outside the campaign, a
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
	f.DurationVar(&o.Duration, "duration", 10*time.Minute, "the campaign's generation time; the storm is spread over it")
	f.DurationVar(&o.KillEvery, "worker-kill-every", time.Minute, "SIGKILL one worker process this often (round robin) and start it again")
	f.IntVar(&o.CampaignKills, "campaign-kills", 2, "SIGKILL the campaign process this many times, evenly spread, and resume it")
	f.IntVar(&o.Workers, "workers", 2, "worker processes beside the campaign's own local worker")
	f.IntVar(&o.Forged, "forged", 100000, "garbage and forged messages the storm publishes")
	f.IntVar(&o.Oversized, "oversized", 20, "messages over the payload limit, on raw connections")
	f.DurationVar(&o.Drain, "drain-timeout", 5*time.Minute, "the campaign's --drain-timeout")
	f.StringSliceVar(&o.Oracles, "oracles", []string{"spec/seed", "spec/ptxisa", "ptxas"}, "the campaign's oracles (those not available here are left out)")
	f.StringSliceVar(&o.Domains, "domains", nil, "domains (default: all)")
	f.StringVar(&o.Generator, "generator", coordinator.GenStructured,
		"the campaign's --generator (structured: paced to keep every oracle busy; the fuzz slices of all are not paced by the judges, and the random fallback floods the inputs)")
	f.StringVar(&o.FuzzBinary, "fuzz-binary", "bin/fuzz.test", "instrumented fuzz binary for campaign and workers; missing: random inputs")
	f.BoolVar(&o.Liar, "liar", true, "add a lying worker (it answers the opposite verdict for one case in ten, each lie marked as forged); the campaign keeps every verdict, so that the audit sees every lie kept")
	f.BoolVar(&o.Hanging, "hanging-toolchain", true, "start one more worker with --toolchain hang=DIR, tools that hang even on --version: it must refuse to start, naming them, while the campaign goes on")
	f.BoolVar(&o.hostile, "hostile", true, "add "+stress.HostileOracle+", a verifier whose diagnostics' first lines pass the store's key limit, to the campaign and workers")
	f.StringVar(&o.Dir, "dir", "legalfuzz-out/bench-soak", "work folder (replaced): NATS data, the store, logs")
	f.StringVar(&o.out, "out", "", "write the JSON report to this file (required)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func (o *benchSoakOptions) run(cmd *cobra.Command) error {
	if err := o.Validate(); err != nil {
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
		o.Oracles = append(o.Oracles, stress.HostileOracle)
		o.UserOracles = []string{stress.HostileOracle + "=" + exe + " bench hostile-verifier"}
	}
	o.Exe, o.Command, o.Log = exe, strings.Join(os.Args, " "), cmd.ErrOrStderr()
	rep, err := stress.Soak(cmd.Context(), o.SoakOptions)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	printSoak(cmd, rep)
	if !rep.OK && rep.Store.OK() {
		return fmt.Errorf("quarantined %+v; want the liar (%s) only: %w", rep.Quarantine, stress.Liar, errFindings)
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
	for _, name := range o.Oracles {
		for _, s := range found.Statuses {
			if s.Name == name && s.Available {
				keep = append(keep, name)
			}
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("none of the oracles %q is available here", o.Oracles)
	}
	o.Oracles = keep
	return nil
}

func printSoak(cmd *cobra.Command, rep stress.SoakReport) {
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
