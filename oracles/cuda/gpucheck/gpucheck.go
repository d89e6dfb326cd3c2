// Package gpucheck is the hardware leg in one call: the steps a short loan
// of a GPU machine runs, from the repository root, with only the kit that
// travels (the legalfuzz binary, the GPU package's test binary and the fuzz
// engine). It records the machine, runs the GPU tests, judges the seed
// corpora with the GPU oracles beside the spec, runs a short campaign and
// reports on it, and writes at most eight files into one folder.
//
// Every step runs, whatever the steps before it did: a GPU visit is too
// short to come back with the first failure only. Each step is a child
// process under its own deadline (a kernel fault or a hung driver call
// costs that step, not the check), and each says ok, failed or
// unavailable, with the reason.
package gpucheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// The oracles the check is about, and those it judges beside them.
var (
	GPUOracles  = []string{"cuda-driver", "cuda-jit", "gpu", "ptxas13"}
	SpecOracles = []string{"spec/seed", "spec/ptxisa"}
	// Domains are those whose seeds the GPU oracles can judge.
	Domains = []string{"tmadesc", "ldsm", "matdesc", "tmamode", "wgmma", "mma", "kindword", "blockscale"}
)

// The files a check writes into Options.Out: no more, since a GPU
// machine's output folder returns at most eight.
const (
	LogFile     = "check.log"    // every step's command, duration, status, and the campaign's output
	StepsFile   = "steps.json"   // the steps' outcomes (Summary)
	MachineFile = "machine.txt"  // nvidia-smi, driver, CUDA, ptxas 13, libcuda
	OraclesFile = "oracles.json" // legalfuzz oracles --json
	TestsFile   = "tests.txt"    // the GPU package's tests, -test.v
	JudgeFile   = "judge.json"   // legalfuzz judge --json on the seed corpora
	ReportJSON  = "report.json"  // the campaign's report
	ReportMD    = "report.md"
)

// Files lists every file a check may write.
var Files = []string{LogFile, StepsFile, MachineFile, OraclesFile, TestsFile, JudgeFile, ReportJSON, ReportMD}

// MaxFileBytes bounds each file: a GPU machine returns files of 16 MiB at most.
const MaxFileBytes = 15 << 20

// Statuses of a step.
const (
	OK          = "ok"
	Failed      = "failed"
	Unavailable = "unavailable"
)

// Options say where the kit and the outputs are, and how long the steps
// may take. The defaults fit six minutes.
type Options struct {
	Out    string // folder for the files above (created)
	Kit    string // folder holding TestBinary and FuzzBinary
	Exe    string // the legalfuzz binary the steps run
	Corpus string // seed corpus root, with one FuzzX folder per domain
	Work   string // scratch folder for the campaign's store (a temporary one if empty)
	// PTXAS are the ptxas builds whose versions the machine file records
	// (CUDA 13's candidates: the caller, who knows the ptxas family, names
	// them; this package imports no other family).
	PTXAS []string
	// Campaign is the campaign's length; Tests bounds the test binary.
	Campaign, Tests time.Duration
	Progress        io.Writer // one line per step as it ends (nil: none)
}

// The kit's binaries, as scripts/gpu-kit.sh names them.
const (
	TestBinary = "cuda.test"
	FuzzBinary = "fuzz.test"
)

// Step is one step's outcome.
type Step struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Reason  string   `json:"reason,omitempty"`
	Seconds float64  `json:"seconds"`
	Files   []string `json:"files,omitempty"`
	// Exit is 1 for a program that exited 1: legalfuzz's "findings", a
	// result; a test binary's failed tests.
	Exit int `json:"exit,omitempty"`
}

// Summary is steps.json.
type Summary struct {
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Steps   []Step    `json:"steps"`
	Env     []string  `json:"env,omitempty"` // what the check set for its steps
}

