package main

import (
	"strings"
	"testing"
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
