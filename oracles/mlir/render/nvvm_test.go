package render

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestNVVMStmatrixCosize: nvvm.stmatrix has no spelling for seed 001's
// cosize apart from the register count, as nvgpu's ops have none; the
// nvvm entry point spelled the store without it, and its accept of the
// instruction alone made a too-permissive bucket (2323e4d2af3bed4d).
func TestNVVMStmatrixCosize(t *testing.T) {
	v := ldsm.Value{Op: ldsm.Store, Mode: ldsm.ModeOf(ldsm.M8N8, false), Shape: ldsm.M8N8, NumMatrices: 1, Size: ldsm.B16,
		ResultRank: 1, ResultDim0: 2, Src: ldsm.Register, Dst: ldsm.Shared, Align: 16, RegisterCount: 1, Cosize: 17,
		Tgt: target.MustParse("sm_90", "")}
	_, err := nvvmLdsmRenderer(v)
	ns, ok := oracles.AsNoSpelling(err)
	if !ok || ns.Field != "register_count" || ns.Class != "not-cosize" {
		t.Fatalf("nvvm stmatrix with cosize 17: %v, want unspelled register_count=not-cosize", err)
	}
	v.Cosize = 1
	if _, err := nvvmLdsmRenderer(v); err != nil {
		t.Errorf("nvvm stmatrix with cosize 1: %v", err)
	}
}
