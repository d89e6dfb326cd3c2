package cuda

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spelltest"
)

// TestReasonsDeclared plans the generator's cases of every domain the gpu
// oracle checks, on an H100 as Open describes one, and fails on a reason
// for not running one that Reasons does not declare: render coverage
// counts reasons, so they form a closed set. Some cases of each domain
// must run, or the check would pass by refusing everything.
func TestReasonsDeclared(t *testing.T) {
	o := NewGPUOracle(fakeDevice(), &fakeLDSM{})
	for _, d := range []string{ldsm.Name, tmadesc.Name, matdesc.Name} {
		tl := spelltest.CheckDeclared(t, Reasons, spelltest.Generated(t, d), func(c domain.Case) error {
			_, err := o.checkFor(d).plan(o, c)
			return err
		})
		if tl.Spelled == 0 {
			t.Errorf("the gpu oracle runs none of %d %s cases: %v", tl.Cases, d, tl.Reasons)
		}
		t.Logf("%s: %d/%d run", d, tl.Spelled, tl.Cases)
	}
}

// TestUnsupportedNamesItsReason: the verdict on a case the oracle does not
// run carries its reason's Rule, which the report counts.
func TestUnsupportedNamesItsReason(t *testing.T) {
	o := NewGPUOracle(fakeDevice(), &fakeLDSM{})
	v := ldsmValue(ldsm.Load, 3, false, 16)
	vs, err := o.Judge(t.Context(), []domain.Case{domain.NewCase(ldsm.Name, v)})
	if err != nil {
		t.Fatal(err)
	}
	want := oracles.Reason{Field: "num_matrices", Class: "no-form", Gap: oracles.ToolLacks}
	if r, ok := oracles.ParseReason(vs[0].Rule); vs[0].Kind != oracles.Unsupported || !ok || r != want ||
		vs[0].Diagnostic != "no .x3 form to run" {
		t.Errorf("verdict %+v, want unsupported for %v", vs[0], want)
	}
}
