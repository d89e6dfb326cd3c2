package gpucheck

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
)

// repoRoot is where the check runs from: the seeds and the kit script are there.
const repoRoot = "../../.."

// buildKit builds the kit as make gpu-kit does, into a temporary folder.
func buildKit(t *testing.T) string {
	t.Helper()
	kit := t.TempDir()
	cmd := exec.Command("./scripts/gpu-kit.sh", kit)
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/gpu-kit.sh: %v\n%s", err, out)
	}
	return kit
}

// dryRun runs the kit's gpu-check --dry-run from the repository root and
// returns its exit status, output and steps.
func dryRun(t *testing.T, kit string) (int, string, Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(filepath.Join(kit, "legalfuzz"), "gpu-check", "--dry-run", "--kit", kit, "--out", out)
	cmd.Dir = repoRoot
	output, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var sum Summary
	data, err := os.ReadFile(filepath.Join(out, StepsFile))
	if err != nil {
		t.Fatalf("no %s: %v\n%s", StepsFile, err, output)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatalf("%s: %v", StepsFile, err)
	}
	return code, string(output), sum, out
}

func step(t *testing.T, sum Summary, name string) Step {
	t.Helper()
	i := slices.IndexFunc(sum.Steps, func(s Step) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("no step %q in %+v", name, sum.Steps)
	}
	return sum.Steps[i]
}

// TestDryRun is the rehearsal of a GPU visit on a machine without a GPU:
// every binary of the kit is built, every step runs or says why it cannot,
// and the outputs fit what a GPU machine brings back.
func TestDryRun(t *testing.T) {
	kit := buildKit(t)
	code, output, sum, out := dryRun(t, kit)
	if code != 0 {
		t.Fatalf("dry run exit %d:\n%s", code, output)
	}
	var names []string
	for _, s := range sum.Steps {
		names = append(names, s.Name)
		if s.Status != OK && s.Status != Unavailable {
			t.Errorf("step %s: %s %s", s.Name, s.Status, s.Reason)
		}
		if s.Status == Unavailable && s.Reason == "" {
			t.Errorf("step %s unavailable with no reason", s.Name)
		}
	}
	if want := []string{"machine", "oracles", "tests", "judge", "campaign", "report"}; !slices.Equal(names, want) {
		t.Errorf("steps %v, want %v", names, want)
	}
	_, smiErr := exec.LookPath("nvidia-smi")
	if m := step(t, sum, "machine"); (m.Status == Unavailable) != (smiErr != nil) {
		t.Errorf("machine step %s (%s) with nvidia-smi lookup error %v", m.Status, m.Reason, smiErr)
	}

	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 8 {
		t.Errorf("%d files, a GPU machine returns 8", len(entries))
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() || !slices.Contains(Files, e.Name()) || info.Size() > 16<<20 {
			t.Errorf("output %s (%v, %d bytes) is not one of the check's files", e.Name(), info.Mode(), info.Size())
		}
	}
	if len(entries) != len(Files) {
		t.Errorf("wrote %d files, want all %d: %v", len(entries), len(Files), entries)
	}

	var judged struct {
		Cases  int             `json:"cases"`
		Matrix json.RawMessage `json:"matrix"`
	}
	readJSON(t, filepath.Join(out, JudgeFile), &judged)
	if seeds := countSeeds(t); judged.Cases != seeds {
		t.Errorf("judge judged %d cases, the seed folders of %v hold %d", judged.Cases, Domains, seeds)
	}
	var rep struct {
		Schema string `json:"schema"`
	}
	readJSON(t, filepath.Join(out, ReportJSON), &rep)
	if !strings.HasPrefix(rep.Schema, "legalfuzz-report/") {
		t.Errorf("report.json schema %q", rep.Schema)
	}
	var statuses []struct {
		Name string `json:"name"`
	}
	readJSON(t, filepath.Join(out, OraclesFile), &statuses)
	for _, n := range GPUOracles {
		if !slices.ContainsFunc(statuses, func(s struct {
			Name string `json:"name"`
		}) bool {
			return s.Name == n
		}) {
			t.Errorf("oracles.json does not list %s", n)
		}
	}

	// A kit missing its test binary and fuzz engine: those steps fail with
	// the reason, the others still run, and the dry run exits 2.
	partial := t.TempDir()
	if err := os.Link(filepath.Join(kit, "legalfuzz"), filepath.Join(partial, "legalfuzz")); err != nil {
		t.Fatal(err)
	}
	code, output, sum, _ = dryRun(t, partial)
	if code != 2 || !strings.Contains(output, "failed steps: tests, campaign, report") {
		t.Errorf("partial kit: exit %d, output:\n%s", code, output)
	}
	if s := step(t, sum, "tests"); s.Status != Failed || !strings.Contains(s.Reason, "make gpu-kit") {
		t.Errorf("tests step without the binary: %+v", s)
	}
	if s := step(t, sum, "judge"); s.Status != OK {
		t.Errorf("judge step after a failed one: %+v", s)
	}
}

