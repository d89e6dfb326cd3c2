package schedule

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Example is a hand-written schedule with the answer the PTX ISA gives: the
// model's verdict ("ok", "deadlock", "race", "proxy-hazard", "ub.<which>",
// "operand-space", "bound-exceeded") or a ptxisa rule that decides before
// the model ("target", "target-ptx-version").
type Example struct {
	Name string
	Doc  string
	Want string
	V    Value
}

var (
	sm90a  = target.MustParse("sm_90a", "")
	sm100a = target.MustParse("sm_100a", "")
)

// PipelineOpts perturbs the 2-stage load/compute pipeline of Pipeline.
type PipelineOpts struct {
	NoExpectTx     bool // the producer never arrives with expect_tx
	ProducerParity int  // the parity the producer's empty waits start at (1 is right)
	ConsumerParity int  // the parity the consumer's full waits start at (0 is right)
	EarlyRelease   bool // the consumer releases the slot before its wgmma completed
	Stages         int
	Iters          int
}

// DefaultPipeline is the correct 2-stage, 4-iteration pipeline.
var DefaultPipeline = PipelineOpts{ProducerParity: 1, Stages: 2, Iters: 4}

// Pipeline is a Hopper load warp feeding a compute warpgroup through a ring
// of o.Stages shared-memory slots, each with a full mbarrier (the TMA
// completes on it) and an empty one (the consumer arrives on it).
func Pipeline(o PipelineOpts) Value {
	b := NewBuilder(sm90a)
	ring := b.Ring(o.Stages)
	buf := 0
	for s := range o.Stages {
		if x := b.Buffer(Smem); s == 0 {
			buf = x
		}
	}
	full, empty := 0, o.Stages
	for range 2 * o.Stages {
		b.Barrier(1)
	}
	tm := b.TensorMap()
	p := b.Role(RoleLoad).Loop(o.Iters).Wait(InRing(empty, ring), o.ProducerParity)
	if !o.NoExpectTx {
		p.ArriveTx(InRing(full, ring), TMABytes)
	}
	p.TMALoad(InRing(buf, ring), InRing(full, ring), tm, TMABytes).Advance(ring).EndLoop()
	c := b.Role(RoleCompute).WgmmaFence().Loop(o.Iters).Wait(InRing(full, ring), o.ConsumerParity)
	c.Wgmma(InRing(buf, ring), InRing(buf, ring)).WgmmaCommit()
	if o.EarlyRelease {
		c.Arrive(InRing(empty, ring)).WgmmaWait(0)
	} else {
		c.WgmmaWait(0).Arrive(InRing(empty, ring))
	}
	c.Advance(ring).EndLoop()
	return b.MustValue()
}

