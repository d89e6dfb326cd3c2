// Package bench measures what batching buys the tool oracles (ptxas, llc,
// mlir-opt) and what the harness costs on top of the bare tool, so that the
// numbers issue 3 asks for come from one reproducible command instead of
// hand-timed runs.
//
// For each oracle it draws N distinct mixed cases (pseudo-random inputs,
// fixed seed, decoded in every domain the oracle judges, keeping those it
// does not call unsupported) and times, once each and one after another:
// the bare tool on exactly the files or commands the oracle's first pass
// runs, the oracle at its default batch size, and the oracle with one case
// per process. It then times the bare tool and the batched oracle again on
// N accepted-only cases (drawn the same way from another stream, accepted
// cases joining the mutation pool), where one pass suffices, and compares
// the batched and one-per-process verdicts case by case.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// Defaults for the zero Options fields.
const (
	DefaultCases   = 2000
	DefaultSeed    = 1
	DefaultTimeout = 60 * time.Second
)

// DefaultOracles are benchmarked when Options.Oracles is empty.
var DefaultOracles = []string{"ptxas", "llc@22", "mlir@19"}

// Options configure one benchmark run.
type Options struct {
	// Oracles names the oracles to benchmark (see Known); empty means
	// DefaultOracles.
	Oracles []string
	// Cases is N, the size of each case set; zero means DefaultCases.
	Cases int
	// Seed drives the case generator; zero means DefaultSeed.
	Seed uint64
	// Timeout bounds one bare tool run; zero means DefaultTimeout.
	Timeout time.Duration
	// Progress, when non-nil, gets one line per step.
	Progress io.Writer
	// Baseline, when set, is another legalfuzz binary (the parent commit's
	// build, say) whose own `bench batching` is run on each oracle just
	// before this one, same cases and seed, so that old and new are
	// measured side by side in one run under the same machine load.
	Baseline string
}

// Report is the benchmark's JSON output. Its field names are stable.
type Report struct {
	Generated time.Time      `json:"generated"`
	Machine   Machine        `json:"machine"`
	Oracles   []OracleReport `json:"oracles"`
	// Skipped lists the requested oracles that are not installed.
	Skipped []Skipped `json:"skipped"`
}

// Skipped is a requested oracle that could not be benchmarked.
type Skipped struct {
	Oracle string `json:"oracle"`
	Reason string `json:"reason"`
}

// OracleReport is one oracle's figures.
type OracleReport struct {
	Oracle  string `json:"oracle"`
	Version string `json:"version"`
	Path    string `json:"path"`
	Cases   int    `json:"cases"`
	Seed    uint64 `json:"seed"`
	// BatchSize is the oracle's default batch size; 0 means no cap.
	BatchSize int `json:"batch_size"`
	// Domains and Verdicts count the mixed cases by domain and by batched
	// verdict.
	Domains  map[string]int       `json:"domains"`
	Verdicts map[oracles.Kind]int `json:"verdicts"`
	// Targets counts the distinct targets (architecture and PTX version)
	// among the mixed cases: the tools are run per target, so it bounds
	// how large a batch can get.
	Targets int `json:"targets"`
	// LoadAverage is the machine's load average when this oracle's runs
	// started.
	LoadAverage []float64 `json:"load_average"`

	Batched             Timing `json:"batched"`
	OnePerProcess       Timing `json:"one_per_process"`
	Bare                Timing `json:"bare"`
	BatchedAcceptedOnly Timing `json:"batched_accepted_only"`
	BareAcceptedOnly    Timing `json:"bare_accepted_only"`
	// BatchedAcceptedOnlyWarm is the batched oracle on the accepted-only
	// cases once more, with the instance that drew the cases: its
	// per-target probes are cached, as in a long-running worker.
	BatchedAcceptedOnlyWarm Timing `json:"batched_accepted_only_warm"`

	// Speedup is batched over one-per-process throughput.
	Speedup float64 `json:"speedup"`
	// OverheadPct is (batched − bare) / bare in percent on the mixed cases;
	// OverheadPctAcceptedOnly the same on the accepted-only cases.
	OverheadPct             float64 `json:"overhead_pct"`
	OverheadPctAcceptedOnly float64 `json:"overhead_pct_accepted_only"`
	// OverheadPctAcceptedOnlyWarm is the same with the warm oracle.
	OverheadPctAcceptedOnlyWarm float64 `json:"overhead_pct_accepted_only_warm"`
	// The cpu_ figures are the same ratios over CPU time (tools plus
	// harness) instead of wall clock: steadier on a shared machine.
	CPUSpeedup                     float64 `json:"cpu_speedup"`
	CPUOverheadPct                 float64 `json:"cpu_overhead_pct"`
	CPUOverheadPctAcceptedOnly     float64 `json:"cpu_overhead_pct_accepted_only"`
	CPUOverheadPctAcceptedOnlyWarm float64 `json:"cpu_overhead_pct_accepted_only_warm"`

	// Mismatches counts cases whose batched and one-per-process verdicts
	// differ; MismatchDetails lists them.
	Mismatches      int        `json:"mismatches"`
	MismatchDetails []Mismatch `json:"mismatch_details"`
	Notes           string     `json:"notes"`

	// Baseline is the Options.Baseline binary's report on the same oracle,
	// measured just before; nil without one. BaselineSpeedup is batched
	// cases/s over the baseline's, on the mixed cases.
	Baseline        *OracleReport `json:"baseline,omitempty"`
	BaselineSpeedup float64       `json:"baseline_speedup,omitempty"`
}

