package repro

// The replays of the pass judges and the sass oracle, each run with a fake
// of the tool under test that shows the bug and with the real one.

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas/sass"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestSASSScriptJudgesTheDisassembler: a bucket where nvdisasm refused the
// cubin ptxas wrote replays ptxas and nvdisasm by hand, and reproduces
// exactly when nvdisasm fails on the cubin.
func TestSASSScriptJudgesTheDisassembler(t *testing.T) {
	if _, st := sass.Discover(context.Background()); !st.Available {
		t.Skipf("the sass oracle's tools are not all here (%s); run %s", st.Reason, st.Install)
	}
	c := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, target.MustParse("sm_90a", "")))
	reproducesOnlyWithFake(t, c, policy.Pair{A: oracles.PTXAS, B: oracles.SASS, On: policy.OnVerdict}, []oracles.Verdict{
		{Oracle: oracles.PTXAS, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept},
		{Oracle: oracles.SASS, Case: c.ID, Domain: c.Domain, Kind: oracles.Error, Rule: "nvdisasm/refused",
			Diagnostic: "nvdisasm failed (exit status 1): nvdisasm fatal   : bad cubin"},
	}, "LEGALFUZZ_NVDISASM", "#!/bin/sh\necho 'nvdisasm fatal   : bad cubin' >&2\nexit 1\n")
}

// TestPassScriptJudgesThePass: a bucket where canonicalize left IR the
// verifier rejects replays the passes before it and canonicalize alone
// with mlir-opt-19, and reproduces exactly when the verifier rejects what
// canonicalize wrote.
func TestPassScriptJudgesThePass(t *testing.T) {
	opt, err := toolchaintest.Release(t, 19).Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skipf("mlir-opt-19 not found: %v", err)
	}
	c := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, target.MustParse("sm_90a", "")))
	// The fake mlir-opt's canonicalize writes IR the verifier rejects.
	fake := "#!/bin/sh\ncase \"$*\" in *verify-each=false*canonicalize*)\n" +
		"  for a; do [ \"${prev:-}\" = -o ] && out=$a; prev=$a; done\n" +
		"  echo 'module { \"bad.op\"() : () -> () }' >\"$out\"; exit 0;;\nesac\nexec '" + opt.Path + "' \"$@\"\n"
	reproducesOnlyWithFake(t, c, policy.Pair{A: oracles.SpecPTXISA, B: "mlir-passes@19", On: policy.OnCrash}, []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept, Rule: "ptxisa.ldsm"},
		{Oracle: "mlir-passes@19", Case: c.ID, Domain: c.Domain, Kind: oracles.Error, Rule: "pass:canonicalize/invalid-ir",
			Diagnostic: "pass:canonicalize: left IR the verifier rejects: FILE:LINE:COL: error: made up"},
	}, "LEGALFUZZ_TOOL_MLIR_OPT", fake)
}
