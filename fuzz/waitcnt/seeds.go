package waitcnt

import "github.com/legalfuzz/legalfuzz/fuzz/domain"

// Seeds are programs with known answers: in-order streams where the
// sequence-number thresholds are exact, the out-of-order cases (SMEM, mixed
// LGKM kinds, GDS's expcnt side) where they are not, field-width boundaries,
// redundant waits, exports per GPU, and a double-buffered pipeline.
func Seeds() []domain.Value {
	op := Op
	w := WaitOn
	rep := func(k Kind, n int) []Item {
		items := make([]Item, n)
		for i := range items {
			items[i] = op(k)
		}
		return items
	}
	with := func(items []Item, more ...Item) []Item { return append(append([]Item{}, items...), more...) }
	progs := []struct {
		gpu   GPU
		items []Item
	}{
		{GFX942, []Item{op(VMEMLoad), w(0)}},                                             // vmcnt(0)
		{GFX942, with(rep(VMEMLoad, 4), w(0), w(1), w(2), w(3))},                         // vmcnt(3..0): exact
		{GFX942, []Item{op(VMEMLoad), op(VMEMStore), op(VMEMLoad), w(0)}},                // stores on vmcnt, in order
		{GFX942, []Item{op(LDS), op(LDS), op(LDS), w(0)}},                                // lgkmcnt(2): one kind, in order
		{GFX942, []Item{op(LDS), op(SMEM), w(0)}},                                        // lgkmcnt(1): unsound
		{GFX942, []Item{op(SMEM), op(SMEM), w(0)}},                                       // SMEM out of order: unsound
		{GFX942, []Item{op(SMEM), op(SMEM), w(0, 1)}},                                    // lgkmcnt(0): sound
		{GFX942, []Item{op(LDS), op(Message), w(0)}},                                     // mixed kinds: unsound
		{GFX942, []Item{op(GDS), w(0)}},                                                  // expcnt side forgotten
		{GFX908, []Item{op(GDS), op(Export), w(0)}},                                      // same with an export
		{GFX942, []Item{op(Export), w(0)}},                                               // no exports on gfx942
		{GFX90A, []Item{op(VMEMLoad), op(Export), w(1)}},                                 // nor on gfx90a
		{GFX908, []Item{op(Export), op(Export), w(0)}},                                   // expcnt(1): in order
		{GFX900, []Item{op(Export), op(GDS), op(Export), w(0)}},                          // expcnt(1) with a GDS lock between
		{GFX908, with(rep(Export, 8), w(0))},                                             // expcnt(7): the widest
		{GFX908, with(rep(Export, 9), w(0))},                                             // expcnt(8): too wide
		{GFX942, with(rep(LDS, 16), w(0))},                                               // lgkmcnt(15): the widest
		{GFX942, with(rep(LDS, 17), w(0))},                                               // lgkmcnt(16): too wide
		{GFX942, []Item{op(VMEMLoad), op(VMEMLoad), w(1), w(0)}},                         // second wait redundant
		{GFX942, []Item{op(VMEMLoad), op(LDS), op(VMEMLoad), op(LDS), w(0, 1)}},          // vmcnt(1) lgkmcnt(1)
		{GFX942, []Item{op(SMEM), op(LDS), op(LDS), w(1)}},                               // lgkmcnt(1) with SMEM older: sound
		{GFX942, []Item{op(LDS), op(LDS), op(SMEM), w(0)}},                               // lgkmcnt(2): unsound, 1 would do
		{GFX90A, []Item{op(Message), op(Message), op(VMEMLoad), w(0), op(LDS), w(2, 3)}}, // two counters, two waits
		{GFX900, []Item{op(GDS), op(GDS), op(LDS), w(0), w(1), w(2)}},                    // GDS then LDS
		{GFX942, []Item{op(VMEMLoad), op(VMEMLoad), w(0), op(VMEMLoad), w(1), op(VMEMLoad), // double-buffered pipeline
			w(2), op(VMEMLoad), w(3), w(4)}},
		{GFX942, []Item{op(SMEM), op(VMEMLoad), op(VMEMLoad), w(0), op(LDS), op(LDS), w(1, 3), op(VMEMStore), w(2, 4, 5)}},
	}
	vals := make([]domain.Value, len(progs))
	for i, p := range progs {
		vals[i] = MustBuild(p.gpu, p.items...)
	}
	return vals
}
