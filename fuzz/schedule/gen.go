package schedule

import (
	"fmt"
	"math/bits"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Layout is where a planned schedule keeps each chain: its ring, first
// buffer, first full and first empty mbarrier and tensor map (-1 for a
// chain not loaded by TMA), plus the output buffer and tensor map of the
// epilogue store (-1 without one).
type Layout struct {
	Ring, Buf, Full, Empty, TMap [MaxChains]int
	OutBuf, OutTMap              int
}

// Generate plans d the way production kernels do (CUTLASS's pipelines):
// per slot one full mbarrier (count 1: the producer's arrive.expect_tx, or
// its tcgen05.commit) and one empty mbarrier (count: the consumers, each
// arriving once per use); producers start waiting on empty with parity 1 so
// their first pass is free; every consumer waits full before reading and
// releases after its reads completed; the store path fences, commits and
// waits for the read before reusing its buffer. It is the reference the
// seed 003 planner is compared with, and the model must find it ok.
func Generate(d DAG) (Value, error) {
	b, lay := newPlan(d)
	for r, k := range d.Roles[:d.NRoles] {
		rb := b.Role(k)
		switch k {
		case RoleLoad:
			genLoad(rb, d, lay, r)
		case RoleMMA:
			genMMA(rb, d, lay)
		case RoleEpilogue, RoleCompute:
			genConsumer(rb, d, lay, r)
		}
	}
	v, err := b.Value()
	if err != nil {
		return Value{}, fmt.Errorf("generate %v: %w", d, err)
	}
	return v, nil
}

// NewLayout declares d's rings, buffers, tensor maps and (unless emptyCount is nil)
// mbarriers on b: per chain a ring, its slots' buffers, one tensor map for
// TMA chains, then full and empty mbarriers per slot. emptyCount gives each
// chain's empty-mbarrier count.
func NewLayout(b *Builder, d DAG, fullPerSlot int, emptyCount func(Chain) int) Layout {
	var lay Layout
	lay.OutBuf, lay.OutTMap = -1, -1
	for i, c := range d.ChainList() {
		lay.Ring[i] = b.Ring(int(c.Stages))
		space := Smem
		if c.Kind == ChainResult {
			space = Tmem
		}
		for s := range int(c.Stages) {
			x := b.Buffer(space)
			if s == 0 {
				lay.Buf[i] = x
			}
		}
		lay.TMap[i] = -1
		if c.Kind != ChainResult {
			lay.TMap[i] = b.TensorMap()
		}
	}
	for i, c := range d.ChainList() {
		lay.Full[i], lay.Empty[i] = -1, -1
		if emptyCount != nil {
			lay.Full[i] = declareBarriers(b, int(c.Stages), fullPerSlot)
			lay.Empty[i] = declareBarriers(b, int(c.Stages), emptyCount(c))
		}
	}
	if d.Store {
		lay.OutBuf = b.Buffer(Smem)
		lay.OutTMap = b.TensorMap()
	}
	return lay
}

func declareBarriers(b *Builder, n, count int) int {
	first := 0
	for s := range n {
		x := b.Barrier(count)
		if s == 0 {
			first = x
		}
	}
	return first
}

// Target is the target a DAG's schedules are judged for.
func (d DAG) Target() target.Target {
	if d.Blackwell {
		return target.MustParse("sm_100a", "")
	}
	return target.MustParse("sm_90a", "")
}

func newPlan(d DAG) (*Builder, Layout) {
	b := NewBuilder(d.Target())
	lay := NewLayout(b, d, 1, func(c Chain) int { return bits.OnesCount8(c.Consumers) })
	return b, lay
}

// StoreRole is the role that writes the output when d.Store: the first
// consumer of the last chain.
func (d DAG) StoreRole() int {
	if !d.Store || d.NChains == 0 {
		return -1
	}
	m := d.Chains[d.NChains-1].Consumers
	for r := range int(d.NRoles) {
		if m&(1<<r) != 0 {
			return r
		}
	}
	return -1
}

// produce appends one fill of chain i's current slot: wait empty, expect
// the bytes, load, move on.
func produce(rb *RoleBuilder, lay Layout, i int) {
	ring := lay.Ring[i]
	rb.Wait(InRing(lay.Empty[i], ring), 1)
	rb.ArriveTx(InRing(lay.Full[i], ring), TMABytes)
	rb.TMALoad(InRing(lay.Buf[i], ring), InRing(lay.Full[i], ring), lay.TMap[i], TMABytes)
	rb.Advance(ring)
}

func genLoad(rb *RoleBuilder, d DAG, lay Layout, r int) {
	var operand, input []int
	for i, c := range d.ChainList() {
		if int(c.Producer) != r {
			continue
		}
		if c.Kind == ChainOperand {
			operand = append(operand, i)
		} else {
			input = append(input, i)
		}
	}
	rb.Loop(int(d.Tiles))
	if len(operand) > 0 {
		rb.Loop(int(d.KIters))
		for _, i := range operand {
			produce(rb, lay, i)
		}
		rb.EndLoop()
	}
	for _, i := range input {
		produce(rb, lay, i)
	}
	rb.EndLoop()
}

// operands returns the operand chains role r consumes.
func operands(d DAG, r int) []int {
	var out []int
	for i, c := range d.ChainList() {
		if c.Kind == ChainOperand && c.Consumers&(1<<r) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// abRefs returns the A and B buffers read by an MMA over operand chains ops.
func abRefs(lay Layout, ops []int) (Ref, Ref) {
	a := InRing(lay.Buf[ops[0]], lay.Ring[ops[0]])
	bIdx := ops[len(ops)-1]
	return a, InRing(lay.Buf[bIdx], lay.Ring[bIdx])
}

func genMMA(rb *RoleBuilder, d DAG, lay Layout) {
	var ops []int
	res := -1
	for i, c := range d.ChainList() {
		switch c.Kind {
		case ChainOperand:
			ops = append(ops, i)
		case ChainResult:
			res = i
		}
	}
	resRing := lay.Ring[res]
	a, b := abRefs(lay, ops)
	rb.Loop(int(d.Tiles))
	rb.Wait(InRing(lay.Empty[res], resRing), 1)
	rb.Loop(int(d.KIters))
	for _, i := range ops {
		rb.Wait(InRing(lay.Full[i], lay.Ring[i]), 0)
	}
	rb.MMA(a, b, InRing(lay.Buf[res], resRing))
	for _, i := range ops {
		rb.Commit(InRing(lay.Empty[i], lay.Ring[i]))
		rb.Advance(lay.Ring[i])
	}
	rb.EndLoop()
	rb.Commit(InRing(lay.Full[res], resRing))
	rb.Advance(resRing)
	rb.EndLoop()
}

// genConsumer plans an epilogue warpgroup or a Hopper compute warpgroup:
// per tile its k-loop of wgmma (compute only), then its per-tile inputs
// (results, biases), then the optional store.
func genConsumer(rb *RoleBuilder, d DAG, lay Layout, r int) {
	ops := operands(d, r)
	var perTile []int
	for i, c := range d.ChainList() {
		if c.Kind != ChainOperand && c.Consumers&(1<<r) != 0 {
			perTile = append(perTile, i)
		}
	}
	if len(ops) > 0 {
		rb.WgmmaFence()
	}
	rb.Loop(int(d.Tiles))
	if len(ops) > 0 {
		a, b := abRefs(lay, ops)
		rb.Loop(int(d.KIters))
		for _, i := range ops {
			rb.Wait(InRing(lay.Full[i], lay.Ring[i]), 0)
		}
		rb.Wgmma(a, b).WgmmaCommit().WgmmaWait(0)
		for _, i := range ops {
			rb.Arrive(InRing(lay.Empty[i], lay.Ring[i]))
			rb.Advance(lay.Ring[i])
		}
		rb.EndLoop()
	}
	for _, i := range perTile {
		rb.Wait(InRing(lay.Full[i], lay.Ring[i]), 0)
		if d.Chains[i].Kind == ChainResult {
			rb.TmemLd(InRing(lay.Buf[i], lay.Ring[i]))
		} else {
			rb.Ld(InRing(lay.Buf[i], lay.Ring[i]))
		}
	}
	store := d.StoreRole() == r
	if store {
		rb.BulkWait(0, true)
		rb.St(Fixed(lay.OutBuf))
	}
	// The store's tile is the position in the last per-tile ring (advanced
	// after the store), or in the last operand ring (advanced by the k-loop).
	tileChain, deferred := -1, false
	if len(perTile) > 0 {
		tileChain, deferred = perTile[len(perTile)-1], true
	} else if len(ops) > 0 {
		tileChain = ops[len(ops)-1]
	}
	for _, i := range perTile {
		rb.Arrive(InRing(lay.Empty[i], lay.Ring[i]))
		if !store || !deferred || i != tileChain {
			rb.Advance(lay.Ring[i])
		}
	}
	if store {
		rb.Fence(SpaceSharedCTA)
		rb.TMAStore(Fixed(lay.OutBuf), lay.OutTMap, Ref{Ring: uint8(lay.Ring[tileChain] + 1)})
		rb.BulkCommit()
		if deferred {
			rb.Advance(lay.Ring[tileChain])
		}
	}
	rb.EndLoop()
	if store {
		rb.BulkWait(0, false)
	}
}
