package amdgpu

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// TestConformance runs the batch engine's conformance suite on llvm-mc.
func TestConformance(t *testing.T) {
	d, ok := fuzz.Lookup(waitcnt.Name)
	if !ok {
		t.Fatal("no waitcnt domain")
	}
	var all []domain.Case
	for _, v := range d.Seeds() {
		all = append(all, domain.NewCase(waitcnt.Name, v))
	}
	batchtest.Run(t, batchtest.Subject{
		Cases: batchtest.Decided(t, discover(t), all),
		Real: func(t *testing.T, n int) oracles.Oracle {
			o := discover(t)
			o.BatchSize = n
			return o
		},
		Fake: func(t *testing.T, path string) oracles.Oracle {
			o := New(tool.Tool{Name: Name, Path: path, Version: "19.1.7"})
			o.Timeout = time.Second
			return o
		},
	})
}
