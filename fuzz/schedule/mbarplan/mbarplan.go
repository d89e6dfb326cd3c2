// Package mbarplan is an algorithm under test: the mbarrier planner of
// seed 003 (nvFuser's multi-role warp specialization plan), written from
// the seed's text and diagrams, blind spots included:
//
//   - every producer -> consumer edge of the role DAG gets its own pair of
//     full/empty mbarriers per circular-buffer slot ("these edges correspond
//     to pairs of full/empty mbarriers"), each with arrival count 1;
//   - the epilogue (Blackwell) or compute (Hopper) warpgroup first arrives
//     on every slot-empty mbarrier ("Initialize - arrive at all slot empty
//     barriers"), so every wait names phase (use / stages) & 1;
//   - a load warp waits slot empty, issues its TMA load(s) and arrives at
//     slot full with expect_tx — on every out-edge's full mbarrier, while
//     the TMA load completes on one of them (the first edge's);
//   - the MMA warp waits operand slot full, issues tcgen05.mma and arrives
//     at the operand slot's empty and, after the tile's last k-step, at the
//     result slot's full mbarrier with tcgen05.commit; as in the seed's Key
//     Synchronization Points and diagram it never waits on result slot empty;
//   - epilogue and compute warpgroups wait all their slots full, consume
//     (wgmma + wgmma.wait for compute) and arrive at their slots empty.
//
// The output store path is planned as the reference does (fence, TMA
// store, commit, wait), so the model judges the mbarrier plan alone.
package mbarplan

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// ErrCapacity says the plan needs more mbarriers or ops than a schedule holds.
var ErrCapacity = errors.New("mbarplan: plan exceeds the schedule's bounds")

// edge is one producer -> consumer edge: chain c to role q, with its slots'
// first full and empty mbarrier.
type edge struct {
	chain, consumer int
	full, empty     int
}

type planner struct {
	d     sc.DAG
	b     *sc.Builder
	lay   sc.Layout
	edges []edge
	sink  int
}

// Plan plans d as seed 003 does.
func Plan(d sc.DAG) (sc.Value, error) {
	slots := 0
	for _, c := range d.ChainList() {
		slots += int(c.Stages) * bits.OnesCount8(c.Consumers)
	}
	if 2*slots > sc.MaxBarriers {
		return sc.Value{}, fmt.Errorf("%w: %d edge slots need %d mbarriers", ErrCapacity, slots, 2*slots)
	}
	p := &planner{d: d, b: sc.NewBuilder(d.Target()), sink: -1}
	// Rings, buffers and tensor maps as the reference lays them out; the
	// mbarriers are per edge instead of per chain.
	p.lay = sc.NewLayout(p.b, d, 0, nil)
	for ci, c := range d.ChainList() {
		for q := range int(d.NRoles) {
			if c.Consumers&(1<<q) == 0 {
				continue
			}
			e := edge{chain: ci, consumer: q, full: -1, empty: -1}
			for s := range int(c.Stages) {
				if x := p.b.Barrier(1); s == 0 {
					e.full = x
				}
			}
			for s := range int(c.Stages) {
				if x := p.b.Barrier(1); s == 0 {
					e.empty = x
				}
			}
			p.edges = append(p.edges, e)
		}
	}
	for r, k := range d.Roles[:d.NRoles] {
		if p.sink < 0 && (k == sc.RoleEpilogue || k == sc.RoleCompute) {
			p.sink = r
		}
	}
	for r, k := range d.Roles[:d.NRoles] {
		rb := p.b.Role(k)
		if r == p.sink {
			p.initArrivals(rb)
		}
		switch k {
		case sc.RoleLoad:
			p.load(rb, r)
		case sc.RoleMMA:
			p.mma(rb, r)
		default:
			p.consumer(rb, r)
		}
	}
	v, err := p.b.Value()
	if err != nil {
		return sc.Value{}, fmt.Errorf("%w: %v", ErrCapacity, err)
	}
	return v, nil
}

func (p *planner) ring(e edge) int { return p.lay.Ring[e.chain] }

func (p *planner) at(base int, e edge) sc.Ref { return sc.InRing(base, p.ring(e)) }

// initArrivals: the sink arrives once on every slot-empty mbarrier.
func (p *planner) initArrivals(rb *sc.RoleBuilder) {
	for _, e := range p.edges {
		for s := range int(p.d.Chains[e.chain].Stages) {
			rb.Arrive(sc.Fixed(e.empty + s))
		}
	}
}

// out and in list the edges of chains role r produces or consumes.
func (p *planner) out(r int, kinds ...sc.ChainKind) []edge {
	var es []edge
	for _, e := range p.edges {
		c := p.d.Chains[e.chain]
		if int(c.Producer) == r && slices.Contains(kinds, c.Kind) {
			es = append(es, e)
		}
	}
	return es
}

func (p *planner) in(r int, kinds ...sc.ChainKind) []edge {
	var es []edge
	for _, e := range p.edges {
		if e.consumer == r && slices.Contains(kinds, p.d.Chains[e.chain].Kind) {
			es = append(es, e)
		}
	}
	return es
}

