package structured

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
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
	g := New([]string{kindword.Name}, 1)
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
	g.Add(entries)
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

// TestBelowFirstPTXParentsDrawnLess: of two parents alike but for the
// target, the one whose PTX ISA version is below its architecture's first
// wins the rarity tournament far less often.
func TestBelowFirstPTXParentsDrawnLess(t *testing.T) {
	g := New([]string{kindword.Name}, 1)
	ok := kindword.Domain.Seeds()[0]
	low, err := kindword.Domain.Decode(ok.Encode())
	if err != nil {
		t.Fatal(err)
	}
	kw := low.(kindword.Value)
	kw.Tgt.PTX = target.MinPTX(kw.Tgt.Arch) - 1
	if !belowFirstPTX(kw) || belowFirstPTX(ok) {
		t.Fatalf("belowFirstPTX: %v on %v, %v on %v", belowFirstPTX(kw), kw.Tgt, belowFirstPTX(ok), ok.Target())
	}
	feats := []string{"spec/ptxisa|accept|ptxisa.kindword"}
	pool := []parent{{value: ok, features: feats}, {value: kw, features: feats}}
	drawn := 0
	const n = 2000
	for range n {
		if belowFirstPTX(g.pick(pool).value) {
			drawn++
		}
	}
	// Unpenalized, the two win alike (half the draws); penalized by 8,
	// the low one wins only when all four draws are it: 1/16.
	if drawn > n/10 {
		t.Errorf("below-first parent drawn %d of %d times, want at most %d", drawn, n, n/10)
	}
}

// TestFewCasesBelowFirstPTX: grown from its seeds the way a campaign grows
// it (one value in ten joining the corpus with a feature of its own), the
// generator spends few cases on a PTX ISA version below the target's
// first, which only spec/ptxisa and ptxas can judge. Before the Target
// mutation drew any pair one time in eight and such parents were
// penalized, the same run gave 19-26%. It is skipped under -short, which
// make test's race run takes: one goroutine draws 12,000 cases (1 s, and
// half a minute under race), and the generator runs under race in every
// campaign test.
func TestFewCasesBelowFirstPTX(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 12,000 cases in one goroutine; the race run's campaign tests run the generator")
	}
	for _, d := range []string{mma.Name, ldsm.Name, cpasync.Name, tmadesc.Name} {
		g := New([]string{d}, 11)
		f := g.fields[d]
		var entries []store.CorpusEntry
		for i, s := range f.Domain().Seeds() {
			entries = append(entries, store.CorpusEntry{Domain: d, Data: s.Encode(), Features: []string{fmt.Sprint("seed", i)}})
		}
		g.Add(entries)
		below, n := 0, 0
		for i := range 3000 {
			v, _, err := g.one(f, d)
			if err != nil {
				continue
			}
			n++
			if belowFirstPTX(v) {
				below++
			}
			if g.rng.IntN(10) == 0 {
				g.Add([]store.CorpusEntry{{Domain: d, Data: v.Encode(), Features: []string{fmt.Sprint("case", i)}}})
			}
		}
		if share := float64(below) / float64(n); n < 2500 || share > 0.12 {
			t.Errorf("%s: %d of %d cases below their target's first PTX ISA (%.0f%%), want at most 12%%", d, below, n, 100*share)
		}
	}
}
