package repro

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// TestWriteIssue plants the silent wgmma K miscompile as the campaign
// records it (verdicts as the oracles gave them on a 64x24 f16 tile) and
// checks the issue a maintainer would get.
func TestWriteIssue(t *testing.T) {
	s := storetest.Open(t, "")
	v := wg.Seeds()[0].(wg.Value)
	v.K, v.BK = 24, 24
	c := domain.NewCase(wg.Name, v)
	ref, err := spec.New(spec.PTXISA).Judge(context.Background(), []domain.Case{c})
	if err != nil || ref[0].Kind != oracles.Reject {
		t.Fatalf("spec/ptxisa on K 24: %+v %v", ref, err)
	}
	mlirV := oracles.Verdict{Oracle: oracles.MLIR, Version: "mlir-opt 19.1.7 +lowering ptxas 12.4.131", Case: c.ID, Domain: c.Domain,
		Kind: oracles.Error, Rule: "ptx/dropped", Diagnostic: "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)"}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: oracles.MLIR, On: policy.OnVerdict}
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, []oracles.Verdict{ref[0], mlirV})
	if len(bs) != 1 {
		t.Fatalf("plant: %d buckets", len(bs))
	}
	b := bs[0]
	b.Versions = []store.VersionVerdict{
		{Oracle: oracles.MLIR, Version: mlirV.Version, Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
		{Oracle: "mlir@22", Version: "mlir-opt 22.1.8 +lowering ptxas 12.4.131", Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
	}
	if err := s.PutBucket(b); err != nil {
		t.Fatal(err)
	}
	bd, err := Write(context.Background(), s, b.Key, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteIssue(bd)
	if err != nil {
		t.Fatal(err)
	}
	issue := read(t, path)
	t.Log(issue)
	for _, want := range []string{
		"# [MLIR][NVGPU] miscompiles wgmma: ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2",
		"Versions: 19: reproduces, 22: reproduces. **The newest version tested still reproduces it.**",
		"## Input (`case.mlir`)", "nvgpu.warpgroup.mma", "memref<64x24xf16, 3>",
		"## Command", "mlir-opt-19",
		"says **error** at stage `ptx/dropped`",
		"(`" + ref[0].Rule + "`, PTX ISA",
	} {
		if !strings.Contains(issue, want) {
			t.Errorf("issue.md lacks %q", want)
		}
	}
	if filepath.Base(path) != IssueFile {
		t.Errorf("written to %s", path)
	}
}
