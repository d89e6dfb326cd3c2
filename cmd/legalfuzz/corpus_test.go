package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/corpus/regress/regresstest"
	"github.com/legalfuzz/legalfuzz/corpus/repro"
)

// TestCorpusCommands exports a store with findings, imports the export into
// a new store (and a folder with bad files), and distills the store.
func TestCorpusCommands(t *testing.T) {
	db, buckets := regresstest.NewStore(t, 10)
	out := filepath.Join(t.TempDir(), "corpus")
	stdout, stderr, code := runCLI(t, "", "corpus", "export", "--db", db, "--out", out, "--format", "go,gofuzz,ptx")
	if code != exitOK {
		t.Fatalf("export: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"go: ", "gofuzz: ", "ptx: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("export output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "ptx", "run.sh")); err != nil {
		t.Error(err)
	}

	db2 := filepath.Join(t.TempDir(), "imported.db")
	stdout, stderr, code = runCLI(t, "", "corpus", "import", "--db", db2, "--all", out)
	if code != exitOK || !strings.Contains(stdout, "imported "+itoa(len(buckets))+" new cases") {
		t.Fatalf("import --all: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "one"), []byte("go test fuzz v1\nint(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "two.json"), []byte(`{"selector": "two"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "good"), []byte{1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runCLI(t, "", "corpus", "import", "--db", db2, "--domain", "mma", bad)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != exitError || !strings.Contains(stdout, "imported 1 new cases") || len(lines) != 3 ||
		!strings.Contains(lines[0], "one") || !strings.Contains(lines[1], "two.json") || !strings.Contains(lines[2], "2 bad files") {
		t.Fatalf("import with bad files: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "corpus", "import", "--db", db2, bad); code != exitError || !strings.Contains(stderr, "domain all") {
		t.Fatalf("import without --domain or --all: exit %d, stderr %q", code, stderr)
	}

	stdout, stderr, code = runCLI(t, "", "corpus", "distill", "--db", db, "--out", filepath.Join(t.TempDir(), "distilled"))
	if code != exitOK || !strings.Contains(stdout, "distilled ") || !strings.Contains(stdout, "("+itoa(len(buckets))+" buckets)") {
		t.Fatalf("distill: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestTriageBundleReplays writes every bucket's bundle and replays its
// case.json with legalfuzz check: the pair's verdicts must be the stored
// ones, as expected.txt and observed.txt record them.
func TestTriageBundleReplays(t *testing.T) {
	db, buckets := regresstest.NewStore(t, 10)
	out := t.TempDir()
	for _, b := range buckets {
		t.Run(b.Title, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", "triage", "bundle", b.Key[:8], "--db", db, "--out", out)
			if code != exitOK {
				t.Fatalf("bundle: exit %d, stderr %q", code, stderr)
			}
			dir := filepath.Join(out, b.Key)
			for _, f := range []string{repro.CaseFile, repro.CommandsFile, repro.VersionsFile, repro.ExpectedFile, repro.ObservedFile, repro.BucketFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil || !strings.Contains(stdout, f) {
					t.Errorf("%s: %v", f, err)
				}
			}
			// The bundle reduces its input before issue.md quotes it.
			if origs, _ := filepath.Glob(filepath.Join(dir, "case.orig.*")); len(origs) == 1 {
				reduced := mustRead(t, strings.Replace(origs[0], ".orig", "", 1))
				if !strings.Contains(mustRead(t, filepath.Join(dir, repro.IssueFile)), "```\n"+reduced+"```") {
					t.Errorf("issue.md does not quote the reduced input:\n%s", reduced)
				}
			}
			cmds, _ := os.ReadFile(filepath.Join(dir, repro.CommandsFile))
			if b.Signature.Pair.B == "ptxas" {
				if _, err := os.Stat(filepath.Join(dir, repro.PTXFile)); err != nil || !strings.Contains(string(cmds), "ptxas -arch=") {
					t.Errorf("ptxas pair without case.ptx or its command: %v\n%s", err, cmds)
				}
			}
			replay := checkLines(t, b.Signature.Domain, mustRead(t, filepath.Join(dir, repro.CaseFile)))
			for file, oracle := range map[string]string{repro.ExpectedFile: b.Signature.Pair.A, repro.ObservedFile: b.Signature.Pair.B} {
				got := replay[oracle]
				if got == nil {
					t.Fatalf("check gave no %s verdict", oracle)
				}
				rec := mustRead(t, filepath.Join(dir, file))
				if !strings.Contains(rec, "verdict: "+got["verdict"].(string)+"\n") ||
					(got["rule"] != "" && !strings.Contains(rec, "rule: "+got["rule"].(string)+"\n")) ||
					!strings.Contains(rec, strings.ReplaceAll(got["diagnostic"].(string), "\n", "\n  ")) {
					t.Errorf("%s records\n%s\nbut check replays %v", file, rec, got)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCorpusImportTests imports the test files of a checkout-shaped tree
// (corpus/upstream's testdata): the forms read and not read are printed
// per domain, the cases stored, the one binary file is a bad file (exit
// 2 after storing the rest), and a second import finds every case stored.
func TestCorpusImportTests(t *testing.T) {
	tree := filepath.Join("..", "..", "corpus", "upstream", "testdata", "checkout")
	db := filepath.Join(t.TempDir(), "seeded.db")
	stdout, stderr, code := runCLI(t, "", "corpus", "import-tests", "--db", db, tree)
	if code != exitError || !strings.Contains(stderr, "binary.mlir: not a test file") || !strings.Contains(stderr, "1 bad files") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"6 test files", "mma: 8 forms read, 3 not read", "  not read 1: not-in-domain: a_type=e3m2",
		"no domain: 7 forms", "imported 31 new cases (31 cases read: 0 already stored; 1 forms repeating a case, 1 bad files)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, code = runCLI(t, "", "corpus", "import-tests", "--db", db, "--json", tree)
	var got importTestsJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != exitError {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, stdout)
	}
	if got.Added != 0 || got.Known != 31 || got.Read["ldsm"] != 5 || got.Unread["tmamode"]["name: tensor reduction (no domain field)"] != 1 || len(got.Problems) != 1 {
		t.Errorf("--json a second time: %+v", got)
	}
}
