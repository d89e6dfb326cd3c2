package coordinator

import (
	"context"
	"math/rand/v2"
	"slices"
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

// Generators a campaign can run (CampaignConfig.Generator).
const (
	GenNative     = "native"     // the native fuzz engine only (instrumented binary)
	GenRandom     = "random"     // random bytes only (the fuzz workers' fallback)
	GenStructured = "structured" // the coordinator's structured generator only
	GenAll        = "all"        // every generator the workers offer
	GenNone       = "none"       // none: judge the seed values and imports only
)

// Generators lists the accepted values of CampaignConfig.Generator.
var Generators = []string{GenNative, GenRandom, GenStructured, GenAll, GenNone}

// structuredOn reports whether the campaign runs the structured generator.
func structuredOn(cfg store.CampaignConfig) bool {
	return cfg.Generator == "" || cfg.Generator == GenAll || cfg.Generator == GenStructured
}

// fuzzOn reports whether the campaign schedules fuzz slices.
func fuzzOn(cfg store.CampaignConfig) bool {
	return cfg.Generator != GenStructured && cfg.Generator != GenNone
}

// generator is the structured generator's state: the field description of
// each domain and the campaign corpus it mutates, indexed by domain.
type generator struct {
	mu       sync.Mutex
	fields   map[string]*mutate.Fields
	corpus   map[string][]parent
	reach    map[string]*reach // domain -> what its corpus values reached
	counts   map[string]int    // feature -> cases that showed it
	counted  time.Time         // when counts were last read from the store
	rng      *rand.Rand
	disabled map[string]string // domain -> why it cannot be generated
	sweep    *sweep.Sweeper    // each domain's lattice sweep, beside mutation
}

// parent is one corpus value with what makes it worth mutating.
type parent struct {
	value        domain.Value
	features     []string
	disagreement bool
}

// newGenerator describes the campaign's domains; a domain that cannot be
// described is left to the other generators, with the reason logged once.
func newGenerator(domains []string, seed int64) *generator {
	g := &generator{fields: map[string]*mutate.Fields{}, corpus: map[string][]parent{}, reach: map[string]*reach{}, counts: map[string]int{},
		rng: rand.New(rand.NewPCG(uint64(seed), 2)), disabled: map[string]string{}, sweep: sweep.New()}
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

// add indexes corpus entries; entries that no longer decode are skipped.
func (g *generator) add(entries []store.CorpusEntry) {
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

// setCounts replaces the feature counts that rarity is judged by.
func (g *generator) setCounts(feats map[string]store.Feature, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.counts)
	for name, f := range feats {
		g.counts[name] = f.Cases
	}
	g.counted = now
}

// stale reports whether the feature counts are older than ten seconds:
// rarity shifts slowly, and reading every count per batch would cost more
// than it steers.
func (g *generator) stale(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return now.Sub(g.counted) > 10*time.Second
}

// batch makes n new values of one domain as case records: one in five from
// the seeds' description afresh, the rest mutated from a corpus parent.
func (g *generator) batch(dom, campaign string, n int, now time.Time) []store.CaseRecord {
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
func (g *generator) one(f *mutate.Fields, dom string) (domain.Value, []mutate.Op, error) {
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
func (g *generator) maybeStarved(dom string) []parent {
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
func (g *generator) pick(pool []parent) parent {
	best, bestW := pool[0], -1.0
	for range 4 {
		p := pool[g.rng.IntN(len(pool))]
		if w := g.worth(p); w > bestW {
			best, bestW = p, w
		}
	}
	return best
}

func (g *generator) worth(p parent) float64 {
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

// GenWeight is a domain's share of structured generation: 1 plus its new
// features and ten times its new buckets per thousand cases generated, so
// domains whose cases still show the judges something new get more.
func GenWeight(s store.DomainStats) float64 {
	cost := max(float64(s.Generated), 1000) / 1000
	return 1 + (float64(s.Features)+10*float64(s.NewBuckets))/cost
}

// generateLoop keeps each wanted oracle's queue topped up while the
// campaign generates: see generate.
func (c *Coordinator) generateLoop(ctx context.Context) error {
	if c.gen == nil {
		return nil
	}
	if err := c.loadCorpus(); err != nil {
		return err
	}
	for ctx.Err() == nil {
		if c.Campaign().State == store.StateRunning {
			made, err := c.generate(ctx)
			if err != nil && ctx.Err() == nil {
				c.log.Warn("generate", "err", err) // and wait: a store that fails fails the next batch too
			} else if made {
				continue // topped up one batch: look again at once
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// loadCorpus indexes the corpus a resumed campaign already has.
func (c *Coordinator) loadCorpus() error {
	camp := c.Campaign()
	entries, err := c.opts.Store.Corpus(camp.ID)
	if err != nil {
		return err
	}
	c.gen.add(entries)
	if err := c.gen.sweep.Load(c.opts.Store); err != nil {
		return err
	}
	return c.refreshCounts()
}

func (c *Coordinator) refreshCounts() error {
	feats, err := c.opts.Store.Features(c.Campaign().ID)
	if err != nil {
		return err
	}
	c.gen.setCounts(feats, time.Now())
	return nil
}

// generate adds one batch of generated cases for a domain that a hungry
// oracle judges, and reports whether it did.
func (c *Coordinator) generate(ctx context.Context) (bool, error) {
	camp := c.Campaign()
	dom := c.pickGenDomain(camp)
	if dom == "" {
		return false, nil
	}
	if c.gen.stale(time.Now()) {
		if err := c.refreshCounts(); err != nil {
			return false, err
		}
	}
	p := c.pacing(camp)
	now := time.Now().UTC()
	var recs []store.CaseRecord
	var next *store.Sweep
	if p.roomForEvery(dom) {
		recs, next = c.gen.sweep.Rows(dom, camp.ID, c.gen.sweep.Share(camp, dom, p.size), now)
	}
	recs = append(recs, c.gen.batch(dom, camp.ID, p.size-len(recs), now)...)
	if err := c.update(func(camp *store.Campaign) { camp.Domain(dom).Generated += len(recs) }); err != nil {
		return false, err
	}
	if err := c.addRecords(ctx, camp.ID, recs); err != nil {
		return true, err
	}
	if next == nil {
		return true, nil
	}
	c.gen.sweep.Advanced(next)
	return true, c.opts.Store.PutSweep(*next)
}

// pickGenDomain picks the domain to generate for: among those the most
// starved hungry oracle judges and whose oracles all have room, a domain
// never generated yet first, else by GenWeight. Empty: nothing to do.
// Sampled judges pace nothing: they get the cases they have room for. The
// most starved oracle is the one whose queue is the smallest share of its
// low mark.
func (c *Coordinator) pickGenDomain(camp store.Campaign) string {
	p := c.pacing(camp)
	hungry, least := "", 1.0
	byDomain := map[string][]string{}
	for _, d := range camp.Config.Domains {
		if c.gen.fields[d] == nil {
			continue
		}
		byDomain[d] = slices.DeleteFunc(c.oraclesFor(d), c.sampled)
		for _, o := range byDomain[d] {
			low, _ := p.marks(o)
			if share := float64(backlog(camp, o)) / float64(low); share < least {
				hungry, least = o, share
			}
		}
	}
	if hungry == "" {
		return ""
	}
	var eligible []string
	for _, d := range camp.Config.Domains {
		if orcs := byDomain[d]; slices.Contains(orcs, hungry) && !slices.ContainsFunc(orcs, p.full) {
			eligible = append(eligible, d)
		}
	}
	return c.drawDomain(camp, eligible)
}

// drawDomain draws from domains: one never generated first, then one
// whose lattice sweep is not done (a night judges every pair first), the
// least advanced most often, else by GenWeight.
func (c *Coordinator) drawDomain(camp store.Campaign, domains []string) string {
	weights := make([]float64, len(domains))
	for i, d := range domains {
		s := store.DomainStats{}
		if p := camp.Stats.Domains[d]; p != nil {
			s = *p
		}
		weights[i] = GenWeight(s)
		switch {
		case s.Generated == 0:
			weights[i] = 1e9 // every domain is generated for at once
		case c.gen.sweep.Sweeping(d):
			// The sweep with the fewest rows added first: a sweep's first
			// rows hold the most pairs, and drawn alike, an 8-minute
			// campaign on a loaded machine added most of two sweeps'
			// rows and none of five others'.
			weights[i] = 1e3 + 1e6*(1-c.gen.sweep.Progress(d))
		}
	}
	return c.draw(domains, weights)
}

// draw picks one of names with the given weights; empty for no names.
func (c *Coordinator) draw(names []string, weights []float64) string {
	if len(names) == 0 {
		return ""
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	c.mu.Lock()
	r := c.rng.Float64() * total
	c.mu.Unlock()
	for i, w := range weights {
		if r < w {
			return names[i]
		}
		r -= w
	}
	return names[len(names)-1]
}