// Failed lists the steps that failed.
func (s Summary) Failed() []Step {
	var out []Step
	for _, st := range s.Steps {
		if st.Status == Failed {
			out = append(out, st)
		}
	}
	return out
}

// check is one run: its options, log and the environment its steps get.
type check struct {
	Options
	log  *capped
	env  []string
	stat []oracles.Status // from the oracles step
}

// Run runs every step and writes the files; the error is for a check that
// could not write its folder at all.
func Run(ctx context.Context, o Options) (Summary, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("gpu check: output folder: %w", err)
	}
	log, err := create(filepath.Join(o.Out, LogFile))
	if err != nil {
		return Summary{}, err
	}
	defer log.Close()
	if o.Work == "" {
		dir, err := os.MkdirTemp("", "legalfuzz-gpu-check-")
		if err != nil {
			return Summary{}, fmt.Errorf("gpu check: scratch folder: %w", err)
		}
		defer os.RemoveAll(dir)
		o.Work = dir
	}
	c := &check{Options: o, log: log}
	sum := Summary{Started: time.Now().UTC()}
	for _, s := range []struct {
		name string
		run  func(context.Context) Step
	}{
		{"machine", c.machine},
		{"oracles", c.oracles},
		{"tests", c.tests},
		{"judge", c.judge},
		{"campaign", c.campaign},
		{"report", c.report},
	} {
		start := time.Now()
		c.logf("== %s", s.name)
		st := s.run(ctx)
		st.Name, st.Seconds = s.name, time.Since(start).Round(time.Millisecond).Seconds()
		c.logf("== %s: %s %s (%.1fs)", s.name, st.Status, st.Reason, st.Seconds)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-9s %-11s %6.1fs  %s\n", s.name, st.Status, st.Seconds, st.Reason)
		}
		sum.Steps = append(sum.Steps, st)
	}
	sum.Seconds = time.Since(sum.Started).Round(time.Millisecond).Seconds()
	sum.Env = c.env
	return sum, writeJSONFile(filepath.Join(o.Out, StepsFile), sum)
}

func (c *check) logf(format string, args ...any) {
	fmt.Fprintf(c.log, time.Now().UTC().Format("15:04:05 ")+format+"\n", args...)
}

// available splits names into the oracles the oracles step found available
// and the others, with why each is missing.
func (c *check) available(names []string) (found, missing []string, why string) {
	var reasons []string
	for _, n := range names {
		i := slices.IndexFunc(c.stat, func(s oracles.Status) bool { return s.Name == n })
		switch {
		case i < 0:
			missing, reasons = append(missing, n), append(reasons, n+": not listed by legalfuzz oracles")
		case !c.stat[i].Available:
			missing, reasons = append(missing, n), append(reasons, n+": "+c.stat[i].Reason)
		default:
			found = append(found, n)
		}
	}
	return found, missing, strings.Join(reasons, "; ")
}

func (c *check) oracles(ctx context.Context) Step {
	path := filepath.Join(c.Out, OraclesFile)
	st := c.runTo(ctx, 45*time.Second, path, false, "", c.Exe, "oracles", "--json")
	if st.Status != OK {
		return st
	}
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &c.stat)
	}
	if err != nil {
		return Step{Status: Failed, Reason: "reading " + OraclesFile + ": " + err.Error(), Files: st.Files}
	}
	found, missing, why := c.available(GPUOracles)
	st.Reason = "GPU oracles available: " + list(found)
	if len(missing) > 0 {
		st.Reason += "; missing: " + why
	}
	return st
}

func (c *check) tests(ctx context.Context) Step {
	bin, err := filepath.Abs(filepath.Join(c.Kit, TestBinary))
	if err != nil || !isFile(bin) {
		return Step{Status: Failed, Reason: "no test binary " + bin + " (make gpu-kit)"}
	}
	// The package's folder, where go test would run it (its testdata).
	path := filepath.Join(c.Out, TestsFile)
	st := c.runTo(ctx, c.Tests+15*time.Second, path, true, filepath.Join("oracles", "cuda"),
		bin, "-test.v", "-test.timeout", c.Tests.String())
	if st.Exit == 1 {
		st.Status, st.Reason = Failed, "failed tests: "+failedTests(path)
	}
	return st
}

