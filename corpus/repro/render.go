package repro

import (
	"context"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
)

// render asks the named oracle's family how to replay it on c, writes the
// input files it renders and returns its replay; an oracle with no
// reproducer runs in process, and legalfuzz check replays it.
func render(ctx context.Context, w *writer, c domain.Case, name string, shared, observed bool, orcs []oracles.Oracle) oracles.Reproduction {
	r, ok := registry.Reproducer(name)
	if !ok {
		return oracles.Reproduction{Commands: []string{"# " + name + " runs in process (no external input); legalfuzz check above replays it"}}
	}
	rep := r.Reproduce(ctx, oracles.ReproRequest{Name: name, Case: c, Shared: shared, Observed: observed, Oracles: orcs})
	for _, f := range rep.Files {
		w.file(f.Name, f.Text)
	}
	return rep
}

// shared reports whether the pair's two oracles render the same input
// file (two oracles of one family, or MLIR's two entry points): each then
// renders its input under a name of its own.
func shared(names []string) bool {
	if len(names) < 2 {
		return false
	}
	a := filingOf(names[0]).Input
	return a != "" && a == filingOf(names[1]).Input
}

// filingOf is the family's facts for the issue about the named oracle; zero
// (legalfuzz's own) for an oracle with no reproducer.
func filingOf(name string) oracles.Filing {
	if r, ok := registry.Reproducer(name); ok {
		return r.Filing()
	}
	return oracles.Filing{}
}
