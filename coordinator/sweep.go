package coordinator

import "github.com/legalfuzz/legalfuzz/coordinator/store"

// sweepRows is how many cases of a structured batch of size cases the
// domain's lattice sweep takes until it is done: half, and three quarters
// while the sweep is behind the campaign's clock (a smaller share of its
// rows added than of the duration spent). The sweep runs beside mutation
// from a campaign's first batch, so a short campaign mutates too, and a
// night completes every domain's sweep early in it.
func (c *Coordinator) sweepRows(camp store.Campaign, dom string, size int) int {
	if c.gen.sweep.Progress(dom) < float64(camp.Elapsed)/float64(max(camp.Config.Duration, 1)) {
		return max(size*3/4, 1)
	}
	return max(size/2, 1)
}

// sweeping reports whether the domain's lattice sweep has rows left.
func (c *Coordinator) sweeping(dom string) bool {
	return c.gen != nil && c.gen.sweep.Sweeping(dom)
}
