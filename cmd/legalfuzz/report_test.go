package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// reportStore writes a store with one campaign and, when finding is set, one
// bucket (spec/ptxisa accepts a kindword seed that ptxas rejects).
func reportStore(t *testing.T, finding bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	defer storetest.Close(t, s)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := s.PutCampaign(store.Campaign{ID: "c1", State: store.StateDone, Created: now}); err != nil {
		t.Fatal(err)
	}
	d, _ := fuzz.Lookup("kindword")
	c := domain.NewCase(d.Name, d.Seeds()[0])
	if _, err := s.AddCases("c1", []store.CaseRecord{{ID: c.ID, Domain: d.Name, Data: c.Value.Encode(), Campaign: "c1", Seen: now}}); err != nil {
		t.Fatal(err)
	}
	tool := oracles.Accept
	if finding {
		tool = oracles.Reject
	}
	pol := policy.PolicyFor(d.Name)
	_, err := s.CommitVerdicts(store.Commit{Campaign: "c1", Now: now,
		Verdicts: []oracles.Verdict{
			{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: d.Name, Kind: oracles.Accept, Rule: "ptxisa.kindword"},
			{Oracle: "ptxas", Case: c.ID, Domain: d.Name, Kind: tool, Diagnostic: "error : no"},
		},
		Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportCommand(t *testing.T) {
	t.Run("new bucket exits 1 after writing every format", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report")
		stdout, stderr, code := runCLI(t, "", "report", "--db", reportStore(t, true), "--out", out)
		if code != exitFindings {
			t.Fatalf("exit %d, want %d; stderr %q", code, exitFindings, stderr)
		}
		for _, name := range []string{"report.html", "report.md", "report.json", "report.junit.xml"} {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil || !strings.Contains(stdout, name) {
				t.Errorf("%s: %v; stdout %q", name, err, stdout)
			}
		}
		data, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Campaign string         `json:"campaign"`
			Totals   map[string]int `json:"totals"`
		}
		if err := json.Unmarshal(data, &rep); err != nil || rep.Campaign != "c1" || rep.Totals["new_buckets"] != 1 {
			t.Fatalf("report.json: %+v, %v; want campaign c1 with 1 new bucket", rep, err)
		}
	})
	t.Run("a suppression file turns the exit to 0", func(t *testing.T) {
		sups := filepath.Join(t.TempDir(), "suppressions.json")
		if err := os.WriteFile(sups, []byte(`[{"domain": "kindword", "oracle": "ptxas", "reason": "reviewed"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "report")
		stdout, stderr, code := runCLI(t, "", "report", "--db", reportStore(t, true), "--out", out, "--suppressions", sups)
		if code != exitOK || !strings.Contains(stdout, "1 suppressed") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0 with the bucket suppressed", code, stdout, stderr)
		}
	})
	t.Run("nothing new exits 0", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report")
		if _, stderr, code := runCLI(t, "", "report", "--db", reportStore(t, false), "--out", out, "--format", "md"); code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 1 || entries[0].Name() != "report.md" {
			t.Fatalf("wrote %v, want report.md only", entries)
		}
	})
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"missing store", []string{"--db", filepath.Join(t.TempDir(), "none.db"), "--out", t.TempDir()}, "no such file"},
		{"unknown format", []string{"--out", t.TempDir(), "--format", "pdf"}, `unknown report format "pdf"`},
		{"no out", []string{"--db", "x.db"}, `"out" not set`},
		{"unknown campaign", []string{"--db", reportStore(t, false), "--out", t.TempDir(), "--campaign", "c9"}, `no campaign "c9"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", append([]string{"report"}, tc.args...)...)
			if code != exitError || !strings.Contains(stderr, tc.wantErr) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, stderr, exitError, tc.wantErr)
			}
		})
	}
}
