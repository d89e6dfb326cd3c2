package sass

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// realSASS is the oracle over the installed tools, or skips the test.
func realSASS(t testing.TB) *Oracle {
	t.Helper()
	o, st := Discover(context.Background())
	if o == nil {
		t.Skipf("the sass oracle's tools are not all here (%s); run %s", st.Reason, st.Install)
	}
	return o
}

func seedCases(t testing.TB, names ...string) []domain.Case {
	t.Helper()
	var cases []domain.Case
	for _, name := range names {
		d, ok := fuzz.Lookup(name)
		if !ok {
			t.Fatalf("no domain %q", name)
		}
		for _, v := range d.Seeds() {
			cases = append(cases, domain.NewCase(name, v))
		}
	}
	return cases
}

// TestSeeds: every seed of every domain ptx renders that ptxas assembles
// round-trips: both disassemblers print the same code and the SASS holds
// what the table requires. A seed that does not means the table or the
// normalization is wrong, not that a tool is.
func TestSeeds(t *testing.T) {
	o := realSASS(t)
	cases := seedCases(t, ptx.Domains()...)
	vs := batchtest.Judge(t, o, cases)
	kinds := map[oracles.Kind]int{}
	for i, v := range vs {
		kinds[v.Kind]++
		if v.Kind == oracles.Error || v.Kind == oracles.Timeout {
			t.Errorf("%s seed %v: %s %s %q", cases[i].Domain, cases[i].Value, v.Kind, v.Rule, v.Diagnostic)
		}
	}
	t.Logf("%d seeds: %v", len(cases), kinds)
	if kinds[oracles.Accept] == 0 {
		t.Fatal("no seed round-tripped")
	}
}
