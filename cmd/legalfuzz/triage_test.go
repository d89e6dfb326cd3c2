package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/live"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestTriageReplayColumns: triage list says where a bucket reproduces
// (--wide: a column per installation a bucket was replayed on), marks a
// bucket LLVM main no longer shows as fixed upstream, fits 120 columns
// with a real crash's title, and --reproduces-on keeps the buckets that
// reproduce on the installation named.
func TestTriageReplayColumns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, db)
	var keys []string
	for i, trunk := range []string{store.Reproduces, store.Fixed} {
		c := domain.NewCase(kindword.Name, kindword.Seeds()[i])
		tool := oracles.Installed(oracles.LLC, "23")
		pol := policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{{A: oracles.SpecPTXISA, B: tool, On: policy.OnVerdict}}}
		b := storetest.Plant(t, s, c, pol, []oracles.Verdict{
			{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: c.Domain, Kind: oracles.Reject, Rule: []string{"ptxisa.kindword.target", "ptxisa.kindword.i8-target"}[i]},
			{Oracle: tool, Version: "23.1.4", Case: c.ID, Domain: c.Domain, Kind: oracles.Accept},
		})[0]
		b.Versions = []store.VersionVerdict{
			{Oracle: "llc@19", Version: "19.1.7", Kind: oracles.Unsupported, Outcome: store.CannotJudge},
			{Oracle: tool, Version: "23.1.4", Kind: oracles.Accept, Outcome: store.Reproduces},
			{Oracle: "llc@trunk", Version: "24.0.0", Kind: oracles.Accept, Outcome: trunk},
		}
		b.Title = longTitle // as long as a real crash's
		if err := s.PutBucket(b); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, b.Key)
	}
	s.Close()
	out, errOut, code := runCLI(t, "", "triage", "--db", db)
	if code != exitOK {
		t.Fatalf("triage list: exit %d: %s", code, errOut)
	}
	checkFits(t, out, screenWidth)
	for i, key := range keys {
		if want := map[int]string{0: "  23 trunk  ", 1: "  23  "}[i]; !strings.Contains(lineOf(out, key), want) {
			t.Errorf("bucket %d's line %q: want FOUND IN %q", i, lineOf(out, key), want)
		}
		if upstream := strings.Contains(lineOf(out, key), "[fixed upstream]"); upstream != (i == 1) {
			t.Errorf("bucket %d: fixed upstream %t in %q", i, upstream, lineOf(out, key))
		}
	}
	// --wide: a column per installation, whole titles and their notes.
	out, _, _ = runCLI(t, "", "triage", "--db", db, "--wide")
	if !strings.Contains(out, longTitle) || !strings.Contains(out, "FIRST SEEN") {
		t.Errorf("triage list --wide lacks the whole title or the first sighting:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[0], "19") || !strings.Contains(lines[0], "23") || !strings.Contains(lines[0], "TRUNK") ||
		strings.Index(lines[0], "23") > strings.Index(lines[0], "TRUNK") {
		t.Errorf("header %q: want a column per installation, oldest first", lines[0])
	}
	for i, key := range keys {
		line := lineOf(out, key)
		wantCells := []string{"n/a", "yes", map[int]string{0: "yes", 1: "fixed"}[i]}
		for _, cell := range wantCells {
			if !strings.Contains(line, cell) {
				t.Errorf("bucket %d's line %q lacks %q", i, line, cell)
			}
		}
		if upstream := strings.Contains(line, "fixed upstream: LLVM main no longer shows it"); upstream != (i == 1) {
			t.Errorf("bucket %d: fixed upstream %t in %q", i, upstream, line)
		}
	}
	out, _, _ = runCLI(t, "", "triage", "--db", db, "--reproduces-on", "trunk")
	if !strings.Contains(out, keys[0]) || strings.Contains(out, keys[1]) {
		t.Errorf("--reproduces-on trunk:\n%s\nwant %s only", out, keys[0])
	}
}

// longTitle is a real bucket's title (a crash of mlir-translate, from a
// 30 s campaign): 230 columns.
const longTitle = "blockscale: mlir@trunk error at translate: mlir-translate crashed (segmentation fault) in " +
	"llvm::Intrinsic::getIntrinsicInfoTableEntries(unsigned int, llvm::SmallVectorImpl<llvm::Intrinsic::IITDescriptor>&) " +
	"[spec/ptxisa: ptxisa.blockscale.mxf8f6f4-types]"

// checkFits fails the test when a line of out is wider than width columns.
func checkFits(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > width {
			t.Errorf("a line of %d columns, more than %d:\n%s", n, width, l)
		}
	}
}

