// Package structured is the coordinator's structured generator: it
// mutates the campaign corpus of each domain by the domain's field
// description, favouring rare features, disagreements and the values a
// starved tool can spell, beside each domain's lattice sweep.
package structured

import (
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/sweep"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mutate"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Generator is the structured generator's state: the field description of
// each domain and the campaign corpus it mutates, indexed by domain.
type Generator struct {
	mu       sync.Mutex
	fields   map[string]*mutate.Fields
	corpus   map[string][]parent
	reach    map[string]*reach // domain -> what its corpus values reached
	counts   map[string]int    // feature -> cases that showed it
	counted  time.Time         // when counts were last read from the store
	rng      *rand.Rand
	disabled map[string]string // domain -> why it cannot be generated
	// Sweep is each domain's lattice sweep, which runs beside mutation.
	Sweep *sweep.Sweeper
}

// parent is one corpus value with what makes it worth mutating.
type parent struct {
	value        domain.Value
	features     []string
	disagreement bool
}

// New describes the campaign's domains; a domain that cannot be
// described is left to the other generators, with the reason logged once.
func New(domains []string, seed int64) *Generator {
	g := &Generator{fields: map[string]*mutate.Fields{}, corpus: map[string][]parent{}, reach: map[string]*reach{}, counts: map[string]int{},
		rng: rand.New(rand.NewPCG(uint64(seed), 2)), disabled: map[string]string{}, Sweep: sweep.New()}
	for _, name := range domains {
		d, ok := fuzz.Lookup(name)
		if !ok {
			g.disabled[name] = "unknown domain"
			continue
		}
		f, err := mutate.Describe(d)
		if err != nil {
			g.disabled[name] = err.Error()
			continue
		}
		g.fields[name] = f
	}
	return g
}

// Add indexes corpus entries; entries that no longer decode are skipped.
func (g *Generator) Add(entries []store.CorpusEntry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range entries {
		f := g.fields[e.Domain]
		if f == nil {
			continue
		}
		v, err := f.Domain().Decode(e.Data)
		if err != nil {
			continue
		}
		p := parent{value: v, features: e.Features, disagreement: e.Disagreement}
		g.corpus[e.Domain] = append(g.corpus[e.Domain], p)
		if g.reach[e.Domain] == nil {
			g.reach[e.Domain] = newReach()
		}
		g.reach[e.Domain].add(p)
	}
}

// SetCounts replaces the feature counts that rarity is judged by.
func (g *Generator) SetCounts(feats map[string]store.Feature, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.counts)
	for name, f := range feats {
		g.counts[name] = f.Cases
	}
	g.counted = now
}

// Stale reports whether the feature counts are older than ten seconds:
// rarity shifts slowly, and reading every count per batch would cost more
// than it steers.
func (g *Generator) Stale(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return now.Sub(g.counted) > 10*time.Second
}

// Batch makes n new values of one domain as case records: one in five from
// the seeds' description afresh, the rest mutated from a corpus parent.
func (g *Generator) Batch(dom, campaign string, n int, now time.Time) []store.CaseRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	f := g.fields[dom]
	if f == nil {
		return nil
	}
	recs := make([]store.CaseRecord, 0, n)
	for range n {
		v, ops, err := g.one(f, dom)
		if err != nil {
			continue
		}
		canon := v.Encode()
		recs = append(recs, store.CaseRecord{ID: domain.ID(dom, canon), Domain: dom, Data: canon,
			Campaign: campaign, Source: "gen:" + joinOps(ops), Seen: now})
	}
	return recs
}

// one makes one value: mutated from a parent, or generated afresh when the
// domain has no corpus yet (and one time in five, so the seeds' own
// neighbourhoods keep being explored). One time in reachShare the parent
// is one a starved oracle of the domain judged (starvedPool), so its
// mutations stay where that tool has a spelling.
func (g *Generator) one(f *mutate.Fields, dom string) (domain.Value, []mutate.Op, error) {
	pool := g.corpus[dom]
	if len(pool) == 0 || g.rng.IntN(5) == 0 {
		return f.Generate(g.rng)
	}
	p := g.pick(g.maybeStarved(dom))
	donors := f.Domain().Seeds()
	for range 2 {
		donors = append(donors, pool[g.rng.IntN(len(pool))].value)
	}
	return f.Mutate(p.value, donors, g.rng)
}

// maybeStarved is the pool a parent is drawn from: one time in reachShare
// the corpus values a starved oracle of the domain judged (reach.starved),
// else the domain's whole corpus.
func (g *Generator) maybeStarved(dom string) []parent {
	r := g.reach[dom]
	if r == nil || g.rng.IntN(reachShare) != 0 {
		return g.corpus[dom]
	}
	if o := r.starved(g.rng); o != "" {
		return r.pools[o]
	}
	return g.corpus[dom]
}

// pick draws a parent by a tournament of four: the one whose features are
// rarest wins, and a case in a disagreement counts four times, so mutation
// favours rare behaviour and the neighbourhood of findings.
func (g *Generator) pick(pool []parent) parent {
	best, bestW := pool[0], -1.0
	for range 4 {
		p := pool[g.rng.IntN(len(pool))]
		if w := g.worth(p); w > bestW {
			best, bestW = p, w
		}
	}
	return best
}

func (g *Generator) worth(p parent) float64 {
	w := 0.01
	for _, f := range p.features {
		w += 1 / float64(max(g.counts[f], 1))
	}
	if p.disagreement {
		w *= 4
	}
	if belowFirstPTX(p.value) {
		w /= belowFirstPenalty
	}
	return w
}

// belowFirstPenalty divides the worth of a parent whose PTX ISA version is
// below its architecture's first. Only spec/ptxisa and ptxas judge such a
// case (every LLVM release refuses or rewrites the target), one rule
// decides it, and most of its children keep the target: with the Target
// mutation's share of such pairs, they took a fifth to a quarter of every
// domain's cases in an 8-minute campaign (the render coverage's
// "ptx=below-arch-first"); TestFewCasesBelowFirstPTX keeps them under 12%.
// The Target mutation still makes them, so the rule keeps its cases.
const belowFirstPenalty = 8

// belowFirstPTX reports whether a value names a PTX ISA version below its
// architecture's first.
func belowFirstPTX(v domain.Value) bool {
	t := v.Target()
	return t.PTX < target.MinPTX(t.Arch)
}

func joinOps(ops []mutate.Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, "+")
}

// Weight is a domain's share of structured generation: 1 plus its new
// features and ten times its new buckets per thousand cases generated, so
// domains whose cases still show the judges something new get more.
func Weight(s store.DomainStats) float64 {
	cost := max(float64(s.Generated), 1000) / 1000
	return 1 + (float64(s.Features)+10*float64(s.NewBuckets))/cost
}

// Describes reports whether the generator can make values of the domain.
func (g *Generator) Describes(dom string) bool { return g.fields[dom] != nil }

// Disabled are the domains the generator cannot make values of, each with
// the reason.
func (g *Generator) Disabled() map[string]string { return g.disabled }
