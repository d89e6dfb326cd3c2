package tool

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shortProbes shortens ProbeTimeout for one test.
func shortProbes(t *testing.T) {
	t.Helper()
	old := ProbeTimeout
	ProbeTimeout = 500 * time.Millisecond
	t.Cleanup(func() { ProbeTimeout = old })
}

// TestLocateTimesOutAndCaps runs real fake tools (shell scripts) that hang
// on --version, with a child holding the pipes, or print without end:
// Locate names each as unusable, with why, instead of hanging or reading
// it all into memory.
func TestLocateTimesOutAndCaps(t *testing.T) {
	shortProbes(t)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"hangs", "sleep 30", "gave no answer within 500ms"},
		{"hangs with a child", "sleep 30 & wait", "gave no answer within 500ms"},
		{"prints megabytes", "while :; do head -c 1048576 /dev/zero | tr '\\0' x; done", "printed more than 4194304 bytes"},
		{"silent failure", "exit 3", "exited with status 3 and printed nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := script(t, tc.body)
			t.Setenv("LEGALFUZZ_FAKE_TOOL", path)
			_, err := Locate(context.Background(), Spec{Name: "fake", Env: "LEGALFUZZ_FAKE_TOOL", VersionArgs: []string{"--version"},
				Version: func(string) (string, bool) { return "1", true }})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+" --version") {
				t.Fatalf("Locate: %v, want an error naming %s --version and %q", err, path, tc.want)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the error is %d bytes long", len(err.Error()))
			}
		})
	}
}

// TestProbeKeepsABoundedAnswer checks what a probe over its bound keeps.
func TestProbeKeepsABoundedAnswer(t *testing.T) {
	shortProbes(t)
	res, err := Probe(context.Background(), script(t, "head -c 20000000 /dev/zero"))
	if err == nil || !strings.Contains(err.Error(), "printed more than") {
		t.Fatalf("err = %v, want one saying the probe printed too much", err)
	}
	if len(res.Stdout) != MaxProbeOutput || res.Dropped == 0 {
		t.Errorf("kept %d bytes, dropped %d: want exactly %d kept and some dropped", len(res.Stdout), res.Dropped, MaxProbeOutput)
	}
}

// TestRunDropsPastMaxOutput: a judging run reads a flood to its end (the
// tool's exit status is its verdict) but keeps only MaxOutput of it.
func TestRunDropsPastMaxOutput(t *testing.T) {
	n := MaxOutput + 1000
	res, err := Run(context.Background(), time.Minute, nil, script(t, "head -c "+strconv.Itoa(n)+" /dev/zero; exit 1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != MaxOutput || res.Dropped != 1000 || res.ExitCode != 1 {
		t.Errorf("kept %d, dropped %d, exit %d: want %d, 1000, 1", len(res.Stdout), res.Dropped, res.ExitCode, MaxOutput)
	}
}

// TestProbeAskedOnce: a question answered is not asked again of the same
// file in the same environment; a file rewritten, other arguments and a
// failed probe are asked again.
func TestProbeAskedOnce(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	path := script(t, "echo run >> "+count+"; echo fake 1; [ \"$1\" != --fail ]")
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	ask := func(args ...string) {
		t.Helper()
		if _, err := Probe(context.Background(), path, args...); err != nil {
			t.Fatal(err)
		}
	}
	ask("--version")
	ask("--version")
	if n := runs(); n != 1 {
		t.Fatalf("asked --version twice, the tool ran %d times; want once", n)
	}
	ask("--help")
	if n := runs(); n != 2 {
		t.Fatalf("asked --help, the tool ran %d times in all; want 2", n)
	}
	body, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(body, "\n# rewritten\n"...), 0o755); err != nil {
		t.Fatal(err)
	}
	ask("--version")
	if n := runs(); n != 3 {
		t.Fatalf("asked a rewritten tool, it ran %d times in all; want 3", n)
	}
	t.Setenv("LEGALFUZZ_PROBE_TEST", "another environment")
	ask("--version")
	if n := runs(); n != 4 {
		t.Fatalf("asked in another environment, the tool ran %d times in all; want 4", n)
	}
	flag := filepath.Join(t.TempDir(), "flag")
	flaky := script(t, "[ -f "+flag+" ] || { touch "+flag+"; exit 3; }; echo fake 1")
	if _, err := Probe(context.Background(), flaky, "--version"); err == nil {
		t.Fatal("a silent failure answered")
	}
	if _, err := Probe(context.Background(), flaky, "--version"); err != nil {
		t.Fatalf("a probe that failed was not asked again: %v", err)
	}
}
