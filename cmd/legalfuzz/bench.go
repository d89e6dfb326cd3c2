package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/oracles/bench"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure legalfuzz itself",
	}
	cmd.AddCommand(newBenchBatchingCmd(), newBenchGenerationCmd(), newBenchSoakCmd(), newBenchHostileVerifierCmd(), newBenchStoreCmd())
	return cmd
}

type benchBatchingOptions struct {
	oracles  []string
	cases    int
	seed     uint64
	out      string
	baseline string
}

func newBenchBatchingCmd() *cobra.Command {
	var o benchBatchingOptions
	cmd := &cobra.Command{
		Use:   "batching --out FILE.json [--oracles ptxas,llc@22,mlir@19] [--cases 2000] [--seed N] [--baseline OLD-LEGALFUZZ]",
		Short: "Time the tool oracles batched, one case per process, and the bare tool; write JSON",
		Long: `Batching draws N distinct mixed cases per oracle (random inputs from --seed, decoded in every
domain the oracle judges, keeping those it does not call unsupported) and times, once each, one after
another: the bare tool on exactly the files and command lines the oracle's first pass runs (no parsing),
the oracle at its default batch size, and the oracle with one case per process. It then times the bare
tool and the batched oracle again on N accepted-only cases (accepted ones bred by mutation), where one
pass suffices, and compares the batched and one-per-process verdicts case by case. Known oracles: ` +
			strings.Join(bench.Known(), ", ") + `.
The mlir oracle is timed as the verifier alone (mlir-opt --split-input-file), without the lowering.

Per-target probe answers are cached on disk (see oracles/batch). Each oracle starts with an empty cache in a
temporary directory; drawing the cases fills it, as a worker's first campaign does for the next, and the
batched and one-per-process runs find it so. The accepted-only batched run is cold: a fresh oracle with an
empty cache. The warm one reuses the instance that drew the cases.

With --baseline, another legalfuzz binary (the parent commit's build: go build -o /tmp/old ./cmd/legalfuzz
in a checkout of it) runs its own bench on each oracle just before this one, same cases and seed, and its
figures come back under "baseline", so that old and new are measured side by side in one run.

The JSON written to --out (field names are stable):
  generated          time of the run (UTC)
  machine            cores, gomaxprocs, cpu, os, arch, go, load_average (at the start)
  skipped[]          oracle, reason: requested oracles that are not installed
  oracles[]          one per oracle:
    oracle, version, path   the oracle and the tool it runs
    cases, seed             N and the generator seed
    batch_size              the oracle's default batch size (0: no cap, one run per target group)
    domains, verdicts       the mixed cases counted by domain and by batched verdict
    targets                 distinct targets (architecture, PTX version) among the mixed cases
    load_average            the machine's 1, 5, 15 minute load when this oracle's runs started
    batched, one_per_process, bare, batched_accepted_only, bare_accepted_only,
    batched_accepted_only_warm (the instance that drew the cases, its per-target probes cached):
                            seconds (wall clock, one run), cases_per_s, invocations (tool processes,
                            probes included), tool_cpu_seconds, harness_cpu_seconds
    speedup                 batched.cases_per_s / one_per_process.cases_per_s
    overhead_pct            100 * (batched - bare) / bare seconds, mixed cases
    overhead_pct_accepted_only   the same on the accepted-only cases
    overhead_pct_accepted_only_warm   the same with the warm oracle
    cpu_speedup, cpu_overhead_pct, cpu_overhead_pct_accepted_only, cpu_overhead_pct_accepted_only_warm
                            the same ratios over CPU time (tool_cpu_seconds + harness_cpu_seconds):
                            steadier than wall clock on a busy machine
    mismatches, mismatch_details[]   cases whose verdict, rule, normalized diagnostic or value
                            differ batched and one per process: case, domain, batched, one_per_process
    notes                   what the harness does beyond the bare run, and why the two overheads differ
    baseline, baseline_speedup   with --baseline: the old binary's report on this oracle, and
                            batched.cases_per_s over the old batched.cases_per_s

Exit 1 when any verdict differs between batched and one per process (the report is written anyway).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	cmd.Flags().StringSliceVar(&o.oracles, "oracles", bench.DefaultOracles, "oracles to benchmark")
	cmd.Flags().IntVar(&o.cases, "cases", bench.DefaultCases, "cases per set (N)")
	cmd.Flags().Uint64Var(&o.seed, "seed", bench.DefaultSeed, "seed of the case generator")
	cmd.Flags().StringVar(&o.out, "out", "", "write the JSON report to this file (required)")
	cmd.Flags().StringVar(&o.baseline, "baseline", "", "another legalfuzz binary to measure side by side (the old build)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func (o *benchBatchingOptions) run(cmd *cobra.Command) error {
	if o.cases <= 0 {
		return errors.New("--cases must be positive")
	}
	rep, err := bench.Run(cmd.Context(), bench.Options{Oracles: o.oracles, Cases: o.cases, Seed: o.seed,
		Progress: cmd.ErrOrStderr(), Baseline: o.baseline})
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
	tw := newTable(cmd.OutOrStdout(), "ORACLE\tCASES\tBATCHED/S\tONE/S\tSPEEDUP\tOVERHEAD\tOVERHEAD(ACCEPTED)\tMISMATCHES\tOLD BATCHED/S\tNEW/OLD")
	mismatches := 0
	for _, r := range rep.Oracles {
		mismatches += r.Mismatches
		old, ratio := "-", "-"
		if r.Baseline != nil {
			old, ratio = fmt.Sprintf("%.1f", r.Baseline.Batched.CasesPerS), fmt.Sprintf("%.2fx", r.BaselineSpeedup)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1fx\t%.1f%%\t%.1f%%\t%d\t%s\t%s\n", r.Oracle, r.Cases,
			r.Batched.CasesPerS, r.OnePerProcess.CasesPerS, r.Speedup, r.OverheadPct, r.OverheadPctAcceptedOnly, r.Mismatches, old, ratio)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(tw, "%s\tskipped: %s\n", s.Oracle, s.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if mismatches > 0 {
		return fmt.Errorf("%d verdicts differ batched and one per process (see %s): %w", mismatches, o.out, errFindings)
	}
	return nil
}