// lineOf is the line of out that holds key.
func lineOf(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, key) {
			return l
		}
	}
	return ""
}

// TestCampaignWithYourOwnBuild: an LLVM installation named by path (an
// installed release linked under another folder, as a user's build would
// be) is judged with by a campaign under its own label, its version read
// from its tools, and its buckets are minimized and replayed on it.
func TestCampaignWithYourOwnBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	in := toolchaintest.Release(t, 22)
	build := filepath.Join(t.TempDir(), "llvm-build")
	if err := os.MkdirAll(filepath.Join(build, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	tools, err := os.ReadDir(in.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tools {
		if err := os.Symlink(filepath.Join(in.Dir, e.Name()), filepath.Join(build, "bin", e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	db := filepath.Join(out, "legalfuzz.db")
	// The tail ends when its buckets are minimized and replayed; its
	// default bound, 30 s, ran out before either under a load of 49 on two
	// cores, and the test is about where they happen, not how fast.
	_, errOut, code := runCLI(t, "", "--toolchain", "mine="+build, "campaign", "--duration", "1s", "--tail", "5m", "--out", out, "--quiet",
		"--domains", "kindword", "--oracles", "spec/ptxisa,mlir@mine", "--fuzz-binary", filepath.Join(out, "none"))
	if code != exitFindings {
		t.Fatalf("campaign exit %d, want %d (MLIR 22 refuses tcgen05.mma on sm_100f): %s", code, exitFindings, errOut)
	}
	s, err := store.OpenStoreReadOnly(db, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buckets, err := s.Buckets()
	if err != nil || len(buckets) == 0 {
		t.Fatalf("buckets %v, %v", buckets, err)
	}
	for _, b := range buckets {
		if b.Signature.Tool != "mlir@mine" || b.Minimized == "" && b.MinimizeNote == "" {
			t.Errorf("bucket %s: tool %s, minimized %q (%s)", b.Key, b.Signature.Tool, b.Minimized, b.MinimizeNote)
		}
		if b.FoundIn() != "mine: reproduces" || !strings.HasPrefix(b.Versions[0].Version, "mlir-opt "+in.Version) {
			t.Errorf("bucket %s: found in %q, versions %+v", b.Key, b.FoundIn(), b.Versions)
		}
	}
}

// TestReadWhileCampaignRuns: triage and report on the store of a running
// campaign waited and said "still locked after 5s" (the campaign holds
// bbolt's lock). They read a snapshot the campaign serves, say so in one
// line, and answer; the campaign's advert goes when it ends.
func TestReadWhileCampaignRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	out := t.TempDir()
	db := filepath.Join(out, "legalfuzz.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	campaign := make(chan exit, 1)
	go func() {
		campaign <- runIn(ctx, "campaign", "--duration", "10m", "--out", out, "--quiet", "--no-minimize",
			"--domains", "kindword", "--oracles", "spec/seed,spec/ptxisa", "--generator", "structured")
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(live.Path(db)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the campaign does not advertise snapshots of its store")
		}
	}
	start := time.Now()
	list, errOut, code := runCLI(t, "", "triage", "--db", db)
	t.Logf("triage list on the running campaign's store: %s", time.Since(start))
	if code != exitOK || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "reading a snapshot of "+db) || !strings.Contains(list, " buckets: ") {
		t.Fatalf("triage list: exit %d\nstdout %s\nstderr %s", code, list, errOut)
	}
	if _, errOut, code := runCLI(t, "", "report", "--db", db, "--out", t.TempDir(), "--format", "json"); code == exitError ||
		!strings.Contains(errOut, "reading a snapshot of "+db) {
		t.Fatalf("report: exit %d\nstderr %s", code, errOut)
	}
	cancel()
	if e := <-campaign; e.code != exitError || !strings.Contains(e.errOut, "interrupted") {
		t.Fatalf("campaign: exit %d: %s", e.code, e.errOut)
	}
	if _, err := os.Stat(live.Path(db)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the campaign ended and left %s: %v", live.Path(db), err)
	}
}
