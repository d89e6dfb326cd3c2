package llvm

import (
	"context"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// fakeHelp answers --version as llc 22 and -mcpu=help with every sm_
// processor and PTX version, so that a fake llc judges every target.
const fakeHelp = `case "$*" in
*--version*) echo 'LLVM version 22.1.8'; exit 0;;
*mcpu=help*) for a in 80 86 87 89 90 90a 100 100a 101 101a 120 120a; do echo "  sm_$a - Select the sm_$a processor."; done
  for p in 60 61 62 63 64 65 70 71 72 73 74 75 76 77 78 80 81 82 83 84 85 86 87 88 90; do echo "  ptx$p - Use PTX version $p."; done
  exit 0;;
esac`

// TestConformance runs the batch engine's conformance suite on llc 22.
func TestConformance(t *testing.T) {
	batchtest.Run(t, batchtest.Subject{
		Cases: batchtest.Decided(t, shared(t, 22), randomCases(t, 60)),
		Real: func(t *testing.T, n int) oracles.Oracle {
			o := discover(t, 22)
			o.BatchSize = n
			return o
		},
		Fake: func(t *testing.T, path string) oracles.Oracle {
			o, err := New(context.Background(), Variant{Name: "llc@22", Major: 22}, tool.Tool{Name: "llc", Path: path, Version: "22.1.8"})
			if err != nil {
				t.Fatal(err)
			}
			o.Timeout = time.Second
			return o
		},
		Prelude: fakeHelp,
	})
}