// Examples are the hand-written schedules with known answers: issue 6's
// list (seed 002's example, the 2-stage pipeline and its broken variants,
// the missing proxy fences) and one schedule per model rule.
func Examples() []Example {
	with := func(f func(*PipelineOpts)) Value { o := DefaultPipeline; f(&o); return Pipeline(o) }
	ex := []Example{
		{"seed002-no-fence", "seed 002's example: a shared-memory store, then wgmma reading it, no fence", "proxy-hazard", seed002(false)},
		{"seed002-fenced", "seed 002's example after InjectFenceProxy", "ok", seed002(true)},
		{"pipeline-2stage", "a correct 2-stage TMA -> wgmma pipeline", "ok", Pipeline(DefaultPipeline)},
		{"pipeline-missing-expect-tx", "the producer never arrives on the full mbarrier", "deadlock", with(func(o *PipelineOpts) { o.NoExpectTx = true })},
		{"pipeline-producer-parity-off", "the producer's first empty wait names phase 0, not the preceding phase", "deadlock", with(func(o *PipelineOpts) { o.ProducerParity = 0 })},
		{"pipeline-consumer-parity-off", "the consumer's first full wait names the preceding phase and passes at once", "race", with(func(o *PipelineOpts) { o.ConsumerParity = 1 })},
		{"pipeline-slot-reused-early", "the consumer releases the slot before its wgmma completed", "race", with(func(o *PipelineOpts) { o.EarlyRelease = true })},
		{"pipeline-1stage", "a correct 1-stage pipeline", "ok", with(func(o *PipelineOpts) { o.Stages, o.Iters = 1, 3 })},
		{"epilogue-store-no-fence", "st.shared then a TMA store of the buffer, no fence.proxy.async", "proxy-hazard", epilogueStore(false)},
		{"epilogue-store-fenced", "st.shared, fence.proxy.async, TMA store, commit, wait", "ok", epilogueStore(true)},
		{"store-rewritten-in-flight", "as above, but the buffer is written again before the wait: the store may still be reading it", "race", storeRewrittenInFlight()},
		{"cross-role-store-no-fence", "one role writes, another stores it by TMA after an mbarrier handoff; no fence in either", "proxy-hazard", crossRoleStore(0)},
		{"cross-role-store-writer-fence", "as above, the writer fences before arriving", "ok", crossRoleStore(1)},
		{"cross-role-store-issuer-fence", "as above, the TMA issuer fences after its wait", "ok", crossRoleStore(2)},
		{"tensormap-update-no-fence", "a tensor-map update, then a TMA load through it, no tensormap fences", "proxy-hazard", tensormapUpdate(false)},
		{"tensormap-update-fenced", "update, release, acquire, TMA load", "ok", tensormapUpdate(true)},
		{"negative-tx-count", "the TMA may land before its expect_tx: tx-count goes negative, legally", "ok", negativeTx()},
		{"tcgen05-after-st-shared", "st.shared then tcgen05.mma reading it: tcgen05 reads through the async proxy", "proxy-hazard", tcgen05AfterStore()},
		{"opaque-async-call", "st.shared then an opaque call that reads the buffer through the async proxy", "proxy-hazard", opaqueAsyncCall()},
		{"over-fenced-by-seed", "st.shared to one buffer, wgmma on another: no fence needed", "ok", seed002Unrelated()},
		{"generic-read-then-tma", "ld.shared, release, then a TMA load overwrites the slot: ordered, no fence needed", "ok", genericReadThenTMA()},
		{"bulk-group-unordered", "two TMA stores of the same tile in one bulk async-group", "race", bulkSameGroup()},
		{"bar-sync-handoff", "st.shared, bar.sync, ld.shared in another role", "ok", barSyncHandoff(2)},
		{"bar-sync-missing-role", "bar.sync for 3 roles with 2", "deadlock", barSyncHandoff(3)},
		{"blackwell-pipeline", "load warp -> MMA warp (tcgen05) -> epilogue, 2 stages, 2 tiles", "ok", mustGenerate(BlackwellDAG(2, 2, 2, false))},
		{"hopper-store-pipeline", "load warp -> compute warpgroup with a TMA-store epilogue", "ok", mustGenerate(HopperDAG(2, 2, 2, true))},
		{"bound-exceeded", "the Blackwell pipeline with a 50-state bound", "bound-exceeded", boundTiny()},
		{"fence-past-bound", "a lone fence.proxy.async with a one-state bound (InjectFenceProxy drops the fence, and its output fits)", "bound-exceeded", fencePastBound()},
	}
	return append(ex, ruleExamples()...)
}

// ruleExamples fire each remaining model and target rule once.
func ruleExamples() []Example {
	one := func(f func(b *Builder, r *RoleBuilder)) Value {
		b := NewBuilder(sm90a)
		b.Buffer(Smem)
		r := b.Role(RoleWarp)
		f(b, r)
		return b.MustValue()
	}
	return []Example{
		{"uninit", "arrive on an mbarrier nobody initialized", "ub.uninit", one(func(b *Builder, r *RoleBuilder) {
			r.Arrive(Fixed(b.UninitBarrier()))
		})},
		{"init-then-use", "init, arrive, wait, inval", "ok", one(func(b *Builder, r *RoleBuilder) {
			x := Fixed(b.UninitBarrier())
			r.Init(x, 1).Arrive(x).Wait(x, 0).Inval(x)
		})},
		{"reinit", "init twice", "ub.reinit", one(func(b *Builder, r *RoleBuilder) {
			x := Fixed(b.UninitBarrier())
			r.Init(x, 1).Init(x, 1)
		})},
		{"init-count", "init with count 0", "ub.init-count", one(func(b *Builder, r *RoleBuilder) {
			r.Init(Fixed(b.UninitBarrier()), 0)
		})},
		{"nocomplete", "arrive.noComplete that completes the phase", "ub.nocomplete", one(func(b *Builder, r *RoleBuilder) {
			r.ArriveN(Fixed(b.Barrier(1)), 1, true)
		})},
		{"tx-range", "expect_tx of 2^20 bytes", "ub.tx-range", one(func(b *Builder, r *RoleBuilder) {
			r.ExpectTx(Fixed(b.Barrier(1)), MbarMax+1)
		})},
		{"pending-underflow", "arrive with count 2 on a count-1 mbarrier", "ub.pending-underflow", one(func(b *Builder, r *RoleBuilder) {
			r.ArriveN(Fixed(b.Barrier(1)), 2, false)
		})},
		{"phase-unobserved", "two arrivals, no wait between", "ub.phase-unobserved", one(func(b *Builder, r *RoleBuilder) {
			x := Fixed(b.Barrier(1))
			r.Arrive(x).Arrive(x)
		})},
		{"wgmma-no-fence", "wgmma.mma_async without wgmma.fence", "ub.wgmma-fence", one(func(b *Builder, r *RoleBuilder) {
			r.Wgmma(Fixed(0), Fixed(0)).WgmmaCommit().WgmmaWait(0)
		})},
		{"tma-into-tmem", "a TMA load into tensor memory", "operand-space", tmaIntoTmem()},
		{"wgmma-on-sm100a", "wgmma on sm_100a", "target", retarget(seed002(true), sm100a)},
		{"sm90a-ptx70", "sm_90a with PTX ISA 7.0", "target-ptx-version", retarget(seed002(true), target.MustParse("sm_90a", "7.0"))},
		{"fence-on-sm80", "a lone fence.proxy.async on sm_80, which has no async proxy (InjectFenceProxy drops it as redundant)", "target",
			retarget(one(func(_ *Builder, r *RoleBuilder) { r.Fence(SpaceAll) }), target.MustParse("sm_80", ""))},
		{"wait-uninit", "try_wait on an uninitialized mbarrier", "ub.uninit", one(func(b *Builder, r *RoleBuilder) {
			r.Wait(Fixed(b.UninitBarrier()), 0)
		})},
	}
}

