package policy

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestLLCRenamesSM110: llc from LLVM 24 accepting cp.async on sm_110a at
// PTX 8.8 (it writes .target sm_101a, llvm#218968) is expected; the same
// accept by llc 23, or on a target PTX 8.8 does not rename, is a finding.
func TestLLCRenamesSM110(t *testing.T) {
	v := cpasync.Seeds()[0].(cpasync.Value)
	ref := oracles.Verdict{Oracle: oracles.SpecPTXISA, Kind: oracles.Reject, Rule: "ptxisa.cpasync.target-ptx-version"}
	for _, tc := range []struct {
		name, version, target string
		expected              bool
	}{
		{"trunk, sm_110a at 8.8", "24.0.0", "sm_110a", true},
		{"llc 23, sm_110a at 8.8", "23.1.4", "sm_110a", false},
		{"trunk, sm_120a at 8.6", "24.0.0", "sm_120a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v.Tgt = target.Target{Arch: target.MustParse(tc.target, "").Arch, PTX: 88}
			if tc.target == "sm_120a" {
				v.Tgt.PTX = 86
			}
			c := domain.NewCase(cpasync.Name, v)
			llc := oracles.Verdict{Oracle: "llc@x", Version: tc.version, Kind: oracles.Accept}
			ds := PolicyFor(cpasync.Name).Evaluate(c, []oracles.Verdict{ref, llc})
			if len(ds) != 1 || (ds[0].Expected != "") != tc.expected {
				t.Fatalf("disagreements %+v: want expected=%t", ds, tc.expected)
			}
			older := oracles.Verdict{Oracle: "llc@old", Version: "22.1.8", Kind: oracles.Reject, Rule: "llc.fatal-error"}
			ds = PolicyFor(cpasync.Name).Evaluate(c, []oracles.Verdict{ref, older, llc})
			for _, d := range ds {
				if d.Pair.A != oracles.SpecPTXISA && (d.Expected != "") != tc.expected {
					t.Errorf("%s: expected=%t, want %t", d.Pair, d.Expected != "", tc.expected)
				}
			}
		})
	}
}
