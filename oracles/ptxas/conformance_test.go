package ptxas

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// TestConformance runs the batch engine's conformance suite on ptxas.
func TestConformance(t *testing.T) {
	var cases []domain.Case
	for _, name := range []string{"cpasync", "ldsm", "mma"} {
		for _, c := range seedCases(t, name) {
			if _, err := New(PTXAS124, tool.Tool{Version: "12.4.131"}).Prepare(c); err == nil {
				cases = append(cases, c)
			}
		}
	}
	batchtest.Run(t, batchtest.Subject{
		Cases: cases,
		Real: func(t *testing.T, n int) oracles.Oracle {
			o := realPTXAS(t)
			o.BatchSize = n
			return o
		},
		Fake: func(t *testing.T, path string) oracles.Oracle {
			o := New(PTXAS124, tool.Tool{Name: "ptxas", Path: path, Version: "12.4.131"})
			o.Timeout = time.Second
			return o
		},
	})
}
