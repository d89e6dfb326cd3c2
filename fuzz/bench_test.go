package fuzz

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
)

// benchValues decodes a fixed set of pseudo-random inputs plus the seeds, so
// every domain is measured on a mix of legal and illegal values.
func benchValues(d domain.Domain) []domain.Value {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := d.Seeds()
	for range 1000 {
		if v, err := d.Decode(domaintest.Input(rng, 64)); err == nil {
			vals = append(vals, v)
		}
	}
	return vals
}

// BenchmarkSpec measures the spec oracle per domain: decode-free judging of
// one value by both rule sets, reported as cases/s.
func BenchmarkSpec(b *testing.B) {
	for _, d := range Domains() {
		vals := benchValues(d)
		b.Run(d.Name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				v := vals[n%len(vals)]
				n++
				for _, set := range rules.Sets {
					if !slices.Contains(rules.Domains(set), d.Name) {
						continue
					}
					if _, err := rules.JudgeValue(set, d.Name, v); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// BenchmarkFuzzIteration measures one iteration of the native fuzz loop
// (fuzzDomain's body: decode, then the invariants), per domain: the share a
// domain's decoder takes of it is what a slower decoder costs the fuzzer.
func BenchmarkFuzzIteration(b *testing.B) {
	for _, d := range Domains() {
		vals := benchValues(d)
		inputs := make([][]byte, len(vals))
		for i, v := range vals {
			inputs[i] = v.Encode()
		}
		b.Run(d.Name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				v, err := d.Decode(inputs[i%len(inputs)])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rulestest.CheckInvariants(d, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
