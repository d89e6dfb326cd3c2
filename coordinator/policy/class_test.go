package policy

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  Signature
		want Class
	}{
		{"crash", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error}, Crash},
		{"another value", Signature{Domain: "matdesc", Tool: oracles.MLIR, Kind: oracles.Accept, On: OnValue}, Miscompile},
		{"accepts what spec rejects", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Accept, Rule: "ptxisa.wgmma.k", On: OnVerdict}, TooPermissive},
		{"rejects what spec accepts", Signature{Domain: "tmadesc", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: the tensormap descriptor must have last dimension of N bytes but it is N bytes"}, TooStrict},
		{"MLIR's own not supported yet", Signature{Domain: "tmadesc", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: Interleave options are not supported yet."}, Limitation},
		{"MLIR's own hit a limitation", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: 'nvgpu.warpgroup.mma' op hit a limitation: 'fN' += 'fNENMNFN' * 'fNENMNFN', it is not supported yet"}, Limitation},
		{"fence inserter under test", Signature{Domain: "schedule", Tool: oracles.FenceProxy, Kind: oracles.Reject}, SeedEvidence},
		{"waitcnt lowering under test", Signature{Domain: "waitcnt", Tool: oracles.AMDGPUMC, Kind: oracles.Accept, On: OnValue}, SeedEvidence},
		{"two tools, spec silent", Signature{Domain: "mma", Tool: oracles.LLC19 + "~" + oracles.LLC22, Kind: oracles.Reject}, Disputed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassOf(tc.sig); got != tc.want {
				t.Errorf("ClassOf = %s, want %s", got, tc.want)
			}
		})
	}
	if Crash.Rank() >= TooStrict.Rank() || !Crash.Bug() || Limitation.Bug() || SeedEvidence.Bug() {
		t.Error("crashes must rank first and fail a nightly; limitations and seed evidence must not fail it")
	}
}
