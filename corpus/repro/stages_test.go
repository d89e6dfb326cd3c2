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
	"github.com/legalfuzz/legalfuzz/oracles/sass"
)

// TestSASSScriptJudgesTheDisassembler: a bucket where nvdisasm refused the
// cubin ptxas wrote replays ptxas and nvdisasm by hand, and reproduces
// exactly when nvdisasm fails on the cubin.
func TestSASSScriptJudgesTheDisassembler(t *testing.T) {
	if _, st := sass.Discover(context.Background()); !st.Available {
		t.Skipf("the sass oracle's tools are not all here (%s); run %s", st.Reason, st.Install)
	}
	s := storetest.Open(t, "")
	c := domain.NewCase(ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, target.MustParse("sm_90a", "")))
	pol := policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{{A: oracles.PTXAS, B: oracles.SASS, On: policy.OnVerdict}}}
	buckets := storetest.Plant(t, s, c, pol, []oracles.Verdict{
		{Oracle: oracles.PTXAS, Case: c.ID, Domain: c.Domain, Kind: oracles.Accept},
		{Oracle: oracles.SASS, Case: c.ID, Domain: c.Domain, Kind: oracles.Error, Rule: "nvdisasm/refused",
			Diagnostic: "nvdisasm failed (exit status 1): nvdisasm fatal   : bad cubin"},
	})
	if len(buckets) != 1 {
		t.Fatalf("plant: %d buckets, want 1", len(buckets))
	}
	bd, err := Write(context.Background(), s, buckets[0].Key, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "nvdisasm")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'nvdisasm fatal   : bad cubin' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if rc, out := runScript(t, bd, "LEGALFUZZ_NVDISASM="+fake); rc != ExitReproduces {
		t.Errorf("with a failing nvdisasm: exit %d, want %d:\n%s\n%s", rc, ExitReproduces, read(t, bd.Script), out)
	}
	if rc, out := runScript(t, bd); rc != ExitFixed {
		t.Errorf("with the real nvdisasm: exit %d, want %d:\n%s\n%s", rc, ExitFixed, read(t, bd.Script), out)
	}
}
