package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// hungBuild writes a folder of LLVM tools (real processes: shell scripts)
// that answer --version only when answers is set, and otherwise hang.
func hungBuild(t *testing.T, answers bool) string {
	t.Helper()
	dir := t.TempDir()
	body := "#!/bin/sh\nsleep 30\n"
	if answers {
		body = "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'LLVM version 22.1.8'; exit 0; fi\nsleep 30\n"
	}
	names := []string{"llc", "mlir-opt", "llvm-mc"}
	if answers {
		names = []string{"mlir-opt"}
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shortProbes shortens tool.ProbeTimeout for one test.
func shortProbes(t *testing.T) {
	t.Helper()
	old := tool.ProbeTimeout
	tool.ProbeTimeout = time.Second
	t.Cleanup(func() { tool.ProbeTimeout = old })
}

// TestOraclesWithHungTools: `oracles --toolchain` with tools that hang
// even on --version never returned (killed at 150 s). It now says which
// tool gave no answer; an mlir-opt that answers --version and hangs on
// anything else is listed unavailable with the probe that hung.
func TestOraclesWithHungTools(t *testing.T) {
	shortProbes(t)
	_, errOut, code := runCLI(t, "", "oracles", "--toolchain", "fake="+hungBuild(t, false))
	if code != exitError || !strings.Contains(errOut, "llc --version gave no answer within 1s") {
		t.Errorf("tools that hang on --version: exit %d, %q; want 2 naming the probe", code, errOut)
	}
	out, errOut, code := runCLI(t, "", "oracles", "--wide", "--toolchain", "fake="+hungBuild(t, true))
	if code != exitOK {
		t.Fatalf("an mlir-opt that hangs after --version: exit %d, %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "mlir@fake ") {
			if !strings.Contains(line, " no ") || !strings.Contains(line, "mlir-opt --help gave no answer within 1s") {
				t.Errorf("mlir@fake: %q; want unavailable, naming the --help probe", line)
			}
			return
		}
	}
	t.Errorf("no mlir@fake row in:\n%s", out)
}

// TestCampaignWithoutWorkersRefused: --workers 0 on the embedded server,
// where no worker can ever connect, said "done" with nothing judged.
func TestCampaignWithoutWorkersRefused(t *testing.T) {
	_, errOut, code := runCLI(t, "", "campaign", "--workers", "0", "--out", t.TempDir())
	if code != exitError || !strings.Contains(errOut, "--workers 0 without --nats") {
		t.Errorf("exit %d, %q; want 2 refusing the flag", code, errOut)
	}
}

// TestCampaignWithHungToolchain: a campaign whose only toolchain hangs on
// --version said "done: 57 cases, 0 verdicts", exit 0. Its first lines now
// name the tool that gave no answer, and it exits 2 saying why nothing was
// judged.
func TestCampaignWithHungToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 15 s for a worker")
	}
	shortProbes(t)
	out := t.TempDir()
	_, errOut, code := runCLI(t, "", "campaign", "--toolchain", "fake="+hungBuild(t, false), "--duration", "1s",
		"--drain-timeout", "5s", "--out", out, "--quiet", "--no-minimize", "--domains", "kindword", "--generator", "structured")
	if code != exitError {
		t.Fatalf("exit %d, want 2:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if !strings.Contains(lines[0], "llc --version gave no answer within 1s") {
		t.Errorf("first line %q does not name the tool that hung", lines[0])
	}
	last := lines[len(lines)-1]
	for _, want := range []string{"legalfuzz: campaign did not judge its cases", "never enqueued", "no worker advertised a judge"} {
		if !strings.Contains(last, want) {
			t.Errorf("last line %q does not say %q", last, want)
		}
	}
}

// TestHugeValueQuotedBounded: a case holding a 15 MiB string (an enum
// value, a field name) made a 15.7 MB error line in check and corpus
// import. The line quotes a few hundred bytes of it, and says how much
// more there was.
func TestHugeValueQuotedBounded(t *testing.T) {
	dir := t.TempDir()
	huge := strings.Repeat("x", 15<<20)
	for name, body := range map[string]string{"value.json": `{"kind": "` + huge + `"}`, "key.json": `{"` + huge + `": 1}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, "", "check", "--domain", "kindword", filepath.Join(dir, name))
		if code != exitError || len(errOut) > 2000 || !strings.Contains(errOut, " bytes more") {
			t.Errorf("check %s: exit %d, %d bytes on stderr (%.200q); want 2 and a short line", name, code, len(errOut), errOut)
		}
	}
	_, errOut, code := runCLI(t, "", "corpus", "import", "--db", filepath.Join(t.TempDir(), "db"), "--domain", "kindword", dir)
	if code != exitError || len(errOut) > 4000 || strings.Count(errOut, "bad file:") != 2 || strings.Count(errOut, " bytes more") < 2 {
		t.Errorf("corpus import: exit %d, %d bytes on stderr (%.300q); want 2 and a short line for each file", code, len(errOut), errOut)
	}
}
