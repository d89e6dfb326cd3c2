package repro

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestPassScriptJudgesThePass: a bucket where canonicalize left IR the
// verifier rejects replays the passes before it and canonicalize alone
// with mlir-opt-19, and reproduces exactly when the verifier rejects what
// canonicalize wrote.
func TestPassScriptJudgesThePass(t *testing.T) {
	opt, err := toolchaintest.Release(t, 19).Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skipf("mlir-opt-19 not found: %v", err)
	}
	s := storetest.Open(t, "")
	c := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, target.MustParse("sm_90a", "")))
	pol := policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{{A: oracles.SpecPTXISA, B: "mlir-passes@19", On: policy.OnCrash}}}
	buckets := storetest.Plant(t, s, c, pol, []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept, Rule: "ptxisa.ldsm"},
		{Oracle: "mlir-passes@19", Case: c.ID, Domain: c.Domain, Kind: oracles.Error, Rule: "pass:canonicalize/invalid-ir",
			Diagnostic: "pass:canonicalize: left IR the verifier rejects: FILE:LINE:COL: error: made up"},
	})
	if len(buckets) != 1 {
		t.Fatalf("plant: %d buckets, want 1", len(buckets))
	}
	bd, err := Write(context.Background(), s, buckets[0].Key, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "mlir-opt")
	script := "#!/bin/sh\ncase \"$*\" in *verify-each=false*canonicalize*)\n" +
		"  for a; do [ \"${prev:-}\" = -o ] && out=$a; prev=$a; done\n" +
		"  echo 'module { \"bad.op\"() : () -> () }' >\"$out\"; exit 0;;\nesac\nexec '" + opt.Path + "' \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if rc, out := runScript(t, bd, "LEGALFUZZ_TOOL_MLIR_OPT="+fake); rc != ExitReproduces {
		t.Errorf("with a canonicalize that writes bad IR: exit %d, want %d:\n%s\n%s", rc, ExitReproduces, read(t, bd.Script), out)
	}
	if rc, out := runScript(t, bd); rc != ExitFixed {
		t.Errorf("with the real mlir-opt-19: exit %d, want %d:\n%s\n%s", rc, ExitFixed, read(t, bd.Script), out)
	}
}