func countSeeds(t *testing.T) int {
	n := 0
	for _, name := range Domains {
		d, _ := fuzz.Lookup(name)
		entries, err := os.ReadDir(filepath.Join(repoRoot, "fuzz", "testdata", "fuzz", d.FuzzTarget))
		if err != nil {
			t.Fatal(err)
		}
		n += len(entries)
	}
	return n
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestStepDeadline: a step that outlives its deadline is stopped, with
// what it printed kept and the reason said.
func TestStepDeadline(t *testing.T) {
	dir := t.TempDir()
	log, err := create(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	c := &check{Options: Options{Out: dir}, log: log}
	start := time.Now()
	st := c.runTo(context.Background(), 300*time.Millisecond, filepath.Join(dir, TestsFile), true, "",
		"sh", "-c", "echo started; sleep 30")
	if st.Status != Failed || !strings.Contains(st.Reason, "stopped after 300ms") {
		t.Errorf("step %+v", st)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the stopped step took %s", d)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, TestsFile)); string(data) != "started\n" {
		t.Errorf("kept output %q", data)
	}
	if st := c.runTo(context.Background(), 5*time.Second, "", false, "", "sh", "-c", "exit 1"); st.Status != OK || st.Exit != 1 {
		t.Errorf("exit status 1 (findings) is a result: %+v", st)
	}
	if st := c.runTo(context.Background(), 5*time.Second, "", false, "", "sh", "-c", "exit 3"); st.Status != Failed || !strings.Contains(st.Reason, "exit status 3") {
		t.Errorf("exit status 3: %+v", st)
	}
}

// TestFailedTests: a test binary that exits 1 fails the tests step, which
// names the failed tests.
func TestFailedTests(t *testing.T) {
	dir := t.TempDir()
	kit := filepath.Join(dir, "kit")
	if err := os.MkdirAll(kit, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho '=== RUN   TestA'\necho '--- FAIL: TestA (0.01s)'\necho '    --- FAIL: TestA/sub (0.00s)'\necho FAIL\nexit 1\n"
	if err := os.WriteFile(filepath.Join(kit, TestBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := create(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	c := &check{Options: Options{Out: dir, Kit: kit, Tests: 5 * time.Second}, log: log}
	t.Chdir(dir) // the step runs the binary in oracles/cuda under the working folder
	if err := os.MkdirAll(filepath.Join("oracles", "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	st := c.tests(context.Background())
	if st.Status != Failed || st.Reason != "failed tests: TestA, TestA/sub" {
		t.Errorf("tests step %+v", st)
	}
}

// TestCappedFile: a flood of output keeps the first MaxFileBytes and says
// how much was left out.
func TestCappedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range 17 {
		if n, err := f.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("write: %d, %v", n, err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 16<<20 || len(data) < MaxFileBytes {
		t.Errorf("file of %d bytes", len(data))
	}
	if want := "[gpu check: 2097152 more bytes left out]"; !strings.Contains(string(data[MaxFileBytes:]), want) {
		t.Errorf("no %q at the end", want)
	}
}
