package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-tool")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunClassifies(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                 string
		body                 string
		wantExit             int
		wantCrash, wantTimed bool
	}{
		{"ok", "cat; exit 0", 0, false, false},
		{"reject", "echo 'error: bad' >&2; exit 1", 1, false, false},
		{"signal", "kill -SEGV $$", -1, true, false},
		{"ice", "echo 'LLVM ERROR: cannot select' >&2; exit 1", 1, true, false},
		{"hang", "sleep 30", -1, false, true},
		{"hang with child", "sleep 30 & wait", -1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r, err := Run(ctx, 300*time.Millisecond, []byte("in"), script(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("run took %v: the hung process was not killed", time.Since(start))
			}
			if r.ExitCode != tc.wantExit || r.Crashed() != tc.wantCrash || r.TimedOut != tc.wantTimed {
				t.Fatalf("exit %d crashed %v timedOut %v, want %d %v %v (output %q)",
					r.ExitCode, r.Crashed(), r.TimedOut, tc.wantExit, tc.wantCrash, tc.wantTimed, r.Output())
			}
		})
	}
}

func TestRunPassesStdin(t *testing.T) {
	r, err := Run(context.Background(), 5*time.Second, []byte("hello"), script(t, "cat"))
	if err != nil || string(r.Stdout) != "hello" {
		t.Fatalf("stdout %q err %v, want hello", r.Stdout, err)
	}
}

func TestRunMissingProgramIsHarnessError(t *testing.T) {
	_, err := Run(context.Background(), time.Second, nil, "/nonexistent/tool")
	if !errors.Is(err, ErrStart) {
		t.Fatalf("err = %v, want ErrStart", err)
	}
}

func TestLocate(t *testing.T) {
	good := script(t, "echo 'Fake Tool version 19.1.7'")
	wrong := script(t, "echo 'Fake Tool version 14.0.0'")
	spec := Spec{Name: "fake", Env: "LEGALFUZZ_TEST_FAKE", Files: []string{"no-such-fake-tool"}, VersionArgs: []string{"--version"},
		Version: func(out string) (string, bool) { return strings.TrimSpace(out), strings.Contains(out, " 19.") }}
	t.Setenv("LEGALFUZZ_TEST_FAKE", good)
	tl, err := Locate(context.Background(), spec)
	if err != nil || tl.Path != good || tl.Version != "Fake Tool version 19.1.7" {
		t.Fatalf("Locate = %+v, %v", tl, err)
	}
	t.Setenv("LEGALFUZZ_TEST_FAKE", wrong)
	if _, err := Locate(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("wrong version: err = %v, want a version mismatch", err)
	}
}
