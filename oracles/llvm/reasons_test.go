package llvm

import (
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/spelltest"
)

// TestReasonsDeclared renders the generator's values of every domain llc
// judges and fails on a reason the renderers do not declare: render
// coverage counts reasons, so they form a closed set.
func TestReasonsDeclared(t *testing.T) {
	for _, d := range slices.Sorted(func(yield func(string) bool) {
		for name, r := range renderers {
			if r.render != nil && !yield(name) {
				return
			}
		}
	}) {
		tl := spelltest.CheckDeclared(t, reasons, spelltest.Generated(t, d), func(c domain.Case) error {
			return renderers[d].render(c.Value, newKernel("c1."))
		})
		if tl.Spelled == 0 {
			t.Errorf("llc spells none of %d %s cases: %v", tl.Cases, d, tl.Reasons)
		}
		t.Logf("%s: %d/%d spelled", d, tl.Spelled, tl.Cases)
	}
}
