package regress_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/corpus/regress/regresstest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// seedsPerDomain is how many kindword and mma seeds the test stores hold
// besides the selector-2 case: enough for a handful of buckets, one of
// them minimized.
const seedsPerDomain = 10

// openRO opens a store read-only for the test.
func openRO(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.OpenStoreReadOnly(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newStore opens a fresh writable store, checked for consistency at cleanup.
func newStore(t *testing.T) *store.Store {
	t.Helper()
	return storetest.Open(t, "")
}

// exported is one export of a test store, shared by the tests below.
type exported struct {
	dir     string
	written map[corpus.Format]corpus.Written
	buckets []store.Bucket
	entries []corpus.Entry
	ptxas   string
	mlirOpt tool.Tool
}

func export(t *testing.T) exported {
	t.Helper()
	ctx := context.Background()
	path, buckets := regresstest.NewStore(t, seedsPerDomain)
	es, err := regress.ByBucket(openRO(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(buckets) {
		t.Fatalf("%d entries for %d buckets", len(es), len(buckets))
	}
	x := exported{dir: t.TempDir(), written: map[corpus.Format]corpus.Written{}, buckets: buckets, entries: es}
	_, x.ptxas = regresstest.Oracles(ctx)
	opts := corpus.Options{Formats: corpus.Formats}
	if in, opt, err := toolchain.Oldest(ctx, "mlir-opt"); err == nil {
		opts.MLIROpt, opts.MLIRMajor, x.mlirOpt = opt, in.Major, opt
	} else {
		opts.MLIRMissing = err.Error()
	}
	ws, err := corpus.Export(ctx, x.dir, es, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		x.written[w.Format] = w
	}
	return x
}

func bucketKeys(bs []store.Bucket) []string {
	var keys []string
	for _, b := range bs {
		keys = append(keys, b.Key)
	}
	slices.Sort(keys)
	return keys
}

// TestExportImportRejudge exports one case per bucket, imports the go and
// gofuzz folders into fresh stores, judges the imported cases with the same
// oracles and policies, and requires the same buckets.
func TestExportImportRejudge(t *testing.T) {
	x := export(t)
	orcs, _ := regresstest.Oracles(context.Background())
	for _, f := range []corpus.Format{corpus.FormatGo, corpus.FormatGoFuzz} {
		t.Run(string(f), func(t *testing.T) {
			l, ignored := corpus.LoadTree(fuzz.Domains(), []string{filepath.Join(x.dir, string(f))})
			if len(l.Problems) > 0 || ignored > 0 {
				t.Fatalf("load: %v (%d files ignored)", l.Problems, ignored)
			}
			s := newStore(t)
			res, err := regress.Import(s, l, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if res.Added != x.written[f].Cases || res.Added == 0 {
				t.Fatalf("imported %+v, want the %d exported cases", res, x.written[f].Cases)
			}
			unjudged := 0
			err = s.ForEachCase(func(r store.CaseRecord, vs []oracles.Verdict) error {
				if !strings.HasPrefix(r.Source, store.ImportSource) || r.Campaign != "" || r.Enqueued != nil || len(vs) > 0 {
					t.Errorf("imported case %+v: want source import:..., no campaign, no jobs, no verdicts", r)
				}
				unjudged++
				return nil
			})
			if err != nil || unjudged != res.Added {
				t.Fatalf("walk: %v, %d cases", err, unjudged)
			}
			got := regresstest.Judge(t, s, orcs, l.Cases, "rejudge")
			if want := bucketKeys(x.buckets); !slices.Equal(bucketKeys(got), want) {
				t.Fatalf("re-judged buckets %v, want %v", bucketKeys(got), want)
			}
		})
	}
}

// TestExportedGoCorpusReplays replays every exported Go corpus file the way
// the native fuzz targets do (decode, then every invariant and both rule
// sets), so copying go/testdata into package fuzz keeps go test green.
func TestExportedGoCorpusReplays(t *testing.T) {
	x := export(t)
	files := 0
	for _, d := range fuzz.Domains() {
		inputs, err := corpus.ReadGoDir(corpus.GoCorpusDir(filepath.Join(x.dir, "go"), d.FuzzTarget))
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			files++
			if in.Err != nil {
				t.Fatal(in.Err)
			}
			v, err := d.Decode(in.Data)
			if err != nil {
				t.Fatalf("%s: %v", in.Path, err)
			}
			if _, err := rulestest.CheckInvariants(d, v); err != nil {
				t.Fatalf("%s: %v", in.Path, err)
			}
		}
	}
	if files != x.written[corpus.FormatGo].Cases || files == 0 {
		t.Fatalf("replayed %d files, exported %d", files, x.written[corpus.FormatGo].Cases)
	}
}

// TestExportedPTXStatesTheCorrectOutcome runs the exported run.sh with the
// ptxas that judged the store: the selector-2 file expects spec/ptxisa's
// reject and marks ptxas 12.4's accept as an open bug (XFAIL); dropping
// the mark, or flipping the expectation, makes the run fail.
func TestExportedPTXStatesTheCorrectOutcome(t *testing.T) {
	x := export(t)
	if x.ptxas == "" {
		t.Skip("ptxas 12.4 is not installed (make oracles); the ptx corpus cannot be run")
	}
	dir := filepath.Join(x.dir, "ptx")
	script := filepath.Join(dir, corpus.PTXRunScript)
	run := func() (string, error) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "PTXAS="+x.ptxas)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err != nil || !strings.Contains(out, " 0 failed") || strings.Contains(out, "\n0 passed") {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	sel := selectorTwoBucket(t, x)
	text, err := os.ReadFile(filepath.Join(dir, sel+".ptx"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "// expect: reject\n// expected from: spec/ptxisa ") || !strings.Contains(string(text), "// xfail: an open bug of ptxas 12.4") ||
		!strings.Contains(out, "XFAIL "+sel+".ptx: want reject, got accept") {
		t.Fatalf("selector-2 file does not expect spec/ptxisa's reject with ptxas 12.4's accept as an open bug:\n%s\nrun.sh:\n%s", text, out)
	}
	body, _ := os.ReadFile(script)
	for _, tc := range []struct{ name, to, want string }{
		{"xfail dropped", "check " + sel + ".ptx reject -", "FAIL " + sel + ".ptx: want reject, got accept"},
		{"expectation flipped", "check " + sel + ".ptx accept xfail", "XPASS " + sel + ".ptx: accept"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flipped := strings.Replace(string(body), "check "+sel+".ptx reject xfail", tc.to, 1)
			if flipped == string(body) {
				t.Fatalf("run.sh has no xfail check line for %s.ptx:\n%s", sel, body)
			}
			if err := os.WriteFile(script, []byte(flipped), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := run(); err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("run.sh with %s: %v\n%s", tc.name, err, out)
			}
		})
	}
}

// selectorTwoBucket is the key of the bucket of the selector-2 case.
func selectorTwoBucket(t *testing.T, x exported) string {
	t.Helper()
	id := regresstest.SelectorTwo(t).ID
	for _, e := range x.entries {
		if e.Case.ID == id {
			return e.Name
		}
	}
	t.Fatalf("no bucket for the selector-2 case (ptxas installed but it did not disagree?)")
	return ""
}

// TestExportedMLIRVerifies runs the exported lit files as their RUN line
// does, and checks that a rejection carries its expected-error.
func TestExportedMLIRVerifies(t *testing.T) {
	x := export(t)
	if x.mlirOpt.Path == "" {
		t.Skip("mlir-opt-19 is not installed (make oracles); the mlir corpus cannot be run")
	}
	w := x.written[corpus.FormatMLIR]
	if len(w.Files) == 0 {
		t.Fatalf("no lit file written: %+v", w)
	}
	for _, f := range w.Files {
		if filepath.Ext(f) != ".mlir" {
			continue // lit.cfg.py
		}
		r, err := x.mlirOpt.Run(context.Background(), time.Minute, nil, corpus.MLIRVerifyArgs(f)...)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %v %s", f, err, r.Output())
		}
	}
	text, err := os.ReadFile(filepath.Join(w.Dir, "mma.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	want := "// expected-error @+1 {{'nvgpu.mma.sp.sync' op sparsity selector should be 0 or 1}}\n      %v1 = \"nvgpu.mma.sp.sync\""
	if !strings.HasPrefix(string(text), corpus.MLIRRunLine+"\n") || !strings.Contains(string(text), want) {
		t.Fatalf("mma.mlir lacks the RUN line or the selector-2 expected-error:\n%s", text)
	}
	broken := filepath.Join(t.TempDir(), "broken.mlir")
	if err := os.WriteFile(broken, []byte(strings.Replace(string(text), "// expected-error", "// dropped", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, _ := x.mlirOpt.Run(context.Background(), time.Minute, nil, corpus.MLIRVerifyArgs(broken)...); r.ExitCode == 0 {
		t.Fatal("the lit file still passes without its expected-error line")
	}
}

// TestExportsRunAsDocumented runs the exports with docs/corpus.md's commands
// from the checkout: "PTXAS=.oracles/bin/ptxas sh EXPORT/ptx/run.sh" (run.sh
// changed folder first, so a PTXAS relative to the caller was not found)
// and "lit-19 -v EXPORT/mlir" (no lit.cfg.py there: lit found no test).
func TestExportsRunAsDocumented(t *testing.T) {
	x := export(t)
	root, err := filepath.Abs(filepath.Join("..", "..")) // the checkout
	if err != nil {
		t.Fatal(err)
	}
	t.Run("ptx", func(t *testing.T) {
		if x.ptxas == "" {
			t.Skip("ptxas 12.4 is not installed (make oracles); the ptx corpus cannot be run")
		}
		rel, err := filepath.Rel(root, x.ptxas) // .oracles/bin/ptxas in a checkout with its own oracles
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", filepath.Join(x.dir, "ptx", corpus.PTXRunScript))
		cmd.Dir, cmd.Env = root, append(os.Environ(), "PTXAS="+rel)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), " 0 failed") || strings.Contains(string(out), "\n0 passed") {
			t.Fatalf("PTXAS=%s sh %s/ptx/run.sh: %v\n%s", rel, x.dir, err, out)
		}
	})
	t.Run("mlir", func(t *testing.T) {
		lit := regresstest.Lit()
		if lit == "" || x.mlirOpt.Path == "" {
			t.Skip("lit-19 or mlir-opt-19 is not installed (make oracles); the mlir corpus cannot be run with lit")
		}
		tests := 0
		for _, f := range x.written[corpus.FormatMLIR].Files {
			if filepath.Ext(f) == ".mlir" {
				tests++
			}
		}
		cmd := exec.Command(lit, "-v", filepath.Join(x.dir, "mlir"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil || tests == 0 || strings.Count(string(out), "PASS: legalfuzz-mlir :: ") != tests {
			t.Fatalf("lit -v %s/mlir: %v; want %d tests passed:\n%s", x.dir, err, tests, out)
		}
	})
}

// TestImportKeepsGoingPastBadFiles imports a tree with good and bad files:
// one error per bad file, naming it, and every good case stored.
func TestImportKeepsGoingPastBadFiles(t *testing.T) {
	root := t.TempDir()
	good := regresstest.Cases(t, 2)
	write := func(rel string, data []byte) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range good {
		d, _ := fuzz.Lookup(c.Domain)
		write(filepath.Join("go", "testdata", "fuzz", d.FuzzTarget, c.ID), corpus.EncodeGo(c.Value.Encode()))
	}
	write("go/testdata/fuzz/FuzzMMA/wrongtype", []byte("go test fuzz v1\nint(3)\n"))
	write("go/testdata/fuzz/FuzzKindWord/truncated", []byte("go test fuzz v1\n[]byte(\"\\x01"))
	write("gofuzz/mma/bad.json", []byte(`{"shape": [16, 8], "bogus": 1}`))
	write("gofuzz/mma/again", good[0].Value.Encode()) // a duplicate in go-fuzz form
	write("notes/README", []byte("not a case"))
	l, ignored := corpus.LoadTree(fuzz.Domains(), []string{root})
	s := newStore(t)
	res, err := regress.Import(s, l, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != len(good) || res.Duplicates != 1 || ignored != 1 {
		t.Fatalf("import %+v, %d ignored: want %d added, 1 duplicate, 1 ignored", res, ignored, len(good))
	}
	if len(res.Problems) != 3 {
		t.Fatalf("problems %v, want one per bad file", res.Problems)
	}
	for i, name := range []string{"wrongtype", "truncated", "bad.json"} {
		if !slices.ContainsFunc(res.Problems, func(e error) bool { return strings.Contains(e.Error(), name) }) {
			t.Errorf("problem %d: no error names %s: %v", i, name, res.Problems)
		}
	}
	for _, c := range good {
		if rec, ok, _ := s.Case(c.ID); !ok || !strings.HasPrefix(rec.Source, store.ImportSource+root) {
			t.Errorf("good case %s not imported with its path as source: %+v", c.ID, rec)
		}
	}
}

// TestDistillKeepsCoverage distills a store and checks that the selection
// covers every feature and bucket with fewer cases.
func TestDistillKeepsCoverage(t *testing.T) {
	path, buckets := regresstest.NewStore(t, seedsPerDomain)
	s := openRO(t, path)
	all, err := regress.All(s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := regress.Distill(s)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, e := range d.Entries {
		for _, f := range regress.Features(e) {
			covered[f] = true
		}
	}
	for _, e := range all {
		for _, f := range regress.Features(e) {
			if !covered[f] {
				t.Errorf("feature %q of case %s lost", f, e.Case.ID)
			}
		}
	}
	if d.Cases != len(all) || len(d.Entries) >= len(all) || d.Buckets != len(buckets) || len(covered) != d.Features {
		t.Fatalf("distilled %d of %d cases, %d features, %d buckets; store has %d buckets", len(d.Entries), d.Cases, d.Features, d.Buckets, len(buckets))
	}
	t.Logf("distilled %d cases to %d (%d features, %d buckets)", d.Cases, len(d.Entries), d.Features, d.Buckets)
}

// TestByIDs selects cases by ID, as the export of a campaign corpus does:
// in the order given, with their buckets, and an unknown ID is an error.
func TestByIDs(t *testing.T) {
	path, buckets := regresstest.NewStore(t, seedsPerDomain)
	s := openRO(t, path)
	ids := []string{buckets[1].Example, buckets[0].Example}
	es, err := regress.ByIDs(s, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Name != ids[0] || es[1].Name != ids[1] || len(es[0].Buckets) == 0 || len(es[0].Verdicts) == 0 {
		t.Fatalf("ByIDs(%v) = %+v; want both cases in order, with buckets and verdicts", ids, es)
	}
	if _, err := regress.ByIDs(s, []string{"no-such-case"}); err == nil {
		t.Fatal("ByIDs of an unknown case: no error")
	}
}
