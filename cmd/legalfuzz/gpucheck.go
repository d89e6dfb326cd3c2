package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/oracles/cuda/gpucheck"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

func newGPUCheckCmd() *cobra.Command {
	o := gpucheck.Options{Kit: "gpu-kit", Corpus: "fuzz/testdata/fuzz", Campaign: time.Minute, Tests: 75 * time.Second,
		PTXAS: tool.Candidates(ptxas.PTXAS13Config().Spec)}
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "gpu-check --out DIR [--kit DIR] [--dry-run]",
		Short: "The hardware leg in one call: record the GPU machine, run the GPU tests, judge the seeds, run a short campaign",
		Long: `gpu-check runs, from the repository root of a GPU machine, every step a short loan of it is for
(docs/gpu-worker.md): it records the machine, lists the oracles, runs the GPU package's tests, judges the
seed corpora with cuda-driver, cuda-jit, gpu and ptxas13 beside the spec, runs a campaign on them and
reports on it. Every step runs whatever the others did, each under its own deadline; the outputs are at
most eight files in --out (default $LEGALFUZZ_GPU_CHECK_OUT). Build the kit with make gpu-kit.
--dry-run is the rehearsal on a machine without a GPU: short steps, and exit 2 when a step failed
(unavailable is fine). Without it, exit 1 when a step failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Out == "" {
				o.Out = os.Getenv("LEGALFUZZ_GPU_CHECK_OUT")
			}
			if o.Out == "" {
				return fmt.Errorf("gpu-check: name the output folder with --out or LEGALFUZZ_GPU_CHECK_OUT")
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("gpu-check: %w", err)
			}
			o.Exe = exe
			if dryRun {
				o.Campaign, o.Tests = 5*time.Second, 60*time.Second
			}
			o.Progress = cmd.OutOrStdout()
			sum, err := gpucheck.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			failed := sum.Failed()
			if len(failed) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "gpu check: every step ran (%.0fs); files in %s\n", sum.Seconds, o.Out)
				return nil
			}
			var names []string
			for _, s := range failed {
				names = append(names, s.Name)
			}
			if dryRun {
				return fmt.Errorf("gpu-check dry run: failed steps: %s (see %s)", strings.Join(names, ", "), o.Out)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "gpu check: failed steps: %s; files in %s\n", strings.Join(names, ", "), o.Out)
			return errFindings
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "", "folder for the check's files (default $LEGALFUZZ_GPU_CHECK_OUT)")
	f.StringVar(&o.Kit, "kit", o.Kit, "folder holding cuda.test and fuzz.test (make gpu-kit)")
	f.StringVar(&o.Corpus, "corpus", o.Corpus, "seed corpus root")
	f.StringVar(&o.Work, "work", "", "scratch folder for the campaign (default: a temporary one, removed)")
	f.DurationVar(&o.Campaign, "campaign", o.Campaign, "campaign length")
	f.DurationVar(&o.Tests, "tests-timeout", o.Tests, "deadline of the GPU package's tests")
	f.BoolVar(&dryRun, "dry-run", false, "rehearse on a machine without a GPU: short steps, exit 2 if a step failed")
	return cmd
}
