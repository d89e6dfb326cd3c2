package repro

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestScriptRunsTheFewestPasses: a bucket of the lowering replays with the
// fewest passes of the pipeline that show it, found by running MLIR
// trunk, and issue.md's command is that one mlir-opt run. The cases are a
// 60 s campaign's: an f16 wgmma accumulator that convert-nvvm-to-llvm
// refuses with an error at exit status 0 (a07bf54df757efc6), an f64
// mma.sync convert-nvgpu-to-nvvm refuses (4014d332301a8d99), and a bf16
// mma.sync it leaves unconverted (5d5bf0f00bf23cb4), and a sparse f64
// mma.sync whose inline asm llvm-link refuses (425addba8a740538), which
// replays through the chain.
func TestScriptRunsTheFewestPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MLIR trunk's lowering")
	}
	ctx := context.Background()
	trunk, st := mlir.Discover(ctx, toolchaintest.Trunk(t))
	if trunk == nil || trunk.Lower == nil {
		t.Skipf("mlir@trunk with its lowering: %s", st.Reason)
	}
	for _, tc := range []struct{ file, flag string }{
		{"wgmma.a07bf54df757efc6.json", "--pass-pipeline='builtin.module(convert-nvgpu-to-nvvm,convert-nvvm-to-llvm)'"},
		{"mma.4014d332301a8d99.json", "--convert-nvgpu-to-nvvm"},
		{"mma.5d5bf0f00bf23cb4.json", "--convert-nvgpu-to-nvvm"},
		// llvm-link refused MLIR's inline asm; the chain, which has no
		// llvm-link, shows it at llc, in the same words.
		{"mma.425addba8a740538.json", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := storetest.ReadCase(t, filepath.Join("testdata", "shortest", tc.file))
			pair := policy.Pair{A: oracles.SpecPTXISA, B: trunk.Name(), On: policy.OnVerdict}
			bd := plantedBundle(t, c, pair, storetest.Judge(t, []oracles.Oracle{spec.New(spec.PTXISA), trunk}, c), []oracles.Oracle{trunk})
			if rc, out := runScript(t, bd); rc != ExitReproduces {
				t.Fatalf("repro.sh exited %d:\n%s\n%s", rc, read(t, bd.Script), out)
			}
			if tc.flag == "" {
				return
			}
			want := "mlir-opt " + tc.flag + " case.mlir -o lowered.mlir"
			if len(bd.commands) != 1 || bd.commands[0] != want {
				t.Errorf("%s: commands %q, want the one %q", bd.Bucket.Title, bd.commands, want)
			}
			path, err := WriteIssue(ctx, bd)
			if err != nil {
				t.Fatal(err)
			}
			if issue := read(t, path); !strings.Contains(issue, "\n"+want+"\n```") || strings.Contains(issue, mlir.Pipeline) {
				t.Errorf("issue.md's command is not the one mlir-opt run %q:\n%s", want, issue)
			}
		})
	}
}
