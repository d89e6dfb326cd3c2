package coordinator

import (
	"context"
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/structured"
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
	c.gen.Add(entries)
	if err := c.gen.Sweep.Load(c.opts.Store); err != nil {
		return err
	}
	return c.refreshCounts()
}

func (c *Coordinator) refreshCounts() error {
	feats, err := c.opts.Store.Features(c.Campaign().ID)
	if err != nil {
		return err
	}
	c.gen.SetCounts(feats, time.Now())
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
	if c.gen.Stale(time.Now()) {
		if err := c.refreshCounts(); err != nil {
			return false, err
		}
	}
	p := c.pacing(camp)
	now := time.Now().UTC()
	var recs []store.CaseRecord
	var next *store.Sweep
	if p.roomForEvery(dom) {
		recs, next = c.gen.Sweep.Rows(dom, camp.ID, c.gen.Sweep.Share(camp, dom, p.size), now)
	}
	recs = append(recs, c.gen.Batch(dom, camp.ID, p.size-len(recs), now)...)
	if err := c.update(func(camp *store.Campaign) { camp.Domain(dom).Generated += len(recs) }); err != nil {
		return false, err
	}
	if err := c.addRecords(ctx, camp.ID, recs); err != nil {
		return true, err
	}
	if next == nil {
		return true, nil
	}
	c.gen.Sweep.Advanced(next)
	return true, c.opts.Store.PutSweep(*next)
}

// pickGenDomain picks the domain to generate for: among those the most
// starved hungry oracle judges and whose oracles all have room, a domain
// never generated yet first, else by structured.Weight. Empty: nothing to do.
// Sampled judges pace nothing: they get the cases they have room for. The
// most starved oracle is the one whose queue is the smallest share of its
// low mark.
func (c *Coordinator) pickGenDomain(camp store.Campaign) string {
	p := c.pacing(camp)
	hungry, least := "", 1.0
	byDomain := map[string][]string{}
	for _, d := range camp.Config.Domains {
		if !c.gen.Describes(d) {
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
// least advanced most often, else by structured.Weight.
func (c *Coordinator) drawDomain(camp store.Campaign, domains []string) string {
	weights := make([]float64, len(domains))
	for i, d := range domains {
		s := store.DomainStats{}
		if p := camp.Stats.Domains[d]; p != nil {
			s = *p
		}
		weights[i] = structured.Weight(s)
		switch {
		case s.Generated == 0:
			weights[i] = 1e9 // every domain is generated for at once
		case c.gen.Sweep.Sweeping(d):
			// The sweep with the fewest rows added first: a sweep's first
			// rows hold the most pairs, and drawn alike, an 8-minute
			// campaign on a loaded machine added most of two sweeps'
			// rows and none of five others'.
			weights[i] = 1e3 + 1e6*(1-c.gen.Sweep.Progress(d))
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