// Mismatch is one case judged differently batched and one per process.
type Mismatch struct {
	Case          string `json:"case"`
	Domain        string `json:"domain"`
	Batched       Answer `json:"batched"`
	OnePerProcess Answer `json:"one_per_process"`
}

// Answer is the part of a verdict that must not depend on batching.
type Answer struct {
	Kind       oracles.Kind `json:"verdict"`
	Rule       string       `json:"rule"`
	Diagnostic string       `json:"diagnostic"`
	Value      string       `json:"value"`
}

func answer(v oracles.Verdict) Answer {
	return Answer{Kind: v.Kind, Rule: v.Rule, Diagnostic: diag.Normalize(v.Diagnostic), Value: v.Value}
}

// Run benchmarks each requested oracle in turn. A requested oracle that is
// not installed is listed in Skipped; an unknown name is an error.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	rep := &Report{Generated: time.Now().UTC().Truncate(time.Second), Machine: ThisMachine(),
		Oracles: []OracleReport{}, Skipped: []Skipped{}}
	for _, name := range opts.Oracles {
		if _, ok := subjects[oracles.Base(name)]; !ok {
			return nil, fmt.Errorf("bench: unknown oracle %q (known: %v)", name, Known())
		}
	}
	for _, name := range opts.Oracles {
		s, err := subjectOf(ctx, name)
		if err != nil {
			opts.logf("%s: skipped: %v", name, err)
			rep.Skipped = append(rep.Skipped, Skipped{Oracle: name, Reason: err.Error()})
			continue
		}
		var base *OracleReport
		if opts.Baseline != "" {
			if base, err = runBaseline(ctx, opts, name); err != nil {
				return nil, err
			}
		}
		or, err := benchOne(ctx, s, opts)
		if err != nil {
			return nil, err
		}
		if base != nil {
			or.Baseline = base
			if base.Batched.CasesPerS > 0 {
				or.BaselineSpeedup = round(or.Batched.CasesPerS/base.Batched.CasesPerS, 2)
			}
		}
		rep.Oracles = append(rep.Oracles, *or)
	}
	return rep, nil
}

