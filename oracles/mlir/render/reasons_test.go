package render

import (
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/spelltest"
)

// TestReasonsDeclared renders the generator's values of every domain with
// every release's spelling (the nvvm entry point's too) and fails on a reason the renderers do not
// declare: render coverage counts reasons, so they form a closed set.
func TestReasonsDeclared(t *testing.T) {
	all := slices.Clone(spellings)
	for _, sp := range spellings {
		if sp.since >= NVVMSince {
			all = append(all, NVVM(sp.since))
		}
	}
	for _, sp := range all {
		for _, d := range sp.Domains() {
			cases := spelltest.Generated(t, d)
			tl := spelltest.CheckDeclared(t, Reasons, cases, func(c domain.Case) error {
				_, _, err := sp.Render(c)
				return err
			})
			if tl.Spelled == 0 && !testing.Short() { // a few hundred matdesc cases may all miss MLIR 19's one target
				t.Errorf("MLIR %d spells none of %d %s cases: %v", sp.since, tl.Cases, d, tl.Reasons)
			}
			t.Logf("MLIR %d %s: %d/%d spelled", sp.since, d, tl.Spelled, tl.Cases)
		}
	}
}
