package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/exec"
)

// TestBenchBatchingUsage: the benchmark needs --out and known oracle names;
// both mistakes are usage errors, before anything runs.
func TestBenchBatchingUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no out", []string{"bench", "batching", "--oracles", "ptxas"}, "out"},
		{"unknown oracle", []string{"bench", "batching", "--oracles", "nope", "--out", "x.json"}, "unknown oracle"},
		{"no cases", []string{"bench", "batching", "--cases", "0", "--out", "x.json"}, "--cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, "", tc.args...)
			if code != exitError || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, exitError, tc.want)
			}
		})
	}
}

// TestBenchSoakUsage: the soak's mistakes are usage errors, before any
// server or process starts.
func TestBenchSoakUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no out", []string{"bench", "soak"}, "out"},
		{"zero duration", []string{"bench", "soak", "--duration", "0s", "--out", "x.json"}, "--duration"},
		{"no workers", []string{"bench", "soak", "--workers", "0", "--out", "x.json"}, "--workers"},
		{"unknown oracle", []string{"bench", "soak", "--oracles", "nope", "--out", "x.json"}, "unknown oracle"},
		{"unknown domain", []string{"bench", "soak", "--domains", "nope", "--out", "x.json"}, "unknown domain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, "", tc.args...)
			if code != exitError || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, exitError, tc.want)
			}
		})
	}
}

// TestHostileVerifier: the soak's hostile verifier says a hello legalfuzz
// accepts and rejects each case with a first line over bbolt's 32 KiB key
// limit, the attack the soak must survive.
func TestHostileVerifier(t *testing.T) {
	out, errOut, code := runCLI(t, `{"batch":3,"cases":[{"id":"a1","domain":"kindword","value":{}},{"id":"b2","domain":"kindword","value":{}}]}`+"\n",
		"bench", "hostile-verifier")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines, stderr %q; want a hello and one answer", code, len(lines), errOut)
	}
	var hello exec.Hello
	if err := json.Unmarshal([]byte(lines[0]), &hello); err != nil || hello.Protocol != exec.Protocol || hello.Name != "hostile" {
		t.Fatalf("hello %q, %v", lines[0], err)
	}
	var a struct {
		Batch    int64 `json:"batch"`
		Verdicts []struct{ ID, Verdict, Diagnostic string }
	}
	if err := json.Unmarshal([]byte(lines[1]), &a); err != nil || a.Batch != 3 || len(a.Verdicts) != 2 {
		t.Fatalf("answer %+v, %v; want batch 3 with two verdicts", a, err)
	}
	for _, v := range a.Verdicts {
		first, _, _ := strings.Cut(v.Diagnostic, "\n")
		if v.Verdict != "reject" || len(first) <= 32<<10 {
			t.Errorf("case %s: %s with a first line of %d bytes; want reject over 32 KiB", v.ID, v.Verdict, len(first))
		}
	}
}
