package coordinator

// sweeping reports whether the domain's lattice sweep has rows left.
func (c *Coordinator) sweeping(dom string) bool {
	return c.gen != nil && c.gen.Sweep.Sweeping(dom)
}

// sweepJudges are the oracles that judge a campaign domain whose lattice
// sweep has rows left.
func (c *Coordinator) sweepJudges() map[string]bool {
	out := map[string]bool{}
	for _, dom := range c.Campaign().Config.Domains {
		if c.sweeping(dom) {
			for _, o := range c.oraclesFor(dom) {
				out[o] = true
			}
		}
	}
	return out
}
