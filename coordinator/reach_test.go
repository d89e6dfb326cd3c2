package coordinator

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
)

// TestStarvedOracleGetsParents: the tools that judged the fewest of a
// domain's corpus values are drawn the most often as the starved one, spec
// rule sets and verdict vectors do not count, and one case in reachShare
// is mutated from a value the drawn one judged.
func TestStarvedOracleGetsParents(t *testing.T) {
	unspelled := "mlir@trunk|unsupported|unspelled.tool:ws=not-dense-b-collector|nvvm.tcgen05.mma.ws has only a dense kind"
	feats := map[string][]string{
		"both":   {"spec/ptxisa|accept|ptxisa.kindword", "llc@trunk|accept|llc.accepted", "mlir@trunk|reject|verify|x", "vector|llc@trunk:accept"},
		"llc-1":  {"spec/ptxisa|reject|ptxisa.kindword.k", "llc@trunk|accept|llc.accepted", unspelled},
		"llc-2":  {"llc@trunk|reject|llc.verifier|y", unspelled},
		"llc-3":  {"llc@trunk|accept|llc.accepted", unspelled},
		"nobody": {"spec/ptxisa|accept|ptxisa.kindword", "ptxas|unsupported|unspelled.tool:target=unknown-to-ptxas|z"},
	}
	g := newGenerator([]string{kindword.Name}, 1)
	seeds := kindword.Domain.Seeds()
	var entries []store.CorpusEntry
	for i, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range feats {
			if !yield(k) {
				return
			}
		}
	}) {
		entries = append(entries, store.CorpusEntry{Domain: kindword.Name, Data: seeds[i].Encode(), Features: feats[name]})
	}
	g.add(entries)
	r := g.reach[kindword.Name]
	if len(r.pools["llc@trunk"]) != 4 || len(r.pools["mlir@trunk"]) != 1 || r.unspelled["mlir@trunk"] != 3 || r.unspelled["ptxas"] != 1 {
		t.Fatalf("reach judged %v unspelled %v", r.pools, r.unspelled)
	}
	if _, ok := r.pools["spec/ptxisa"]; ok {
		t.Errorf("spec/ptxisa counted as a tool: %v", r.pools)
	}
	// mlir@trunk judged one value, llc@trunk four: drawn 4:1; ptxas judged
	// none and has no parent to steer from.
	rnd := rand.New(rand.NewPCG(27, 2))
	drawn := map[string]int{}
	for range 5000 {
		drawn[r.starved(rnd)]++
	}
	if len(drawn) != 2 || drawn["mlir@trunk"] < 3700 || drawn["mlir@trunk"] > 4300 {
		t.Errorf("starved draws %v, want mlir@trunk four times as often as llc@trunk, never ptxas", drawn)
	}
	if ps := r.pools["mlir@trunk"]; len(ps) != 1 || !slices.Equal(ps[0].features, feats["both"]) {
		t.Errorf("mlir@trunk's pool %v, want the one value it judged", ps)
	}
	// Its features are common, so the rarity tournament alone would
	// almost never draw it (all four draws would have to be it); steered,
	// mutations start from it about one time in reachShare times 4/5.
	for _, f := range feats["both"] {
		g.counts[f] = 1000
	}
	g.rng = rand.New(rand.NewPCG(27, 1))
	from := 0
	const n = 3000
	for range n {
		p := g.pick(g.maybeStarved(kindword.Name))
		if slices.Equal(p.features, feats["both"]) {
			from++
		}
	}
	if want := n / reachShare * 4 / 5 * 9 / 10; from < want {
		t.Errorf("%d of %d parents judged by the starved oracle, want at least %d", from, n, want)
	}
}