// chains groups edges by chain, in chain order.
func chains(es []edge) [][]edge {
	var out [][]edge
	for _, e := range es {
		if len(out) > 0 && out[len(out)-1][0].chain == e.chain {
			out[len(out)-1] = append(out[len(out)-1], e)
			continue
		}
		out = append(out, []edge{e})
	}
	return out
}

// fill: wait every edge's slot empty, expect the bytes on every edge's slot
// full, load once completing on the first edge's full mbarrier.
func (p *planner) fill(rb *sc.RoleBuilder, es []edge) {
	ci := es[0].chain
	for _, e := range es {
		rb.Wait(p.at(e.empty, e), 0)
	}
	for _, e := range es {
		rb.ArriveTx(p.at(e.full, e), sc.TMABytes)
	}
	rb.TMALoad(sc.InRing(p.lay.Buf[ci], p.lay.Ring[ci]), p.at(es[0].full, es[0]), p.lay.TMap[ci], sc.TMABytes)
	rb.Advance(p.lay.Ring[ci])
}

func (p *planner) load(rb *sc.RoleBuilder, r int) {
	operand, input := chains(p.out(r, sc.ChainOperand)), chains(p.out(r, sc.ChainInput))
	rb.Loop(int(p.d.Tiles))
	if len(operand) > 0 {
		rb.Loop(int(p.d.KIters))
		for _, es := range operand {
			p.fill(rb, es)
		}
		rb.EndLoop()
	}
	for _, es := range input {
		p.fill(rb, es)
	}
	rb.EndLoop()
}

func (p *planner) mma(rb *sc.RoleBuilder, r int) {
	ops := p.in(r, sc.ChainOperand)
	results := p.out(r, sc.ChainResult)
	if len(ops) == 0 || len(results) == 0 {
		return
	}
	res := results[0].chain
	a, b := p.operandRefs(ops)
	rb.Loop(int(p.d.Tiles))
	rb.Loop(int(p.d.KIters))
	for _, e := range ops {
		rb.Wait(p.at(e.full, e), 0)
	}
	rb.MMA(a, b, sc.InRing(p.lay.Buf[res], p.lay.Ring[res]))
	for _, e := range ops {
		rb.Commit(p.at(e.empty, e))
		rb.Advance(p.ring(e))
	}
	rb.EndLoop()
	for _, e := range results {
		rb.Commit(p.at(e.full, e))
	}
	rb.Advance(p.lay.Ring[res])
	rb.EndLoop()
}

func (p *planner) operandRefs(ops []edge) (sc.Ref, sc.Ref) {
	a, b := ops[0].chain, ops[len(ops)-1].chain
	return sc.InRing(p.lay.Buf[a], p.lay.Ring[a]), sc.InRing(p.lay.Buf[b], p.lay.Ring[b])
}

func (p *planner) consumer(rb *sc.RoleBuilder, r int) {
	ops := p.in(r, sc.ChainOperand)
	perTile := p.in(r, sc.ChainResult, sc.ChainInput)
	if len(ops) > 0 {
		rb.WgmmaFence()
	}
	rb.Loop(int(p.d.Tiles))
	if len(ops) > 0 {
		a, b := p.operandRefs(ops)
		rb.Loop(int(p.d.KIters))
		for _, e := range ops {
			rb.Wait(p.at(e.full, e), 0)
		}
		rb.Wgmma(a, b).WgmmaCommit().WgmmaWait(0)
		for _, e := range ops {
			rb.Arrive(p.at(e.empty, e))
			rb.Advance(p.ring(e))
		}
		rb.EndLoop()
	}
	for _, e := range perTile {
		rb.Wait(p.at(e.full, e), 0)
		if p.d.Chains[e.chain].Kind == sc.ChainResult {
			rb.TmemLd(sc.InRing(p.lay.Buf[e.chain], p.ring(e)))
		} else {
			rb.Ld(sc.InRing(p.lay.Buf[e.chain], p.ring(e)))
		}
	}
	p.store(rb, r, ops, perTile)
	rb.EndLoop()
	if p.d.StoreRole() == r {
		rb.BulkWait(0, false)
	}
}

// store releases the per-tile slots and, for the store role, writes the
// output as the reference does.
func (p *planner) store(rb *sc.RoleBuilder, r int, ops, perTile []edge) {
	store := p.d.StoreRole() == r
	if store {
		rb.BulkWait(0, true)
		rb.St(sc.Fixed(p.lay.OutBuf))
	}
	tile, deferred := -1, false
	if len(perTile) > 0 {
		tile, deferred = perTile[len(perTile)-1].chain, true
	} else if len(ops) > 0 {
		tile = ops[len(ops)-1].chain
	}
	for _, e := range perTile {
		rb.Arrive(p.at(e.empty, e))
		if !store || !deferred || e.chain != tile {
			rb.Advance(p.ring(e))
		}
	}
	if store {
		rb.Fence(sc.SpaceSharedCTA)
		rb.TMAStore(sc.Fixed(p.lay.OutBuf), p.lay.OutTMap, sc.Ref{Ring: uint8(p.lay.Ring[tile] + 1)})
		rb.BulkCommit()
		if deferred {
			rb.Advance(p.lay.Ring[tile])
		}
	}
}
