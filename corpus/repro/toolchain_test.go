package repro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestScriptRunsTheNamedToolchain: a bucket of a build the user named
// (--toolchain mine=DIR) gets a bundle whose repro.sh runs that build's
// mlir-opt. The build here is LLVM 19's tools with an mlir-opt that
// refuses the bundle's case.mlir in the bucket's words, so repro.sh
// reproduces only when it runs DIR's mlir-opt: an installation found
// again by the label in the oracle's name finds no "mine" at all.
func TestScriptRunsTheNamedToolchain(t *testing.T) {
	ctx := context.Background()
	release := toolchaintest.Release(t, 19)
	real, err := release.Locate(ctx, "mlir-opt")
	if err != nil {
		t.Skipf("mlir-opt 19 not found: %v", err)
	}
	fake := filepath.Join(t.TempDir(), "mlir-opt")
	script := "#!/bin/sh\ncase \"$*\" in *" + MLIRFile + "*)\n  echo \"" + MLIRFile + ":3:5: error: the build's own words\" >&2; exit 1;;\nesac\nexec '" + real.Path + "' \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := toolchaintest.WithTool(t, release, "mlir-opt", fake).Dir
	ins, _, err := toolchain.Discover(ctx, toolchain.Options{Named: []string{"mine=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	var mine toolchain.Installation
	for _, in := range ins {
		if in.Label == "mine" {
			mine = in
		}
	}
	o, st := mlir.Discover(ctx, mine)
	if o == nil {
		t.Fatalf("mlir@mine: %s", st.Reason)
	}
	d, _ := fuzz.Lookup("mma")
	c := domain.NewCase(d.Name, spellableSeed(d))
	name := oracles.Installed(oracles.MLIR, "mine")
	bd := plantedBundle(t, c, policy.Pair{A: oracles.SpecPTXISA, B: name, On: policy.OnVerdict}, []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept, Rule: "ptxisa.mma"},
		{Oracle: name, Case: c.ID, Domain: c.Domain, Kind: oracles.Reject, Rule: "verify", Diagnostic: "FILE:LINE:COL: error: the build's own words"},
	}, []oracles.Oracle{o})
	text := read(t, bd.Script)
	if !strings.Contains(text, filepath.Join(dir, "mlir-opt")) {
		t.Errorf("repro.sh does not name %s's mlir-opt:\n%s", dir, text)
	}
	if rc, out := runScript(t, bd); rc != ExitReproduces {
		t.Errorf("exit %d, want %d (the named build's mlir-opt reproduces):\n%s\n%s", rc, ExitReproduces, text, out)
	}
}