func (o Options) withDefaults() Options {
	if len(o.Oracles) == 0 {
		o.Oracles = DefaultOracles
	}
	if o.Cases <= 0 {
		o.Cases = DefaultCases
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

func (o Options) logf(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// caseSets draws the mixed and the accepted-only cases, judged once by a
// fresh oracle to filter them. It returns that oracle too: its per-target
// probes are done, as in a long-running worker.
func caseSets(ctx context.Context, s *subject, opts Options) (mixed, acc []domain.Case, warm oracles.Oracle, err error) {
	warm, err = s.fresh(ctx, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("bench: %s: %w", s.name, err)
	}
	for _, set := range []struct {
		stream uint64
		keep   func(oracles.Verdict) bool
		breed  bool
		dst    *[]domain.Case
	}{{streamMixed, supported, false, &mixed}, {streamAccepted, accepted, true, &acc}} {
		g, err := newGenerator(opts.Seed, set.stream, s.judges)
		if err != nil {
			return nil, nil, nil, err
		}
		if *set.dst, err = pick(ctx, warm, g, opts.Cases, set.keep, set.breed); err != nil {
			return nil, nil, nil, err
		}
	}
	return mixed, acc, warm, nil
}

// benchOne times every mode of one oracle, once each, in the order listed.
func benchOne(ctx context.Context, s *subject, opts Options) (*OracleReport, error) {
	n := opts.Cases
	dir, err := os.MkdirTemp("", "legalfuzz-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(dir)
	// The probe cache starts empty for each oracle; drawing the cases fills
	// it, as a worker's first campaign does for the next.
	defer useCacheDir(filepath.Join(dir, "probes"))()
	opts.logf("%s %s: drawing %d mixed and %d accepted-only cases (seed %d)", s.name, s.version, n, n, opts.Seed)
	mixed, acc, warm, err := caseSets(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	r := &OracleReport{Oracle: s.name, Version: s.version, Path: s.path, Cases: n, Seed: opts.Seed,
		BatchSize: s.batchSize, Domains: map[string]int{}, Verdicts: map[oracles.Kind]int{}, LoadAverage: loadAverage()}
	var batched, single, accBatched []oracles.Verdict
	bareRun := func(cases []domain.Case) func() (Timing, []oracles.Verdict, error) {
		return func() (Timing, []oracles.Verdict, error) {
			t, err := bare(ctx, s, cases, dir, opts.Timeout)
			return t, nil, err
		}
	}
	judgeRun := func(cases []domain.Case, batch int) func() (Timing, []oracles.Verdict, error) {
		return func() (Timing, []oracles.Verdict, error) { return judged(ctx, s, cases, batch) }
	}
	for _, m := range []struct {
		name  string
		cases []domain.Case
		run   func() (Timing, []oracles.Verdict, error)
		dst   *Timing
		vs    *[]oracles.Verdict
	}{
		{"bare", mixed, bareRun(mixed), &r.Bare, nil},
		{"batched", mixed, judgeRun(mixed, 0), &r.Batched, &batched},
		{"one per process", mixed, judgeRun(mixed, 1), &r.OnePerProcess, &single},
		{"bare, accepted only", acc, bareRun(acc), &r.BareAcceptedOnly, nil},
		{"batched, accepted only, cold", acc, func() (Timing, []oracles.Verdict, error) {
			defer useCacheDir(filepath.Join(dir, "probes-cold"))()
			return judged(ctx, s, acc, 0)
		}, &r.BatchedAcceptedOnly, &accBatched},
		{"batched, accepted only, warm", acc, func() (Timing, []oracles.Verdict, error) {
			return timeJudge(ctx, warm, acc)
		}, &r.BatchedAcceptedOnlyWarm, nil},
	} {
		var vs []oracles.Verdict
		if *m.dst, vs, err = m.run(); err != nil {
			return nil, err
		}
		if m.vs != nil {
			*m.vs = vs
		}
		opts.logf("%s: %s: %d cases in %.2fs (%.1f cases/s, %d invocations)", s.name, m.name, len(m.cases),
			m.dst.Seconds, m.dst.CasesPerS, m.dst.Invocations)
	}
	summarize(r, s, mixed, batched, single, accBatched)
	return r, nil
}

// bare times the bare tool on the oracle's first-pass commands for cases;
// the files are written before the clock starts.
func bare(ctx context.Context, s *subject, cases []domain.Case, dir string, timeout time.Duration) (Timing, error) {
	sub, err := os.MkdirTemp(dir, "bare-")
	if err != nil {
		return Timing{}, fmt.Errorf("bench: %w", err)
	}
	cmds, err := s.firstPass(cases, sub)
	if err != nil {
		return Timing{}, fmt.Errorf("bench: %s: %w", s.name, err)
	}
	return timeBare(ctx, cmds, len(cases), timeout)
}

// judged times a fresh oracle with the given batch size on cases.
func judged(ctx context.Context, s *subject, cases []domain.Case, batch int) (Timing, []oracles.Verdict, error) {
	o, err := s.fresh(ctx, batch)
	if err != nil {
		return Timing{}, nil, fmt.Errorf("bench: %s: %w", s.name, err)
	}
	return timeJudge(ctx, o, cases)
}

// summarize fills the ratios, the verdict comparison and the notes.
func summarize(r *OracleReport, s *subject, mixed []domain.Case, batched, single, accBatched []oracles.Verdict) {
	r.MismatchDetails = []Mismatch{}
	targets := map[target.Target]bool{}
	for i, c := range mixed {
		targets[c.Value.Target()] = true
		r.Domains[c.Domain]++
		r.Verdicts[batched[i].Kind]++
		if a, b := answer(batched[i]), answer(single[i]); a != b {
			r.MismatchDetails = append(r.MismatchDetails, Mismatch{Case: c.ID, Domain: c.Domain, Batched: a, OnePerProcess: b})
		}
	}
	r.Mismatches = len(r.MismatchDetails)
	r.Targets = len(targets)
	if r.OnePerProcess.CasesPerS > 0 {
		r.Speedup = round(r.Batched.CasesPerS/r.OnePerProcess.CasesPerS, 2)
	}
	r.OverheadPct = overhead(r.Batched.Seconds, r.Bare.Seconds)
	r.OverheadPctAcceptedOnly = overhead(r.BatchedAcceptedOnly.Seconds, r.BareAcceptedOnly.Seconds)
	r.OverheadPctAcceptedOnlyWarm = overhead(r.BatchedAcceptedOnlyWarm.Seconds, r.BareAcceptedOnly.Seconds)
	if c := r.Batched.cpu(); c > 0 {
		r.CPUSpeedup = round(r.OnePerProcess.cpu()/c, 2)
	}
	r.CPUOverheadPct = overhead(r.Batched.cpu(), r.Bare.cpu())
	r.CPUOverheadPctAcceptedOnly = overhead(r.BatchedAcceptedOnly.cpu(), r.BareAcceptedOnly.cpu())
	r.CPUOverheadPctAcceptedOnlyWarm = overhead(r.BatchedAcceptedOnlyWarm.cpu(), r.BareAcceptedOnly.cpu())
	notAccepted := 0
	for _, v := range accBatched {
		if v.Kind != oracles.Accept {
			notAccepted++
		}
	}
	r.Notes = fmt.Sprintf("%s Mixed cases (%d targets): %d invocations batched against %d bare, %.1f%% "+
		"overhead (%.1f%% in CPU time). Accepted-only cases: %d against %d, %.1f%% (CPU %.1f%%), the "+
		"harness's own cost without re-runs; with a warm oracle (per-target probes cached, as in a "+
		"long-running worker) %d invocations, %.1f%% (CPU %.1f%%). Up to %d tool runs at once "+
		"(GOMAXPROCS), bare and batched alike.", s.notes, r.Targets,
		r.Batched.Invocations, r.Bare.Invocations, r.OverheadPct, r.CPUOverheadPct,
		r.BatchedAcceptedOnly.Invocations, r.BareAcceptedOnly.Invocations, r.OverheadPctAcceptedOnly,
		r.CPUOverheadPctAcceptedOnly, r.BatchedAcceptedOnlyWarm.Invocations, r.OverheadPctAcceptedOnlyWarm,
		r.CPUOverheadPctAcceptedOnlyWarm, runtime.GOMAXPROCS(0))
	if bad := r.Verdicts[oracles.Error] + r.Verdicts[oracles.Timeout]; bad > 0 {
		r.Notes += fmt.Sprintf(" %d mixed cases crashed or hung the tool (error or timeout verdicts, "+
			"findings about the tool); the batched oracle spends extra runs isolating each one.", bad)
	}
	if cores := runtime.NumCPU(); len(r.LoadAverage) > 0 && r.LoadAverage[0] > float64(cores) {
		r.Notes += fmt.Sprintf(" The machine was busy (load average %.1f on %d cores): other work slowed "+
			"the wall-clock figures unevenly, one run each; the cpu_ figures are steadier.", r.LoadAverage[0], cores)
	}
	if notAccepted > 0 {
		r.Notes += fmt.Sprintf(" %d accepted-only cases were not accepted when judged again: the tool's "+
			"verdict is not reproducible for them.", notAccepted)
	}
}

// overhead is (batched − bare) / bare, in percent.
func overhead(batched, bare float64) float64 {
	if bare <= 0 {
		return 0
	}
	return round(100*(batched-bare)/bare, 1)
}

// useCacheDir points the oracles' probe cache at dir (created empty when
// missing) until the returned function restores the previous setting. The
// benchmark runs one oracle at a time, so the process-wide setting is
// its own.
func useCacheDir(dir string) func() {
	old, had := os.LookupEnv(batch.CacheDirEnv)
	os.Setenv(batch.CacheDirEnv, dir)
	return func() {
		if had {
			os.Setenv(batch.CacheDirEnv, old)
		} else {
			os.Unsetenv(batch.CacheDirEnv)
		}
	}
}

// runBaseline runs the baseline binary's benchmark on one oracle with the
// same cases and seed and returns its report on it.
func runBaseline(ctx context.Context, opts Options, name string) (*OracleReport, error) {
	out, err := os.CreateTemp("", "legalfuzz-baseline-*.json")
	if err != nil {
		return nil, fmt.Errorf("bench: baseline: %w", err)
	}
	out.Close()
	defer os.Remove(out.Name())
	opts.logf("%s: baseline %s", name, opts.Baseline)
	cmd := exec.CommandContext(ctx, opts.Baseline, "bench", "batching", "--oracles", name,
		"--cases", strconv.Itoa(opts.Cases), "--seed", strconv.FormatUint(opts.Seed, 10), "--out", out.Name())
	cmd.Stderr = opts.Progress
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	// The baseline exits 1 when its verdicts differ batched and one per
	// process; its report is written anyway and says so.
	runErr := cmd.Run()
	data, err := os.ReadFile(out.Name())
	if err != nil || len(data) == 0 {
		return nil, fmt.Errorf("bench: baseline %s: no report (%v, %v)", opts.Baseline, runErr, err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("bench: baseline report: %w", err)
	}
	if len(rep.Oracles) != 1 {
		return nil, fmt.Errorf("bench: baseline %s measured %d oracles for %s (skipped: %v)", opts.Baseline, len(rep.Oracles), name, rep.Skipped)
	}
	return &rep.Oracles[0], nil
}
