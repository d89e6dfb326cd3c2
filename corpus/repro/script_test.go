package repro

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/corpus/regress/regresstest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// judgedStore plants, in a store of the test's own, the cases of
// testdata/buckets (one per bucket of a 60 s campaign, docs/corpus.md) with
// the verdicts of every oracle installed here, committed through the
// domains' policies as a campaign does: the buckets are the ones these
// tools make of these cases. It skips the test under -short, and where
// mlir-opt 19 (half the buckets' tool) is not installed, for every test
// that needs these buckets.
func judgedStore(t *testing.T) (*store.Store, []store.Bucket, []oracles.Oracle) {
	t.Helper()
	if testing.Short() {
		t.Skip("judges 23 cases with every installed tool")
	}
	if _, st := mlir.Discover(context.Background(), toolchaintest.Release(t, 19)); !st.Available {
		t.Skipf("mlir-opt 19 not installed (make oracles): %s", st.Reason)
	}
	j := &judged
	j.once.Do(func() { j.judge(t) })
	if !j.done {
		t.Fatal("judging testdata/buckets failed in an earlier test")
	}
	s := storetest.Open(t, "")
	var buckets []store.Bucket
	for i, c := range j.cases {
		buckets = append(buckets, storetest.Plant(t, s, c, policy.PolicyFor(c.Domain), j.verdicts[i])...)
	}
	return s, buckets, discovered(t)
}

// here are the oracles of this machine, discovered once for the package
// (discovery probes every tool); TestMain closes them.
var here struct {
	once  sync.Once
	found *registry.Found
	err   error
}

// discovered are the oracles of this machine: bundles are written with
// them, as triage bundle writes them, so that their replays run the
// installations that judged.
func discovered(t *testing.T) []oracles.Oracle {
	t.Helper()
	here.once.Do(func() { here.found, here.err = registry.Discover(context.Background(), registry.Options{}) })
	if here.err != nil {
		t.Fatal(here.err)
	}
	return here.found.Oracles
}

// judged holds the cases of testdata/buckets and every installed oracle's
// verdicts on them, judged once for the package: judging takes most of a
// minute, and three tests plant them.
var judged judgedCases

type judgedCases struct {
	once     sync.Once
	done     bool
	cases    []domain.Case
	verdicts [][]oracles.Verdict
}

// judge judges each case with the oracles here that judge its domain;
// done says it got to the end.
func (j *judgedCases) judge(t *testing.T) {
	orcs := discovered(t)
	files, err := filepath.Glob("testdata/buckets/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/buckets: %v", err)
	}
	for _, f := range files {
		c := storetest.ReadCase(t, f)
		var judges []oracles.Oracle
		for _, o := range orcs {
			if o.Judges(c.Domain) {
				judges = append(judges, o)
			}
		}
		j.cases = append(j.cases, c)
		j.verdicts = append(j.verdicts, storetest.Judge(t, judges, c))
	}
	j.done = true
}

func TestMain(m *testing.M) {
	code := m.Run()
	if here.found != nil {
		here.found.Close()
	}
	os.Exit(code)
}

// legalfuzzBinary builds cmd/legalfuzz for the buckets repro.sh replays
// with legalfuzz check.
func legalfuzzBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "legalfuzz")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/legalfuzz/legalfuzz/cmd/legalfuzz").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runScript runs a bundle's repro.sh and returns its exit status.
func runScript(t *testing.T, bd Bundle, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("./" + ScriptFile)
	cmd.Dir = bd.Dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("%s: %v", bd.Script, err)
	return 0, ""
}

// plantedBundle stores the verdicts as the one bucket of pair on c, in a
// store of its own, and writes its bundle with orcs.
func plantedBundle(t *testing.T, c domain.Case, pair policy.Pair, vs []oracles.Verdict, orcs []oracles.Oracle) Bundle {
	t.Helper()
	s := storetest.Open(t, "")
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, vs)
	if len(bs) != 1 {
		t.Fatalf("plant: %d buckets, want 1", len(bs))
	}
	bd, err := Write(context.Background(), s, bs[0].Key, t.TempDir(), orcs)
	if err != nil {
		t.Fatal(err)
	}
	return bd
}

