package signal_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/signal"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func verdict(oracle string, kind oracles.Kind, rule, diagnostic string) oracles.Verdict {
	return oracles.Verdict{Oracle: oracle, Case: "c1", Domain: "kindword", Kind: kind, Rule: rule, Diagnostic: diagnostic}
}

// TestFeatures is the table of what a case's verdicts make: one feature per
// verdict (spec: its rule; tools: stage and normalized title; accept: the
// rule set or stage), and the vector once every enqueued oracle answered.
func TestFeatures(t *testing.T) {
	specReject := verdict(oracles.SpecSeed, oracles.Reject, "kindword/seed/cta-group", "cta_group 3 is reserved")
	specAccept := verdict(oracles.SpecPTXISA, oracles.Accept, "spec/ptxisa", "")
	ptxas := verdict(oracles.PTXAS, oracles.Reject, "", "ptxas /tmp/x.ptx, line 12; error   : Unknown modifier '.kind::f16' in sm_90a")
	ptxasOtherLine := verdict(oracles.PTXAS, oracles.Reject, "", "ptxas /tmp/y.ptx, line 97; error   : Unknown modifier '.kind::f16' in sm_100a")
	mlirUnsupported := verdict(oracles.MLIR, oracles.Unsupported, "render", "no nvgpu form for kind 7")
	result := oracles.Verdict{Oracle: oracles.GPU, Case: "c1", Kind: oracles.Result, Rule: "load", Value: "abc123"}
	tests := []struct {
		name     string
		vs       []oracles.Verdict
		enqueued []string
		want     []string
	}{
		{"none", nil, nil, []string{}},
		{"spec reject is its rule", []oracles.Verdict{specReject}, nil,
			[]string{"spec/seed|reject|kindword/seed/cta-group"}},
		{"accept is its rule set", []oracles.Verdict{specAccept}, nil,
			[]string{"spec/ptxisa|accept|spec/ptxisa"}},
		{"tool diagnostic is its title", []oracles.Verdict{ptxas}, nil,
			[]string{"ptxas|reject||error : Unknown modifier '.kind::f16' in sm_N"}},
		{"result value is no feature", []oracles.Verdict{result}, nil,
			[]string{"gpu|result|load"}},
		{"incomplete: no vector", []oracles.Verdict{specReject, mlirUnsupported},
			[]string{oracles.SpecSeed, oracles.MLIR, oracles.PTXAS},
			[]string{"mlir|unsupported|render|no nvgpu form for kind N", "spec/seed|reject|kindword/seed/cta-group"}},
		{"complete: vector", []oracles.Verdict{mlirUnsupported, specReject},
			[]string{oracles.SpecSeed, oracles.MLIR},
			[]string{"mlir|unsupported|render|no nvgpu form for kind N", "spec/seed|reject|kindword/seed/cta-group",
				"vector|mlir:unsupported,spec/seed:reject"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := signal.Features(tc.vs, tc.enqueued)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Features = %q, want %q", got, tc.want)
			}
		})
	}
	if a, b := signal.VerdictFeature(ptxas), signal.VerdictFeature(ptxasOtherLine); a != b {
		t.Errorf("one ptxas check at two lines and targets gives two features: %q, %q", a, b)
	}
}

// TestFeaturesIgnoreOrder checks that features depend on the verdicts only,
// not on the order they arrived in.
func TestFeaturesIgnoreOrder(t *testing.T) {
	vs := []oracles.Verdict{
		verdict(oracles.SpecSeed, oracles.Reject, "r1", "m"),
		verdict(oracles.SpecPTXISA, oracles.Accept, "spec/ptxisa", ""),
		verdict(oracles.PTXAS, oracles.Error, "", "Segmentation fault at 0x7fff1234"),
		verdict("llc@19", oracles.Timeout, "llc", ""),
	}
	enq := []string{oracles.SpecSeed, oracles.SpecPTXISA, oracles.PTXAS, "llc@19"}
	want := signal.Features(vs, enq)
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		shuffled := slices.Clone(vs)
		rnd.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := signal.Features(shuffled, enq); !slices.Equal(got, want) {
			t.Fatalf("Features(%v) = %q, want %q", shuffled, got, want)
		}
	}
}