func retarget(v Value, t target.Target) Value { v.Tgt = t; return v }

func mustGenerate(d DAG) Value {
	v, err := Generate(d)
	if err != nil {
		panic(err)
	}
	return v
}

func fencePastBound() Value {
	b := NewBuilder(sm90a)
	b.Role(RoleWarp).Fence(SpaceAll)
	v := b.MustValue()
	v.MaxStates = 1
	return v
}

func boundTiny() Value {
	v := mustGenerate(BlackwellDAG(2, 2, 2, false))
	v.MaxStates = 50
	return v
}

// BlackwellDAG is seed 003's Blackwell kernel without the bias: load warp
// -> MMA warp (operands) -> epilogue (results), stages each, tiles x k.
func BlackwellDAG(stages, tiles, k int, store bool) DAG {
	d := DAG{Blackwell: true, NRoles: 3, Roles: [MaxRoles]RoleKind{RoleLoad, RoleMMA, RoleEpilogue},
		NChains: 2, Tiles: uint8(tiles), KIters: uint8(k), Store: store}
	d.Chains[0] = Chain{Kind: ChainOperand, Producer: 0, Consumers: 1 << 1, Stages: uint8(stages)}
	d.Chains[1] = Chain{Kind: ChainResult, Producer: 1, Consumers: 1 << 2, Stages: uint8(stages)}
	return d
}

// HopperDAG is seed 003's Hopper single-role kernel: load warp -> compute
// warpgroup.
func HopperDAG(stages, tiles, k int, store bool) DAG {
	d := DAG{NRoles: 2, Roles: [MaxRoles]RoleKind{RoleLoad, RoleCompute}, NChains: 1,
		Tiles: uint8(tiles), KIters: uint8(k), Store: store}
	d.Chains[0] = Chain{Kind: ChainOperand, Producer: 0, Consumers: 1 << 1, Stages: uint8(stages)}
	return d
}

// Seed003DAG is seed 003's Blackwell example: operand load warp, epilogue
// (bias) load warp, MMA warp and epilogue warpgroup, 2-slot chains.
func Seed003DAG(tiles, k int) DAG {
	d := DAG{Blackwell: true, NRoles: 4, Roles: [MaxRoles]RoleKind{RoleLoad, RoleLoad, RoleMMA, RoleEpilogue},
		NChains: 3, Tiles: uint8(tiles), KIters: uint8(k)}
	d.Chains[0] = Chain{Kind: ChainOperand, Producer: 0, Consumers: 1 << 2, Stages: 2}
	d.Chains[1] = Chain{Kind: ChainResult, Producer: 2, Consumers: 1 << 3, Stages: 2}
	d.Chains[2] = Chain{Kind: ChainInput, Producer: 1, Consumers: 1 << 3, Stages: 2}
	return d
}

func seed002(fenced bool) Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	r := b.Role(RoleCompute).St(x).WgmmaFence()
	if fenced {
		r.Fence(SpaceAll)
	}
	r.Wgmma(x, x).WgmmaCommit().WgmmaWait(0)
	return b.MustValue()
}

func seed002Unrelated() Value {
	b := NewBuilder(sm90a)
	x, y := Fixed(b.Buffer(Smem)), Fixed(b.Buffer(Smem))
	b.Role(RoleCompute).St(y).WgmmaFence().Wgmma(x, x).WgmmaCommit().WgmmaWait(0)
	return b.MustValue()
}

