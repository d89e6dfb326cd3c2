package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/oracles/bench"
)

type benchGenerationOptions struct {
	duration   time.Duration
	drain      time.Duration
	domains    []string
	oracles    []string
	fuzzBinary string
	dir, out   string
}

func newBenchGenerationCmd() *cobra.Command {
	var o benchGenerationOptions
	cmd := &cobra.Command{
		Use:   "generation --out FILE.json [--duration 5m] [--domains ...] [--oracles ...] [--dir DIR]",
		Short: "Compare the generators, one campaign each on the same domains, oracles and duration; write JSON",
		Long: `Generation runs, one after another in this process, four campaigns on the same domains and
oracles, each in a fresh store under --dir/NAME: "seeds" judges the domains' seed values and
generates nothing (the baseline the generators must beat), then, for --duration each and with
--no-seeds, "native" (the instrumented fuzz binary only), "random" (random bytes only) and
"structured" (the coordinator's structured generator only). Judging what was queued continues
after the duration, up to --drain-timeout.

The JSON written to --out (field names are stable):
  generated, duration_s, domains, oracles, machine (cores, gomaxprocs)
  runs[]      one per campaign, in the order above:
    name, generator, seeds       what ran
    generation_s, drain_s        generation time and the time spent judging the queue after it
    cases, verdicts              unique cases stored and verdicts stored (cases judged)
    features, corpus             distinct features the judges showed, corpus size
    buckets, findings            distinct finding buckets, findings
    bucket_titles[]              the buckets' titles
    oracles{}                    per oracle: judged, busy_s, utilization (busy_s / (generation_s + drain_s))
  comparison  structured_features_over_native, structured_buckets_minus_seeds,
              buckets_structured_only[] (titles found by structured and neither by seeds nor random)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", 5*time.Minute, "generation time of each generator's campaign")
	f.DurationVar(&o.drain, "drain-timeout", time.Minute, "how long each campaign may judge its queue after generation")
	f.StringSliceVar(&o.domains, "domains", nil, "domains (default: all)")
	f.StringSliceVar(&o.oracles, "oracles", nil, "oracles (default: every available one)")
	f.StringVar(&o.fuzzBinary, "fuzz-binary", "bin/fuzz.test", "instrumented fuzz test binary for the native run (make fuzzbin)")
	f.StringVar(&o.dir, "dir", "legalfuzz-out/bench-generation", "work folder; each run's NAME subfolder is replaced")
	f.StringVar(&o.out, "out", "", "write the JSON report to this file (required)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// genRun is one campaign of the comparison.
type genRun struct {
	Name         string               `json:"name"`
	Generator    string               `json:"generator"`
	Seeds        bool                 `json:"seeds"`
	GenerationS  float64              `json:"generation_s"`
	DrainS       float64              `json:"drain_s"`
	Cases        int                  `json:"cases"`
	Verdicts     int                  `json:"verdicts"`
	Features     int                  `json:"features"`
	Corpus       int                  `json:"corpus"`
	Buckets      int                  `json:"buckets"`
	Findings     int                  `json:"findings"`
	BucketTitles []string             `json:"bucket_titles"`
	Oracles      map[string]oracleUse `json:"oracles"`
}

type oracleUse struct {
	Judged      int     `json:"judged"`
	BusyS       float64 `json:"busy_s"`
	Utilization float64 `json:"utilization"`
}

type genReport struct {
	Generated  time.Time      `json:"generated"`
	DurationS  float64        `json:"duration_s"`
	Domains    []string       `json:"domains"`
	Oracles    []string       `json:"oracles"`
	Machine    bench.Machine  `json:"machine"`
	Runs       []genRun       `json:"runs"`
	Comparison map[string]any `json:"comparison"`
}

func (o *benchGenerationOptions) run(cmd *cobra.Command) error {
	if o.duration <= 0 {
		return errors.New("--duration must be positive")
	}
	if _, err := os.Stat(o.fuzzBinary); err != nil {
		return fmt.Errorf("the native run needs the fuzz binary (make fuzzbin): %w", err)
	}
	rep := genReport{Generated: time.Now().UTC(), DurationS: o.duration.Seconds(), Domains: o.domains, Oracles: o.oracles,
		Machine: bench.ThisMachine()}
	plan := []struct {
		name, generator string
		seeds           bool
		duration        time.Duration
	}{
		{"seeds", coordinator.GenNone, true, time.Second},
		{"native", coordinator.GenNative, false, o.duration},
		{"random", coordinator.GenRandom, false, o.duration},
		{"structured", coordinator.GenStructured, false, o.duration},
	}
	for _, p := range plan {
		fmt.Fprintf(cmd.ErrOrStderr(), "bench generation: %s (%s)\n", p.name, p.duration)
		r, err := o.runOne(cmd, p.name, p.generator, p.seeds, p.duration)
		if err != nil {
			return fmt.Errorf("run %s: %w", p.name, err)
		}
		rep.Runs = append(rep.Runs, r)
	}
	rep.Comparison = compareRuns(rep.Runs)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return printGenRuns(cmd, rep)
}

// runOne runs one campaign in a fresh folder and reads its figures.
func (o *benchGenerationOptions) runOne(cmd *cobra.Command, name, generator string, seeds bool, d time.Duration) (genRun, error) {
	dir := filepath.Join(o.dir, name)
	if err := os.RemoveAll(dir); err != nil {
		return genRun{}, err
	}
	co := campaignOptions{duration: d, domains: o.domains, oracles: o.oracles, out: dir, campaignID: "bench-" + name,
		localWorkers: 1, fuzzBinary: o.fuzzBinary, noSeeds: !seeds, drain: o.drain, noMinimize: true, generator: generator}
	db, camp, err := co.execute(cmd)
	if err != nil {
		return genRun{}, err
	}
	defer db.Close()
	buckets, err := db.Buckets()
	if err != nil {
		return genRun{}, err
	}
	st := camp.Stats
	r := genRun{Name: name, Generator: generator, Seeds: seeds, GenerationS: camp.Elapsed.Seconds(), DrainS: camp.Draining.Seconds(),
		Cases: st.Cases, Verdicts: st.Judged, Features: st.Features, Corpus: st.Corpus, Buckets: len(buckets), Findings: st.Findings,
		BucketTitles: []string{}, Oracles: map[string]oracleUse{}}
	for _, b := range buckets {
		r.BucketTitles = append(r.BucketTitles, b.Title)
	}
	slices.Sort(r.BucketTitles)
	for n, use := range st.Oracles {
		r.Oracles[n] = oracleUse{Judged: use.Judged, BusyS: use.Elapsed.Seconds(), Utilization: camp.Utilization(n)}
	}
	return r, nil
}

// compareRuns states the targets: structured against native
// features, and against the seeds' and random's buckets.
func compareRuns(runs []genRun) map[string]any {
	by := map[string]genRun{}
	for _, r := range runs {
		by[r.Name] = r
	}
	s, n := by["structured"], by["native"]
	only := []string{}
	for _, t := range s.BucketTitles {
		if !slices.Contains(by["seeds"].BucketTitles, t) && !slices.Contains(by["random"].BucketTitles, t) {
			only = append(only, t)
		}
	}
	return map[string]any{
		"structured_features_over_native": float64(s.Features) / float64(max(n.Features, 1)),
		"structured_buckets_minus_seeds":  s.Buckets - by["seeds"].Buckets,
		"buckets_structured_only":         only,
	}
}

func printGenRuns(cmd *cobra.Command, rep genReport) error {
	tw := newTable(cmd.OutOrStdout(), "RUN\tCASES\tVERDICTS\tFEATURES\tCORPUS\tBUCKETS\tUTILIZATION")
	for _, r := range rep.Runs {
		names := slices.Sorted(maps.Keys(r.Oracles))
		util := ""
		for _, n := range names {
			util += fmt.Sprintf("%s %.0f%% ", n, 100*r.Oracles[n].Utilization)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", r.Name, r.Cases, r.Verdicts, r.Features, r.Corpus, r.Buckets, util)
	}
	return tw.Flush()
}
