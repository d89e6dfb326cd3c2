package tally

import (
	"encoding/json"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestStoredTallyFoldsMore: a tally read back from its JSON form (as the
// store keeps it, empty maps omitted) folds further cases, an unsupported
// verdict included, and counts like one never stored.
func TestStoredTallyFoldsMore(t *testing.T) {
	vs := func(id string, kind oracles.Kind) []oracles.Verdict {
		return []oracles.Verdict{
			{Oracle: oracles.SpecSeed, Case: id, Domain: "kindword", Kind: oracles.Accept, Rule: "seed.kindword"},
			{Oracle: "ptxas", Case: id, Domain: "kindword", Kind: kind, Diagnostic: "sm_100a is not supported"},
		}
	}
	var live, stored Tally
	live.Add(Case{ID: "a", Domain: "kindword"}, vs("a", oracles.Accept))
	data, err := json.Marshal(&live)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	for _, tl := range []*Tally{&live, &stored} {
		tl.Add(Case{ID: "b", Domain: "kindword"}, vs("b", oracles.Unsupported))
	}
	a, _ := json.Marshal(&live)
	b, _ := json.Marshal(&stored)
	if string(a) != string(b) || stored.Cases != 2 || stored.Verdicts != 4 {
		t.Fatalf("stored tally folds differently:\nlive   %s\nstored %s", a, b)
	}
}
