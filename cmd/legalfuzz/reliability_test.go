package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
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
// judged. Its local worker dies in discovery and never advertises, so the
// campaign waits 10 s for it, not the minute that would idle the suite.
func TestCampaignWithHungToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 10 s for a worker")
	}
	shortProbes(t)
	old := localWorkersWait
	localWorkersWait = 10 * time.Second
	t.Cleanup(func() { localWorkersWait = old })
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

// damagedStore writes a store of 2,000 cases and 200 dead letters, then
// overwrites 16 KiB in the middle of the file, page-aligned: a disk's bad
// sectors, not a truncation (TestDamagedOrForeignStores has those).
func damagedStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := s.PutCampaign(store.Campaign{ID: "c1", State: store.StateDone, Created: now}); err != nil {
		t.Fatal(err)
	}
	cases, err := reliability.Cases("mma", 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	var recs []store.CaseRecord
	for _, c := range cases {
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: "c1", Seen: now})
	}
	if _, err := s.AddCases("c1", recs); err != nil {
		t.Fatal(err)
	}
	dls, pairs := make([]store.DeadLetter, 200), make([][]store.Pair, 200)
	for i := range dls {
		dls[i] = store.DeadLetter{Campaign: "c1", Subject: "results.c1", Reason: "garbage", Data: bytes.Repeat([]byte("d"), 1000), Time: now, Message: fmt.Sprint("m", i)}
	}
	if err := s.AddDeadLetters(dls, pairs); err != nil {
		t.Fatal(err)
	}
	storetest.Close(t, s)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xab}, 16<<10), st.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDamageNamed: with pages overwritten mid-file, triage exited 0 without
// noticing and report said `corrupt dead letter "\x00...": invalid
// character` naming neither the store nor what to do. Every reader exits 2
// naming the store and store check, as store check finds the damage.
func TestDamageNamed(t *testing.T) {
	db := damagedStore(t)
	out, _, code := runCLI(t, "", "store", "check", "--db", db)
	if code == exitOK {
		t.Fatalf("store check finds no damage in the damaged store:\n%s", out)
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"triage"}, {"triage", "--json"}, {"report", "--out", filepath.Join(dir, "r")},
		{"corpus", "export", "--out", filepath.Join(dir, "x")}, {"corpus", "distill", "--out", filepath.Join(dir, "d")}} {
		_, errOut, code := runCLI(t, "", append(args, "--db", db)...)
		if code != exitError || !strings.Contains(errOut, "store is corrupt: "+db) || !strings.Contains(errOut, "store check --db "+db) {
			t.Errorf("%v: exit %d, %q; want 2 naming the store and store check", args, code, errOut)
		}
	}
}

// TestRerunOnFullDisk: a campaign whose store and embedded NATS data share
// a disk that filled stopped with the store's clear line; run again on the
// still-full disk, it said NATS's raw "API error: code=500 ...
// meta.inf.tmp: no space left on device". The rerun says a clear line too.
func TestRerunOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	out := storetest.SmallDisk(t, 1<<20)
	args := []string{"campaign", "--duration", "60s", "--drain-timeout", "60s", "--out", out, "--quiet", "--no-minimize", "--keep-all",
		"--domains", "kindword", "--oracles", "spec/seed,spec/ptxisa", "--generator", "structured"}
	for run := range 2 {
		_, errOut, code := runCLI(t, "", args...)
		last := lastLine(errOut)
		if code != exitError || !strings.HasPrefix(last, "legalfuzz: campaign stopped: cannot write ") ||
			!strings.Contains(last, "no space left on device") || strings.Contains(last, "API error") ||
			!strings.HasSuffix(last, "then run again on the same store to resume") {
			t.Fatalf("run %d: exit %d, last line %q; want 2 and the full disk named as the store names it", run+1, code, last)
		}
		t.Logf("run %d: %s", run+1, last)
	}
}
