package reproduce

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
)

// TestReduceKeepsTheOps: a dropped-work reduction may not delete the op
// whose work was dropped (deleting it drops all of it), in either form the
// renderers write (93afe7d43ba677b8 lost its generic-form
// nvgpu.warpgroup.mma and still "reproduced"); the target attribute is not
// an op.
func TestReduceKeepsTheOps(t *testing.T) {
	for line, want := range map[string]bool{
		"      %v4 = nvgpu.warpgroup.mma %v1, %v2, %v3 : ...":                                                                    true,
		`      %v4 = "nvgpu.warpgroup.mma"(%v1, %v2, %v3) : (...) -> ...`:                                                        true,
		"        nvvm.stmatrix %p, %r {layout = #nvvm.mma_layout<row>} : !llvm.ptr<3>, i32":                                      true,
		`  gpu.module @m [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {`:                                                 false,
		"      %v1 = builtin.unrealized_conversion_cast %da : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x24xf16, 3>>": false,
	} {
		if got := (mlirText{}).Ops(line); got != want {
			t.Errorf("%q: kept %t, want %t", line, got, want)
		}
	}
}

// TestFunctionArguments: the reducer's edits of a function's opening
// line, on the kernel line MLIR's renderers write.
func TestFunctionArguments(t *testing.T) {
	const k = `    gpu.func @k_1(%i: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<ui8, 3>, swizzle = none>) kernel {`
	if got, _ := withArgument(k, "%v11: memref<ui8, 3>"); got != `    gpu.func @k_1(%i: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<ui8, 3>, swizzle = none>, %v11: memref<ui8, 3>) kernel {` {
		t.Errorf("withArgument: %s", got)
	}
	if got, _ := withArgument(`  func.func @host() {`, "%v1: i64"); got != `  func.func @host(%v1: i64) {` {
		t.Errorf("withArgument, no arguments: %s", got)
	}
	for name, want := range map[string]string{
		"%i": `    gpu.func @k_1(%d: !nvgpu.tensormap.descriptor<tensor = memref<ui8, 3>, swizzle = none>) kernel {`,
		"%d": `    gpu.func @k_1(%i: index) kernel {`,
	} {
		if got, ok := withoutArgument(k, name); !ok || got != want {
			t.Errorf("withoutArgument %s:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestReproducersReplayTheChain: corpus/repro replays MLIR through these
// interfaces and names no oracle, so a reproducer that lost one would
// fall back to legalfuzz check unnoticed. The pass judges have no lit
// test: their bucket's replay is the pass alone, which lit.cfg.py does not
// run.
func TestReproducersReplayTheChain(t *testing.T) {
	for name, r := range map[string]oracles.Reproducer{"mlir": Reproducer{}, "mlir-passes": PassesReproducer{}} {
		_, plans := r.(replay.Planner)
		_, validates := r.(replay.Validator)
		_, edits := r.(replay.Editor)
		if !plans || !validates || !edits {
			t.Errorf("%s: Planner %t, Validator %t, Editor %t; want all three", name, plans, validates, edits)
		}
	}
	if _, ok := oracles.Reproducer(Reproducer{}).(replay.Lit); !ok {
		t.Error("the mlir oracles write no lit test")
	}
	if _, ok := oracles.Reproducer(PassesReproducer{}).(replay.Lit); ok {
		t.Error("the pass judges write a lit test")
	}
}
