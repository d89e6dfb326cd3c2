package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
)

// benchPrograms decodes fixed pseudo-random programs plus the seeds, keeping
// those with at most maxEvents events.
func benchPrograms(maxEvents int) []wc.Value {
	rng := rand.New(rand.NewPCG(1, 2))
	var vals []wc.Value
	for _, v := range wc.Seeds() {
		vals = append(vals, v.(wc.Value))
	}
	for range 2000 {
		dv, _ := wc.Decode(domaintest.Input(rng, 48))
		vals = append(vals, dv.(wc.Value))
	}
	var out []wc.Value
	for _, v := range vals {
		if len(model.New(v).Events) <= maxEvents {
			out = append(out, v)
		}
	}
	return out
}

// BenchmarkLowerAndCheck measures one case end to end in closed form:
// lowering, model preparation and the soundness and best-threshold check.
func BenchmarkLowerAndCheck(b *testing.B) {
	vals := benchPrograms(model.MaxExploreEvents)
	n := 0
	for b.Loop() {
		v := vals[n%len(vals)]
		n++
		if _, err := model.New(v).Check(lower.Lower(v)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkExplore measures the brute force on programs of at most 12
// events: completion orders (transitions) and states explored per second.
func BenchmarkExplore(b *testing.B) {
	vals := benchPrograms(12)
	n, states, steps := 0, 0, 0
	for b.Loop() {
		v := vals[n%len(vals)]
		n++
		ex, err := model.New(v).Explore(lower.Lower(v), 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		states += ex.States
		steps += ex.Transitions
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(n)/s, "cases/s")
	b.ReportMetric(float64(states)/s, "states/s")
	b.ReportMetric(float64(steps)/s, "orders/s")
	b.ReportMetric(float64(states)/float64(n), "states/case")
}
