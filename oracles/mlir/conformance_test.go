package mlir

import (
	"context"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// verifier returns the verifier-only oracle over the real mlir-opt-19, or
// skips the test.
func verifier(t *testing.T) *Oracle {
	t.Helper()
	opt, err := toolchaintest.Release(t, 19).Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skipf("mlir-opt-19 not found: %v", err)
	}
	return New(opt)
}

// TestConformance runs the batch engine's conformance suite on the
// verifier.
func TestConformance(t *testing.T) {
	batchtest.Run(t, batchtest.Subject{
		Cases: batchtest.Decided(t, verifier(t), randomCases(t, 60, false)),
		Real: func(t *testing.T, n int) oracles.Oracle {
			o := verifier(t)
			o.BatchSize = n
			return o
		},
		Fake: func(t *testing.T, path string) oracles.Oracle {
			o := New(tool.Tool{Name: "mlir-opt", Path: path, Version: "19.1.7"})
			o.Timeout = time.Second
			return o
		},
	})
}