// failedTests lists the tests a -test.v output says failed.
func failedTests(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- FAIL: "); ok {
			names = append(names, strings.Fields(name)[0])
		}
	}
	return list(names)
}

// judge runs legalfuzz judge on the seeds of Domains with the GPU oracles
// found and the spec. Exit status 1 (a finding) is a result, not a failure.
func (c *check) judge(ctx context.Context) Step {
	root := filepath.Join(c.Work, "seeds")
	if err := copySeeds(c.Corpus, root); err != nil {
		return Step{Status: Failed, Reason: err.Error()}
	}
	found, missing, _ := c.available(GPUOracles)
	st := c.runTo(ctx, 60*time.Second, filepath.Join(c.Out, JudgeFile), false, "", c.Exe,
		"judge", "--json", "--oracles", strings.Join(append(SpecOracles, found...), ","), root)
	return withMissing(st, missing)
}

// drain bounds the campaign's wait for the jobs queued when generation
// stops, so the check ends inside its minutes; minimizing the buckets is
// left to a later campaign for the same reason.
const drain = 90 * time.Second

func (c *check) campaign(ctx context.Context) Step {
	found, missing, _ := c.available(GPUOracles)
	args := []string{"campaign", "--duration", c.Campaign.String(), "--out", filepath.Join(c.Work, "campaign"),
		"--domains", strings.Join(Domains, ","), "--oracles", strings.Join(append(SpecOracles, found...), ","),
		"--fuzz-binary", filepath.Join(c.Kit, FuzzBinary), "--no-minimize", "--drain-timeout", drain.String()}
	if !isFile(filepath.Join(c.Kit, FuzzBinary)) {
		return Step{Status: Failed, Reason: "no fuzz engine " + filepath.Join(c.Kit, FuzzBinary) + " (make gpu-kit)"}
	}
	st := c.runTo(ctx, c.Campaign+drain+45*time.Second, "", false, "", c.Exe, args...)
	return withMissing(st, missing)
}

func (c *check) report(ctx context.Context) Step {
	db := filepath.Join(c.Work, "campaign", "legalfuzz.db")
	if !isFile(db) {
		return Step{Status: Failed, Reason: "the campaign left no store " + db}
	}
	dir := filepath.Join(c.Work, "report")
	st := c.runTo(ctx, 30*time.Second, "", false, "", c.Exe, "report", "--db", db, "--out", dir, "--format", "json,md")
	for _, f := range []string{ReportJSON, ReportMD} {
		if err := copyCapped(filepath.Join(dir, f), filepath.Join(c.Out, f)); err != nil {
			return Step{Status: Failed, Reason: err.Error(), Files: st.Files}
		}
		st.Files = append(st.Files, f)
	}
	return st
}

// withMissing notes the GPU oracles a step ran without.
func withMissing(st Step, missing []string) Step {
	if len(missing) > 0 && st.Status == OK {
		st.Reason = strings.TrimSpace(st.Reason + " without " + strings.Join(missing, ", ") + " (see the oracles step)")
	}
	return st
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// copySeeds makes a corpus root holding only the FuzzX folders of Domains
// (the corpus reader takes files, not links).
func copySeeds(corpus, root string) error {
	for _, name := range Domains {
		d, ok := fuzz.Lookup(name)
		if !ok {
			return fmt.Errorf("unknown domain %q", name)
		}
		if err := os.CopyFS(filepath.Join(root, d.FuzzTarget), os.DirFS(filepath.Join(corpus, d.FuzzTarget))); err != nil {
			return fmt.Errorf("seed corpus: %w", err)
		}
	}
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("gpu check: %w", err)
	}
	return nil
}