func epilogueStore(fenced bool) Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	tm := b.TensorMap()
	r := b.Role(RoleEpilogue).St(x)
	if fenced {
		r.Fence(SpaceSharedCTA)
	}
	r.TMAStore(x, tm, Fixed(0)).BulkCommit().BulkWait(0, true)
	return b.MustValue()
}

func storeRewrittenInFlight() Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	tm := b.TensorMap()
	b.Role(RoleEpilogue).St(x).Fence(SpaceSharedCTA).TMAStore(x, tm, Fixed(0)).BulkCommit().St(x).BulkWait(0, true)
	return b.MustValue()
}

// crossRoleStore: role 0 writes, arrives; role 1 waits and TMA-stores. fence:
// 0 none, 1 by the writer, 2 by the issuer.
func crossRoleStore(fence int) Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	bar := Fixed(b.Barrier(1))
	tm := b.TensorMap()
	w := b.Role(RoleCompute).St(x)
	if fence == 1 {
		w.Fence(SpaceAll)
	}
	w.Arrive(bar)
	s := b.Role(RoleEpilogue).Wait(bar, 0)
	if fence == 2 {
		s.Fence(SpaceAll)
	}
	s.TMAStore(x, tm, Fixed(0)).BulkCommit().BulkWait(0, false)
	return b.MustValue()
}

func tensormapUpdate(fenced bool) Value {
	b := NewBuilder(target.MustParse("sm_90a", "8.3"))
	x := Fixed(b.Buffer(Smem))
	bar := Fixed(b.Barrier(1))
	tm := b.TensorMap()
	r := b.Role(RoleLoad).TmapReplace(tm)
	if fenced {
		r.TmapRelease().TmapAcquire(tm)
	}
	r.ArriveTx(bar, TMABytes).TMALoad(x, bar, tm, TMABytes).Wait(bar, 0).Ld(x)
	return b.MustValue()
}

func negativeTx() Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	bar := Fixed(b.Barrier(1))
	tm := b.TensorMap()
	b.Role(RoleLoad).TMALoad(x, bar, tm, TMABytes).ArriveTx(bar, TMABytes).Wait(bar, 0).Ld(x)
	return b.MustValue()
}

func tcgen05AfterStore() Value {
	b := NewBuilder(sm100a)
	x := Fixed(b.Buffer(Smem))
	d := Fixed(b.Buffer(Tmem))
	bar := Fixed(b.Barrier(1))
	b.Role(RoleMMA).St(x).MMA(x, x, d).Commit(bar).Wait(bar, 0).TmemLd(d)
	return b.MustValue()
}

func opaqueAsyncCall() Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	b.Role(RoleCompute).St(x).Call(x, false, EffectAsync)
	return b.MustValue()
}

func genericReadThenTMA() Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	full, empty := Fixed(b.Barrier(1)), Fixed(b.Barrier(1))
	tm := b.TensorMap()
	b.Role(RoleLoad).ArriveTx(full, TMABytes).TMALoad(x, full, tm, TMABytes).
		Wait(empty, 0).ArriveTx(full, TMABytes).TMALoad(x, full, tm, TMABytes)
	b.Role(RoleCompute).Wait(full, 0).Ld(x).Arrive(empty).Wait(full, 1).Ld(x)
	return b.MustValue()
}

func bulkSameGroup() Value {
	b := NewBuilder(sm90a)
	x, y := Fixed(b.Buffer(Smem)), Fixed(b.Buffer(Smem))
	tm := b.TensorMap()
	b.Role(RoleEpilogue).TMAStore(x, tm, Fixed(3)).TMAStore(y, tm, Fixed(3)).BulkCommit().BulkWait(0, false)
	return b.MustValue()
}

func barSyncHandoff(count int) Value {
	b := NewBuilder(sm90a)
	x := Fixed(b.Buffer(Smem))
	b.Role(RoleWarp).St(x).BarSync(1, count)
	b.Role(RoleWarp).BarSync(1, count).Ld(x)
	return b.MustValue()
}

func tmaIntoTmem() Value {
	b := NewBuilder(sm100a)
	d := Fixed(b.Buffer(Tmem))
	bar := Fixed(b.Barrier(1))
	tm := b.TensorMap()
	b.Role(RoleLoad).ArriveTx(bar, TMABytes).TMALoad(d, bar, tm, TMABytes).Wait(bar, 0)
	return b.MustValue()
}

// Seeds are the examples and reference pipelines of several DAG shapes.
func Seeds() []domain.Value {
	var vals []domain.Value
	for _, e := range Examples() {
		vals = append(vals, e.V)
	}
	for _, d := range []DAG{HopperDAG(1, 2, 2, false), HopperDAG(3, 1, 3, true), BlackwellDAG(1, 2, 1, true), Seed003DAG(1, 2)} {
		vals = append(vals, mustGenerate(d))
	}
	return vals
}