// reproducesOnlyWithFake plants the verdicts as the one bucket of pair
// on c, writes its bundle and runs its repro.sh twice: with the tool that
// env points at replaced by a script of the text fake, which must
// reproduce the bug, and with the real tool, which must not.
func reproducesOnlyWithFake(t *testing.T, c domain.Case, pair policy.Pair, vs []oracles.Verdict, env, fake string) {
	t.Helper()
	bd := plantedBundle(t, c, pair, vs, discovered(t))
	path := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(path, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if rc, out := runScript(t, bd, env+"="+path); rc != ExitReproduces {
		t.Errorf("with the fake tool: exit %d, want %d:\n%s\n%s", rc, ExitReproduces, read(t, bd.Script), out)
	}
	if rc, out := runScript(t, bd); rc != ExitFixed {
		t.Errorf("with the real tool: exit %d, want %d:\n%s\n%s", rc, ExitFixed, read(t, bd.Script), out)
	}
}

// TestScriptReproducesEveryBucket is the bar: for every bucket the
// installed tools make of the campaign's cases, repro.sh exits 1 (the bug
// reproduces), with no manual step.
func TestScriptReproducesEveryBucket(t *testing.T) {
	s, buckets, orcs := judgedStore(t)
	if len(buckets) < 15 {
		t.Fatalf("%d buckets from the campaign's cases; want most of its 23", len(buckets))
	}
	lf := "LEGALFUZZ=" + legalfuzzBinary(t)
	// The bundle's legalfuzz, built away from the checkout, judges with
	// the installations the store's verdicts came from.
	dirs := tool.OraclesBinDirs()
	if len(dirs) == 0 {
		t.Skip("no .oracles (make oracles)")
	}
	installs := "LEGALFUZZ_ORACLES_DIR=" + filepath.Dir(dirs[0])
	out := t.TempDir()
	for _, b := range buckets {
		t.Run(b.Key+"-"+b.Signature.Tool, func(t *testing.T) {
			bd, err := Write(context.Background(), s, b.Key, out, orcs)
			if err != nil {
				t.Fatal(err)
			}
			if rc, text := runScript(t, bd, lf, installs); rc != ExitReproduces {
				t.Errorf("%s (%s) exited %d, want %d:\n%s\n%s", bd.Script, b.Title, rc, ExitReproduces, read(t, bd.Script), text)
			}
		})
	}
}

// TestScriptJudgesTheOutcome checks that repro.sh reads what a tool
// printed, not only its exit status: a tool that prints nothing and exits
// 0 is a fixed bug for a rejection, and a missing tool is "cannot tell".
func TestScriptJudgesTheOutcome(t *testing.T) {
	d, _ := fuzz.Lookup("mma")
	c := domain.NewCase(d.Name, spellableSeed(d))
	bd := plantedBundle(t, c, policy.Pair{A: oracles.SpecPTXISA, B: "mlir@19", On: policy.OnVerdict}, []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept, Rule: "ptxisa.mma"},
		{Oracle: "mlir@19", Case: c.ID, Domain: c.Domain, Kind: oracles.Reject, Rule: "verify", Diagnostic: "FILE:LINE:COL: error: the bug's own words"},
	}, discovered(t))
	fake := filepath.Join(t.TempDir(), "mlir-opt")
	quiet := "#!/bin/sh\nexit 0\n"
	noisy := "#!/bin/sh\necho \"case.mlir:3:5: error: the bug's own words\" >&2\nexit 0\n"
	other := "#!/bin/sh\necho \"case.mlir:3:5: error: something else\" >&2\nexit 1\n"
	for _, tc := range []struct {
		name, tool string
		want       int
	}{
		{"prints the error with exit 0", noisy, ExitReproduces},
		{"prints nothing", quiet, ExitFixed},
		{"refuses in other words", other, ExitFixed},
		{"missing", "", ExitCannotTell},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(fake)
			if tc.tool != "" {
				if err := os.WriteFile(fake, []byte(tc.tool), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if rc, out := runScript(t, bd, "LEGALFUZZ_TOOL_MLIR_OPT="+fake); rc != tc.want {
				t.Errorf("exit %d, want %d:\n%s\n%s", rc, tc.want, read(t, bd.Script), out)
			}
		})
	}
}

// TestLitTestsStateTheCorrectOutcome writes the lit tests of the judged
// store's buckets and runs them with lit: every open bug is an expected
// failure, so the run passes; a test whose XFAIL is dropped, or whose
// expectation is flipped, fails the run.
func TestLitTestsStateTheCorrectOutcome(t *testing.T) {
	lit := regresstest.Lit()
	if lit == "" {
		t.Skip("lit-19 not installed (make oracles links it from llvm-19-tools)")
	}
	s, buckets, orcs := judgedStore(t)
	dir := t.TempDir()
	ts, err := WriteTests(context.Background(), s, dir, orcs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tests, other buckets: %v", ts.Buckets, ts.Other)
	if ts.Buckets+len(ts.Other) != len(buckets) || ts.Buckets < 15 {
		t.Fatalf("%d tests and %d others for %d buckets", ts.Buckets, len(ts.Other), len(buckets))
	}
	// path is the folder, or one test of it: lit finds lit.cfg.py above.
	runLit := func(path string) (string, error) {
		out, err := exec.Command(lit, "-v", path).CombinedOutput()
		return string(out), err
	}
	out, err := runLit(dir)
	if err != nil || strings.Count(out, "XFAIL: legalfuzz") != ts.Buckets {
		t.Fatalf("lit: %v, want %d XFAIL:\n%s", err, ts.Buckets, out)
	}
	// The victim is an illegal case the tool must refuse; flipping its
	// expectation to "legal" (no not, no error printed) makes the open bug
	// pass. (A legal case whose tool fails by exit status stays failed
	// whatever its check says: lit runs pipes with pipefail.) The folder
	// passed as a whole above; each edit runs the victim alone.
	victim, body := "", ""
	for _, f := range ts.Files {
		if b := read(t, f); strings.Contains(b, "REFUSED: error") {
			victim, body = f, b
			break
		}
	}
	if victim == "" {
		t.Fatalf("no exported test of an illegal case among %d", len(ts.Files))
	}
	for _, tc := range []struct {
		name, want string
		edit       *strings.Replacer
	}{
		{"xfail dropped", "FAIL: legalfuzz", strings.NewReplacer("XFAIL: ", "XFAIL-DROPPED: ")},
		{"expectation flipped", "XPASS: legalfuzz", strings.NewReplacer("%not ", "", "--check-prefix=REFUSED", "--allow-empty", "REFUSED: error", "CHECK-NOT: error")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(victim, []byte(tc.edit.Replace(body)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(victim, []byte(body), 0o644)
			if out, err := runLit(victim); err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("lit with %s in %s: %v, want %s:\n%s", tc.name, victim, err, tc.want, out)
			}
		})
	}
}
