package registry

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestEveryToolFamilyReproduces: every oracle of the catalog that runs a
// tool says how a bundle replays it, so corpus/repro needs no case of its
// own for it; only the seed algorithms under test (judged in process)
// have none.
func TestEveryToolFamilyReproduces(t *testing.T) {
	for _, in := range oracles.Catalog() {
		name := in.Name
		if in.Installed {
			name = oracles.Installed(in.Name, "19")
		}
		_, ok := Reproducer(name)
		if want := in.Family != "algo"; ok != want {
			t.Errorf("%s (family %s): reproducer %v, want %v", name, in.Family, ok, want)
		}
	}
	if _, ok := Reproducer("exec:mine"); !ok {
		t.Error("exec:mine has no reproducer")
	}
}

// TestReproductionsWriteTheirInput: a reproduction that names its input
// file writes it, and a step reads it.
func TestReproductionsWriteTheirInput(t *testing.T) {
	d, _ := fuzz.Lookup("mma")
	c := domain.NewCase(d.Name, d.Seeds()[1])
	for _, name := range []string{oracles.PTXAS, oracles.SASS, oracles.CUDAJIT, oracles.GPU} {
		r, _ := Reproducer(name)
		rep := r.Reproduce(context.Background(), oracles.ReproRequest{Name: name, Case: c})
		if rep.Input != oracles.PTXFile || len(rep.Files) != 1 || rep.Files[0].Name != rep.Input {
			t.Errorf("%s: input %q, files %v", name, rep.Input, rep.Files)
		}
		for _, st := range rep.Steps[:min(1, len(rep.Steps))] {
			if st.Input != rep.Input {
				t.Errorf("%s: first step reads %q, not %q", name, st.Input, rep.Input)
			}
		}
	}
}
