package repro

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
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

// TestReduceKeepsTheOps: a dropped-work reduction may not delete the op
// whose work was dropped (deleting it drops all of it); the target
// attribute is not an op.
func TestReduceKeepsTheOps(t *testing.T) {
	for line, want := range map[string]bool{
		"      %v4 = nvgpu.warpgroup.mma %v1, %v2, %v3 : ...":                                                                    true,
		"        nvvm.stmatrix %p, %r {layout = #nvvm.mma_layout<row>} : !llvm.ptr<3>, i32":                                      true,
		`  gpu.module @m [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {`:                                                 false,
		"      %v1 = builtin.unrealized_conversion_cast %da : i64 to !nvgpu.warpgroup.descriptor<tensor = memref<64x24xf16, 3>>": false,
	} {
		if got := mlirOp.MatchString(line); got != want {
			t.Errorf("%q: kept %t, want %t", line, got, want)
		}
	}
}
