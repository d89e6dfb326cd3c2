package mlir

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/spelltest"
)

// TestReasonsDeclared renders the generator's values of every domain with
// every release's spelling and fails on a reason the renderers do not
// declare: render coverage counts reasons, so they form a closed set.
func TestReasonsDeclared(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, sp := range spellings {
		for _, d := range domainsWith(sp.renderers) {
			cases := spelltest.Generated(t, d, n)
			tl := spelltest.CheckDeclared(t, reasons, cases, func(c domain.Case) error {
				_, _, err := renderWith(sp.renderers, sp.targets, c)
				return err
			})
			if tl.Spelled == 0 {
				t.Errorf("MLIR %d spells none of %d %s cases: %v", sp.since, tl.Cases, d, tl.Reasons)
			}
			t.Logf("MLIR %d %s: %d/%d spelled", sp.since, d, tl.Spelled, tl.Cases)
		}
	}
}
