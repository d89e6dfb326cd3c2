package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
)

// seed is the cases' seed: LEGALFUZZ_SEED when set, else fixed.
func seed(t *testing.T) uint64 {
	t.Helper()
	return domaintest.Seed(t, "LEGALFUZZ_SEED", DefaultSeed)
}

// TestBatchingPTXAS runs the whole benchmark on 20 ptxas cases and checks
// the JSON shape and that batching changes no verdict.
func TestBatchingPTXAS(t *testing.T) {
	if o, st := ptxas.Discover(context.Background()); o == nil {
		t.Skipf("ptxas 12.4 is not installed (%s); run make oracles", st.Reason)
	}
	const n = 20
	rep, err := Run(context.Background(), Options{Oracles: []string{"ptxas"}, Cases: n, Seed: seed(t)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"generated", "machine", "oracles", "skipped"} {
		if _, ok := doc[key]; !ok {
			t.Fatalf("report lacks %q: %s", key, data)
		}
	}
	for _, key := range []string{"cores", "gomaxprocs", "cpu", "go"} {
		if _, ok := doc["machine"].(map[string]any)[key]; !ok {
			t.Errorf("machine lacks %q", key)
		}
	}
	ors := doc["oracles"].([]any)
	if len(ors) != 1 {
		t.Fatalf("want one oracle report, got %d: %s", len(ors), data)
	}
	or := ors[0].(map[string]any)
	for _, key := range []string{"oracle", "version", "cases", "seed", "batched", "one_per_process", "bare",
		"batched_accepted_only", "bare_accepted_only", "speedup", "overhead_pct", "overhead_pct_accepted_only", "overhead_pct_accepted_only_warm", "cpu_speedup",
		"cpu_overhead_pct", "cpu_overhead_pct_accepted_only", "cpu_overhead_pct_accepted_only_warm",
		"mismatches", "mismatch_details", "notes", "verdicts", "domains", "targets", "load_average"} {
		if _, ok := or[key]; !ok {
			t.Errorf("oracle report lacks %q", key)
		}
	}
	for _, mode := range []string{"batched", "one_per_process", "bare", "batched_accepted_only", "bare_accepted_only",
		"batched_accepted_only_warm"} {
		m := or[mode].(map[string]any)
		for _, key := range []string{"seconds", "cases_per_s", "invocations"} {
			if v, ok := m[key].(float64); !ok || v <= 0 {
				t.Errorf("%s.%s = %v, want a positive number", mode, key, m[key])
			}
		}
	}
	r := rep.Oracles[0]
	if r.Cases != n || r.Oracle != "ptxas" {
		t.Errorf("oracle %q cases %d, want ptxas %d", r.Oracle, r.Cases, n)
	}
	// Cases whose module header ptxas refuses are decided from the cached
	// header probe without a run, so one per process may run fewer
	// processes than cases, but more than batched.
	if r.OnePerProcess.Invocations <= r.Batched.Invocations {
		t.Errorf("one per process made %d invocations for %d cases, batched %d", r.OnePerProcess.Invocations, n, r.Batched.Invocations)
	}
	if r.Mismatches != 0 {
		t.Errorf("%d verdicts differ batched and one per process: %+v", r.Mismatches, r.MismatchDetails)
	}
	t.Logf("verdicts %v; speedup %.1f×, overhead %.1f%% mixed, %.1f%% accepted only",
		r.Verdicts, r.Speedup, r.OverheadPct, r.OverheadPctAcceptedOnly)
}

// TestUnknownOracle: a name the benchmark does not know is an error, not a
// skip.
func TestUnknownOracle(t *testing.T) {
	if _, err := Run(context.Background(), Options{Oracles: []string{"nope"}, Cases: 1}); err == nil {
		t.Fatal("want an error for an unknown oracle")
	}
}
