package coordinator

import "slices"

// sweeping reports whether the domain's lattice sweep has rows left.
func (c *Coordinator) sweeping(dom string) bool {
	return c.gen != nil && c.gen.sweep.Sweeping(dom)
}

// sweepingFor reports whether the lattice sweep of a campaign domain the
// oracle judges has rows left.
func (c *Coordinator) sweepingFor(oracle string) bool {
	for _, dom := range c.Campaign().Config.Domains {
		if c.sweeping(dom) && slices.Contains(c.oraclesFor(dom), oracle) {
			return true
		}
	}
	return false
}
