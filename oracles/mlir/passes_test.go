package mlir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// passJudge returns the MLIR 19 pass judge, or skips naming what is missing.
func passJudge(t *testing.T) *Passes {
	t.Helper()
	p, st := DiscoverPasses(context.Background(), toolchaintest.Release(t, 19))
	if p == nil || p.o.Lower == nil || p.o.Lower.Ptxas.Path == "" {
		t.Skipf("mlir-opt-19 with its lowering and ptxas not found: %s (%s)", st.Reason, st.Install)
	}
	if len(p.before) != len(passesBefore) || len(p.after) != len(passesAfter) {
		t.Fatalf("mlir-opt-19 --help lists passes %v then %v, want %v then %v", p.before, p.after, passesBefore, passesAfter)
	}
	return p
}

// TestPassJudgeKnownAnswers: every pass runs on a seed ldmatrix (answers
// from mlir-opt-19 19.1.7), and a case the verifier refuses is the mlir
// oracle's verdict, not this judge's. So is an mma.sp with a bf16 D: MLIR
// lowers it to inline asm whose constraints do not match its result, which
// llvm-link refuses in the mlir oracle's chain, and on which
// gpu-module-to-binary segfaults (in SelectionDAGBuilder::visitInlineAsm):
// one root cause, reported once, so the passes after the lowering do not
// run on it and the judge says nothing of the case.
func TestPassJudgeKnownAnswers(t *testing.T) {
	p := passJudge(t)
	cases := []domain.Case{
		caseFrom(t, ldsm.Name, nil),
		caseFrom(t, ldsm.Name, m{"src_space": "global"}),
		caseFrom(t, ldsm.Name, m{"target": "sm_100a", "ptx": "8.6"}),
		caseFrom(t, mma.Name, m{"sparsity": "sp", "shape": []int{16, 8, 16}, "a_type": "f16", "b_type": "f16", "c_type": "f32", "d_type": "bf16", "ptx": "7.1"}),
	}
	vs, err := p.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind oracles.Kind
		diag string
	}{
		{oracles.Accept, ""},
		{oracles.Unsupported, "MLIR's verifier does not pass the case (reject verify"},
		{oracles.Unsupported, "LLVM 19 knows NVPTX targets up to sm_90a, not sm_100a"},
		{oracles.Unsupported, "the mlir oracle's lowering chain does not pass the case (error link/refused"},
	}
	mv, err := p.o.Judge(context.Background(), cases[3:])
	if err != nil {
		t.Fatal(err)
	}
	if mv[0].Kind != oracles.Error || mv[0].Rule != "link/refused" {
		t.Fatalf("the mlir oracle on the mma.sp case: got %s %s, want error at link/refused", mv[0].Kind, mv[0].Rule)
	}
	for i, w := range want {
		v := vs[i]
		if v.Oracle != p.Name() || v.Kind != w.kind || !strings.Contains(v.Diagnostic, w.diag) {
			t.Errorf("case %d: got %s %s %s %q, want %s containing %q", i, v.Oracle, v.Kind, v.Rule, v.Diagnostic, w.kind, w.diag)
		}
	}
}

// TestPassJudgeFailures puts a mlir-opt in front that fails in one pass
// only: a crash in cse, IR the verifier rejects after canonicalize, an
// error at exit status 0 in gpu-to-llvm. Each fails the run of its group
// of passes too, so the case is looked at pass by pass; the verdict names
// the first pass that failed and how.
func TestPassJudgeFailures(t *testing.T) {
	real := passJudge(t)
	tests := []struct {
		name string
		// script is sh case arms, matched against the arguments.
		script     string
		kind       oracles.Kind
		rule, diag string
	}{
		{"crash", `*'cse)'*) echo "Stack dump:" >&2; kill -SEGV $$;;`,
			oracles.Error, "pass:cse", "crashed"},
		{"invalid IR", `*'builtin.module(canonicalize)'*) 'REAL' "$@" | sed 's/gpu.return/gpu.return %bad/'; exit 0;;
			*'canonicalize,cse)'*) echo "$LAST:1:1: error: 'gpu.return' op made up" >&2; exit 1;;`,
			oracles.Error, "pass:canonicalize/invalid-ir", "left IR the verifier rejects"},
		{"exit 0", `*'gpu-to-llvm'*) echo "$LAST:1:1: error: made up" >&2; 'REAL' "$@"; exit 0;;`,
			oracles.Error, "pass:gpu-to-llvm/exit-0", "made up"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := "#!/bin/sh\nfor LAST in \"$@\"; do :; done\ncase \"$*\" in " +
				strings.ReplaceAll(tc.script, "REAL", real.o.Opt.Path) + "\nesac\nexec '" + real.o.Opt.Path + "' \"$@\"\n"
			path := filepath.Join(t.TempDir(), "mlir-opt-fake")
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			opt := real.o.Opt
			opt.Path = path
			o := New(opt)
			o.Lower = real.o.Lower
			p := &Passes{o: o, name: PassesName, before: real.before, after: real.after}
			vs, err := p.Judge(context.Background(), []domain.Case{caseFrom(t, ldsm.Name, nil)})
			if err != nil {
				t.Fatal(err)
			}
			if v := vs[0]; v.Kind != tc.kind || v.Rule != tc.rule || !strings.Contains(v.Diagnostic, tc.diag) {
				t.Errorf("got %s %s %q, want %s %s containing %q", v.Kind, v.Rule, v.Diagnostic, tc.kind, tc.rule, tc.diag)
			}
		})
	}
}
