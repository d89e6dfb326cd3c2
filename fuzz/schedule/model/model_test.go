package model

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// BenchmarkModel measures the model, as states explored per second
// and schedules judged per second, on the seed schedules (examples and small
// reference pipelines) and on reference plans of random DAGs (bounded at
// 20,000 states).
func BenchmarkModel(b *testing.B) {
	var seeds, plans []sc.Value
	for _, v := range sc.Seeds() {
		seeds = append(seeds, v.(sc.Value))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for len(plans) < 32 {
		if v, err := sc.Generate(sc.RandomDAG(rng)); err == nil {
			v.MaxStates = 20_000
			plans = append(plans, v)
		}
	}
	for _, set := range []struct {
		name string
		vals []sc.Value
	}{{"seeds", seeds}, {"plans", plans}} {
		b.Run(set.name, func(b *testing.B) {
			states, n := 0, 0
			for b.Loop() {
				r := Check(set.vals[n%len(set.vals)])
				states += r.States
				n++
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// TestBound: a bound too small yields bound-exceeded, never ok; a
// violation found within the bound is still reported; a larger bound
// settles the case.
func TestBound(t *testing.T) {
	ok := exampleNamed(t, "blackwell-pipeline")
	full := Check(ok)
	if full.Verdict() != "ok" || !full.Complete {
		t.Fatalf("blackwell pipeline: %s", full.Verdict())
	}
	for _, bound := range []int{1, 10, full.States - 1} {
		r := CheckBound(ok, bound)
		if r.Verdict() != "bound-exceeded" || r.Complete || r.States > bound {
			t.Fatalf("bound %d: verdict %s, complete %v, %d states", bound, r.Verdict(), r.Complete, r.States)
		}
	}
	if r := CheckBound(ok, full.States); r.Verdict() != "ok" {
		t.Fatalf("bound = state count: %s", r.Verdict())
	}
	race := exampleNamed(t, "pipeline-slot-reused-early")
	if r := CheckBound(race, 90); r.Complete || r.Verdict() != "race" {
		t.Fatalf("race within a cut exploration: complete %v, verdict %s", r.Complete, r.Verdict())
	}
}

// TestExact runs the model's exact self-checks on every
// example: a fresh run finds the same, and reversing the roles keeps ok-ness.
func TestExact(t *testing.T) {
	for _, ex := range sc.Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			a, b := Check(ex.V), Check(ex.V)
			if a.States != b.States || !reflect.DeepEqual(a.Findings, b.Findings) {
				t.Fatalf("two runs differ: %d/%+v vs %d/%+v", a.States, a.Findings, b.States, b.Findings)
			}
			if err := CheckPermutation(ex.V); err != nil {
				t.Fatal(err)
			}
			if ex.V.NRoles > 1 {
				p := Check(permuteRoles(ex.V))
				if a.Complete && p.Complete && (a.Verdict() == "ok") != (p.Verdict() == "ok") {
					t.Fatalf("verdict %s, reversed roles %s", a.Verdict(), p.Verdict())
				}
			}
		})
	}
}

// TestWitness checks what a finding carries: the rule, the detail and the
// interleaving.
func TestWitness(t *testing.T) {
	r := Check(exampleNamed(t, "cross-role-store-no-fence"))
	f := r.FindProxy(ProxyAsync)
	if f == nil {
		t.Fatalf("no async proxy hazard: %+v", r.Findings)
	}
	wantSteps := []string{"r0.0 st.shared a=0", "r0.1 mbarrier.arrive bar=0", "r1.0 mbarrier.try_wait.parity bar=0 parity=0", "r1.1 cp.async.bulk.tensor.store a=0 tmap=0"}
	if !reflect.DeepEqual(f.Witness, wantSteps) {
		t.Fatalf("witness %q, want %q", f.Witness, wantSteps)
	}
	dl := Check(exampleNamed(t, "pipeline-producer-parity-off")).Find("deadlock")
	if dl == nil || !strings.Contains(dl.Detail, "role 0 blocked at op 1 mbarrier.try_wait.parity mbarrier 2 parity 0 (phase 0, 1 of 1 arrivals pending") {
		t.Fatalf("deadlock detail does not show the blocked state: %+v", dl)
	}
}

func exampleNamed(t *testing.T, name string) sc.Value {
	t.Helper()
	for _, ex := range sc.Examples() {
		if ex.Name == name {
			return ex.V
		}
	}
	t.Fatalf("no example %s", name)
	return sc.Value{}
}
