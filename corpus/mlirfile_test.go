package corpus

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestVerifyBatchPlacesEveryChunk: mlir-opt-19 counts a later chunk's
// offsets from its "// -----" line; each diagnostic lands on its own
// chunk's line, where an expected-error line must go.
func TestVerifyBatchPlacesEveryChunk(t *testing.T) {
	opt, err := toolchaintest.Release(t, 19).Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skipf("mlir-opt-19 not found: %v", err)
	}
	bad := "module {\n  \"bad.op\"() : () -> ()\n}\n"
	diags, ok, err := verifyBatch(context.Background(), opt, []string{bad, "module {}\n", bad})
	if err != nil || !ok {
		t.Fatalf("verifyBatch: ok %t, %v", ok, err)
	}
	for _, i := range []int{0, 2} {
		if len(diags[i]) != 1 || diags[i][0].line != 2 || diags[i][0].kind != "error" {
			t.Errorf("chunk %d: %+v, want one error on line 2", i, diags[i])
		}
	}
	if len(diags[1]) != 0 {
		t.Errorf("chunk 1: %+v, want none", diags[1])
	}
}
