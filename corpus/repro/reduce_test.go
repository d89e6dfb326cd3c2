package repro

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/replay"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

func TestReduceLines(t *testing.T) {
	lines := strings.SplitAfter("a\nb\nBUG1\nc\nd\nBUG2\ne\nKEEP\nf\n", "\n")
	lines = lines[:len(lines)-1]
	runs := 0
	test := func(cand []string) bool {
		runs++
		text := strings.Join(cand, "")
		return strings.Contains(text, "BUG1") && strings.Contains(text, "BUG2")
	}
	keep := func(l string) bool { return strings.HasPrefix(l, "KEEP") }
	got := ReduceLines(lines, keep, test)
	if want := []string{"BUG1\n", "BUG2\n", "KEEP\n"}; !slices.Equal(got, want) {
		t.Errorf("ReduceLines = %q, want %q (%d runs)", got, want, runs)
	}
	if got := ReduceLines([]string{"x\n"}, keep, func([]string) bool { return true }); len(got) != 1 {
		t.Errorf("reduced to nothing: %q", got)
	}
}

// TestReduceKeepsTheBug reduces the tool input of two buckets of the
// judged store (ptxas's accept of an illegal selector, MLIR's verifier
// refusing a legal sparse mma) and checks that the result is smaller, still
// reproduces, and still holds the instruction of an accept bug.
func TestReduceKeepsTheBug(t *testing.T) {
	s, buckets, orcs := judgedStore(t)
	out := t.TempDir()
	done := 0
	for _, b := range buckets {
		isMLIR := oracles.Matches(oracles.MLIR, b.Signature.Tool) // whichever installation saw it first
		want := map[bool]string{true: "nvgpu.mma.sp.sync"}[isMLIR]
		if b.Signature.Tool == ptxas.PTXAS124.Name {
			want = "mma.sp.sync"
		}
		if want == "" || b.Signature.Domain != "mma" || (isMLIR && b.Signature.Stage != "verify") {
			continue
		}
		bd, err := Write(context.Background(), s, b.Key, out, orcs)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Reduce(context.Background(), bd)
		if err != nil {
			t.Fatalf("%s: %v", b.Key, err)
		}
		text, _ := os.ReadFile(r.File)
		t.Logf("%s: %d -> %d lines, %d runs:\n%s", b.Key, r.LinesBefore, r.LinesAfter, r.Runs, text)
		if r.BytesAfter >= r.BytesBefore {
			t.Errorf("%s: not reduced (%d -> %d bytes)", b.Key, r.BytesBefore, r.BytesAfter)
		}
		if b.Signature.Tool == ptxas.PTXAS124.Name && !strings.Contains(string(text), want) {
			t.Errorf("%s: the reduced PTX lost %s", b.Key, want)
		}
		if rc, out := runScript(t, bd); rc != ExitReproduces {
			t.Errorf("%s: repro.sh on the reduced input exited %d:\n%s", b.Key, rc, out)
		}
		done++
	}
	if done < 2 {
		t.Fatalf("reduced %d buckets; want the ptxas and the MLIR verify buckets of mma", done)
	}
}

// TestReduceKeepsTheInputValid reduces the input of a verifier crash of a
// 60 s campaign (a3a4c6957b3385f9: mlir-opt 22 and later crash verifying
// a TMA load of a rank-0 tensor map) on the newest installation here and
// checks the maintainer's few lines: a kernel whose descriptor and buffer
// are its arguments and the load, still crashing the tool, and valid
// apart from the op under test (MLIR 19, which does not crash there,
// verifies it cleanly). Line deletion alone left 23 lines with no
// gpu.return, which MLIR 19 refuses ("block with no terminator").
func TestReduceKeepsTheInputValid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mlir-opt some forty times")
	}
	ctx := context.Background()
	var newest *mlir.Oracle
	for _, major := range []int{22, 23} {
		if in, err := toolchain.Release(ctx, major); err == nil {
			if o, _ := mlir.Discover(ctx, in); o != nil {
				newest = o
			}
		}
	}
	if newest == nil {
		t.Skip("neither MLIR 22 nor 23 installed (make oracles)")
	}
	c := storetest.ReadCase(t, filepath.Join("testdata", "reduce", "tmadesc.a3a4c6957b3385f9.json"))
	pair := policy.Pair{A: oracles.SpecPTXISA, B: newest.Name(), On: policy.OnVerdict}
	bd := plantedBundle(t, c, pair, storetest.Judge(t, []oracles.Oracle{spec.New(spec.PTXISA), newest}, c), []oracles.Oracle{newest})
	if bd.Bucket.Signature.Kind != oracles.Error {
		t.Fatalf("planted %+v; want the verifier crash", bd.Bucket.Signature)
	}
	r, err := Reduce(ctx, bd)
	if err != nil {
		t.Fatal(err)
	}
	text := read(t, r.File)
	t.Logf("%d -> %d lines, %d runs, checked: %s:\n%s", r.LinesBefore, r.LinesAfter, r.Runs, r.Checked, text)
	if r.LinesAfter > 8 || !strings.Contains(text, "gpu.return") || strings.Contains(text, "func.func @host") {
		t.Errorf("reduced to %d lines; want at most 8, the kernel with its terminator and no host function", r.LinesAfter)
	}
	if !strings.Contains(r.Checked, "without nvgpu.tma.async.load") {
		t.Errorf("checked %q; want the verifier without the op under test", r.Checked)
	}
	if rc, out := runScript(t, bd); rc != ExitReproduces {
		t.Errorf("repro.sh on the reduced input exited %d:\n%s", rc, out)
	}
	if in, err := toolchain.Release(ctx, 19); err == nil {
		if opt, err := in.Locate(ctx, "mlir-opt"); err == nil {
			lines := strings.SplitAfter(text, "\n")
			if !replay.RunsClean(ctx, opt.Path, MLIRFile, lines) {
				t.Errorf("mlir-opt 19 does not verify the reduced input:\n%s", text)
			}
		}
	}
}
