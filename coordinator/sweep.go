package coordinator

// sweeping reports whether the domain's lattice sweep has rows left.
func (c *Coordinator) sweeping(dom string) bool {
	return c.gen != nil && c.gen.sweep.Sweeping(dom)
}
