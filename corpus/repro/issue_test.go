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
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
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
	mlirV := oracles.Verdict{Oracle: "mlir@19", Version: "mlir-opt 19.1.7 +lowering ptxas 12.4.131", Case: c.ID, Domain: c.Domain,
		Kind: oracles.Error, Rule: "ptx/dropped", Diagnostic: "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)"}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "mlir@19", On: policy.OnVerdict}
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, []oracles.Verdict{ref[0], mlirV})
	if len(bs) != 1 {
		t.Fatalf("plant: %d buckets", len(bs))
	}
	b := bs[0]
	b.Versions = []store.VersionVerdict{
		{Oracle: "mlir@19", Version: mlirV.Version, Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
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
		"## Command", "mlir-opt --pass-pipeline",
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

// TestIssueOnTrunk: a bucket LLVM main still reproduces is written for
// main: its words, its commands, and the snapshot's commit. The case is
// the wgmma K miscompile (K=24 lowered to one m64n128k16), which the
// 2026-10-25 trunk still has.
func TestIssueOnTrunk(t *testing.T) {
	ctx := context.Background()
	in, ok := toolchain.Find(ctx, toolchain.Options{}, toolchain.Trunk)
	if !ok {
		t.Skip("LLVM trunk not installed (make oracles)")
	}
	trunk, st := mlir.Discover(ctx, in)
	if trunk == nil || trunk.Lower == nil {
		t.Skipf("mlir@trunk with its lowering: %s", st.Reason)
	}
	s := storetest.Open(t, "")
	v := wg.Seeds()[0].(wg.Value)
	v.K, v.BK = 24, 24
	c := domain.NewCase(wg.Name, v)
	ref, err := spec.New(spec.PTXISA).Judge(ctx, []domain.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	old := oracles.Verdict{Oracle: "mlir@19", Version: "mlir-opt 19.1.7 +lowering ptxas 12.4.131", Case: c.ID, Domain: c.Domain,
		Kind: oracles.Error, Rule: "ptx/dropped", Diagnostic: "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2 (a 64x24 tile in m64n128k16 steps)"}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "mlir@19", On: policy.OnVerdict}
	b := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, []oracles.Verdict{ref[0], old})[0]
	b.Versions = []store.VersionVerdict{
		{Oracle: "mlir@19", Version: old.Version, Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
		{Oracle: trunk.Name(), Version: trunk.Version(), Kind: oracles.Error, Rule: "ptx/dropped", Outcome: store.Reproduces},
	}
	if err := s.PutBucket(b); err != nil {
		t.Fatal(err)
	}
	bd, err := Write(ctx, s, b.Key, t.TempDir(), []oracles.Oracle{trunk})
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteIssue(bd)
	if err != nil {
		t.Fatal(err)
	}
	issue := read(t, path)
	for _, want := range []string{
		"trunk is LLVM main of " + in.Snapshot,
		"mlir@trunk (" + trunk.Version() + ") says **error** at stage `ptx/dropped`",
		"# the tools of the LLVM installation trunk",
	} {
		if !strings.Contains(issue, want) {
			t.Errorf("issue.md lacks %q:\n%s\ncommands.txt:\n%s", want, issue, read(t, filepath.Join(bd.Dir, CommandsFile)))
		}
	}
	if bd.Observed.Oracle != "mlir@trunk" || !strings.Contains(read(t, bd.Script), in.Path("mlir-opt")) {
		t.Errorf("bundle observed %s; repro.sh does not run trunk's mlir-opt", bd.Observed.Oracle)
	}
}
