package model

import (
	"fmt"
	"math/bits"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// Model rule names (the part of the rule ID after "ptxisa.schedule.").
const (
	UBUninit      = "ub.uninit"
	UBReinit      = "ub.reinit"
	UBInitCount   = "ub.init-count"
	UBNoComplete  = "ub.nocomplete"
	UBTxRange     = "ub.tx-range"
	UBPending     = "ub.pending-underflow"
	UBUnobserved  = "ub.phase-unobserved"
	UBWgmmaFence  = "ub.wgmma-fence"
	Race          = "race"
	ProxyHazard   = "proxy-hazard"
	Deadlock      = "deadlock"
	OperandSpace  = "operand-space"
	BoundExceeded = "bound-exceeded"
)

// Proxy kinds of a proxy hazard.
const (
	ProxyAsync     = "async"
	ProxyTensormap = "tensormap"
)

// step labels one transition for the witness: a role's op (role >= 0) with
// its operands resolved, or an async completion (role < 0).
type schedStep struct {
	role         int8
	pc           uint8
	flight       uint8 // async: the flight kind
	issuer       int8  // async: the issuing role
	a, b, c, bar int8
	par          int8 // wait parity, or 1/0 for a branch taken/not
	it           int8 // innermost loop iteration
}

// sink receives the transitions of one state.
type schedSink interface {
	next(ns *schedState, st schedStep)
	violation(st schedStep, rule, proxy string, detail func() string)
	overflow(st schedStep)
}

// machine is a schedule prepared for execution: control-flow partners and
// loop nesting of every op.
type schedMachine struct {
	v     *sc.Value
	match [sc.MaxRoles][sc.MaxOps]int8 // loop<->endloop, if->else/endif, else->endif
	depth [sc.MaxRoles][sc.MaxOps]int8 // enclosing loops (for loop/endloop: the loop's own level)
	encl  [sc.MaxRoles][sc.MaxOps]int8 // innermost enclosing loop op, -1 outside loops
	all   uint8                        // mask of all roles
	// xs are scratch transitions, reused: a sink copies what it keeps.
	xs [2]schedExec
}

func newSchedMachine(v *sc.Value) *schedMachine {
	m := &schedMachine{v: v, all: uint8(1)<<v.NRoles - 1}
	for r, role := range v.RoleList() {
		var stack, loops []int
		for i, o := range role.Program() {
			m.match[r][i] = -1
			m.encl[r][i] = -1
			if len(loops) > 0 {
				m.encl[r][i] = int8(loops[len(loops)-1])
			}
			m.depth[r][i] = int8(len(loops))
			switch o.Code {
			case sc.Loop:
				stack = append(stack, i)
				loops = append(loops, i)
			case sc.If:
				stack = append(stack, i)
			case sc.Else:
				m.match[r][stack[len(stack)-1]] = int8(i)
				stack[len(stack)-1] = i
			case sc.EndLoop:
				open := stack[len(stack)-1]
				stack, loops = stack[:len(stack)-1], loops[:len(loops)-1]
				m.match[r][open], m.match[r][i] = int8(i), int8(open)
				m.depth[r][i] = int8(len(loops))
				m.encl[r][i] = m.encl[r][open]
			case sc.EndIf:
				open := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if role.Ops[open].Code == sc.Else {
					m.match[r][open] = int8(i)
				} else if m.match[r][open] == -1 {
					m.match[r][open] = int8(i)
				}
			}
		}
	}
	return m
}

// local reports whether op code c touches only its role's private state
// (or commutes with every other transition), so the model may run it
// before any other transition without losing a behaviour.
func schedLocal(c sc.Code) bool {
	switch c {
	case sc.Nop, sc.Loop, sc.EndLoop, sc.If, sc.Else, sc.EndIf, sc.RingAdvance,
		sc.WgmmaFence, sc.FenceProxyAsync, sc.FenceTensormapRelease, sc.FenceTensormapAcquire,
		sc.CpAsyncCommit, sc.BulkCommit, sc.WgmmaCommit, sc.CpAsyncWait, sc.BulkWait, sc.WgmmaWait:
		return true
	}
	return false
}

// iteration returns the innermost enclosing loop's iteration and trips for
// op pc of role r (0 of 1 outside loops).
func (m *schedMachine) iteration(s *schedState, r int, pc int) (it, trips int) {
	l := m.encl[r][pc]
	if l < 0 {
		return 0, 1
	}
	return int(s.roles[r].cnt[m.depth[r][l]]), int(m.v.Roles[r].Ops[l].N)
}

func schedEvalCond(c sc.Cond, it, trips int) bool {
	switch c {
	case sc.CondFirst:
		return it == 0
	case sc.CondLast:
		return it == trips-1
	case sc.CondNotFirst:
		return it != 0
	case sc.CondNotLast:
		return it != trips-1
	case sc.CondEven:
		return it%2 == 0
	case sc.CondOdd:
		return it%2 == 1
	}
	return true
}

// exec is one transition in progress: the new state, its label, the sink.
type schedExec struct {
	m  *schedMachine
	ns schedState
	st schedStep
	r  int
	rb uint8
	op sc.Op
	k  schedSink
	ok bool // no violation so far
}

func (x *schedExec) fail(rule, proxy string, detail func() string) {
	if x.ok {
		x.ok = false
		x.k.violation(x.st, rule, proxy, detail)
	}
}

// roleStep runs role r's next op from s; a blocked op emits nothing.
func (m *schedMachine) roleStep(s *schedState, r int, k schedSink) {
	rs := &s.roles[r]
	op := m.v.Roles[r].Ops[rs.pc]
	it, _ := m.iteration(s, r, int(rs.pc))
	x := &m.xs[0]
	*x = schedExec{m: m, ns: *s, r: r, rb: 1 << r, op: op, k: k, ok: true,
		st: schedStep{role: int8(r), pc: rs.pc, a: -1, b: -1, c: -1, bar: -1, par: -1, it: int8(it)}}
	pos := &x.ns.roles[r].ring
	f := op.Code.Fields()
	if f&sc.FA != 0 && (op.Code != sc.Call || op.SmemArg() || op.Effect() != sc.EffectNone) {
		x.st.a = int8(m.v.Resolve(op.A, pos))
	}
	if f&sc.FB != 0 {
		x.st.b = int8(m.v.Resolve(op.B, pos))
	}
	if f&sc.FC != 0 {
		x.st.c = int8(m.v.Resolve(op.C, pos))
	}
	if f&sc.FBar != 0 {
		x.st.bar = int8(m.v.Resolve(op.Bar, pos))
	}
	if op.Code == sc.If && op.Cond() == sc.CondAny {
		for _, taken := range []bool{true, false} {
			y := &m.xs[1]
			*y = *x
			y.st.par = 0
			if taken {
				y.st.par = 1
			}
			y.branch(taken)
			k.next(&y.ns, y.st)
		}
		return
	}
	if !x.run() {
		return // blocked
	}
	if x.ok {
		k.next(&x.ns, x.st)
	}
}

// run executes the op; it returns false when the op is blocked.
func (x *schedExec) run() bool {
	rs := &x.ns.roles[x.r]
	switch x.op.Code {
	case sc.Loop, sc.EndLoop, sc.If, sc.Else, sc.EndIf:
		x.control()
		return true
	case sc.MbarTryWait:
		return x.tryWait()
	case sc.BarSync:
		x.barSync()
		return true
	}
	x.memOp()
	rs.pc++
	return true
}

// control runs loop, endloop, if (deterministic), else and endif.
func (x *schedExec) control() {
	rs := &x.ns.roles[x.r]
	pc := int(rs.pc)
	m := x.m
	switch x.op.Code {
	case sc.Loop:
		rs.cnt[m.depth[x.r][pc]] = 0
		rs.pc++
	case sc.EndLoop:
		d := m.depth[x.r][pc]
		open := int(m.match[x.r][pc])
		rs.cnt[d]++
		if int(rs.cnt[d]) < int(m.v.Roles[x.r].Ops[open].N) {
			rs.pc = uint8(open + 1)
		} else {
			rs.cnt[d] = 0
			rs.pc++
		}
	case sc.If:
		it, trips := m.iteration(&x.ns, x.r, pc)
		x.branch(schedEvalCond(x.op.Cond(), it, trips))
	case sc.Else:
		rs.pc = uint8(m.match[x.r][pc] + 1)
	case sc.EndIf:
		rs.pc++
	}
}

// branch enters the then-branch of an if, or skips to its else or endif.
func (x *schedExec) branch(taken bool) {
	rs := &x.ns.roles[x.r]
	if taken {
		rs.pc++
		return
	}
	rs.pc = uint8(x.m.match[x.r][rs.pc] + 1)
}

// memOp runs every op that always proceeds to the next pc.
func (x *schedExec) memOp() {
	rs := &x.ns.roles[x.r]
	st := x.st
	switch x.op.Code {
	case sc.RingAdvance:
		rs.ring[x.op.N]++
	case sc.LdShared, sc.Ldmatrix, sc.Tcgen05Ld:
		x.generic(st.a, false)
	case sc.StShared, sc.Stmatrix:
		x.generic(st.a, true)
	case sc.CpAsync:
		if x.ordered(st.a, true) {
			x.launch(schedFlight{kind: schedFlCpAsync, a: st.a, b: -1, c: -1, bar: -1, group: rs.cpSeq})
		}
	case sc.CpAsyncCommit:
		rs.cpSeq++
	case sc.BulkCommit:
		rs.bulkSeq++
	case sc.WgmmaCommit:
		rs.wgSeq++
	case sc.CpAsyncWait, sc.BulkWait, sc.WgmmaWait:
		x.waitGroup()
	case sc.TMALoad, sc.TMAStore:
		x.tma()
	case sc.WgmmaFence:
		rs.wgFenced = true
	case sc.Wgmma:
		if !rs.wgFenced {
			x.fail(UBWgmmaFence, "", func() string {
				return fmt.Sprintf("role %d issued wgmma.mma_async without a wgmma.fence before its first wgmma", x.r)
			})
			return
		}
		if x.async(st.a, false, "wgmma.mma_async") && x.async(st.b, false, "wgmma.mma_async") {
			x.launch(schedFlight{kind: schedFlWgmma, a: st.a, b: st.b, c: -1, bar: -1, group: rs.wgSeq})
		}
	case sc.Tcgen05MMA:
		if x.async(st.a, false, "tcgen05.mma") && x.async(st.b, false, "tcgen05.mma") && x.ordered(st.c, true) {
			x.launch(schedFlight{kind: schedFlMMA, a: st.a, b: st.b, c: st.c, bar: -1, group: rs.tcSeq})
		}
	case sc.Tcgen05Commit:
		if x.useBar(st.bar) {
			x.launch(schedFlight{kind: schedFlCommit, a: -1, b: -1, c: -1, bar: st.bar, group: rs.tcSeq})
			rs.tcSeq++
		}
	default:
		x.mbarOrFence()
	}
}

// mbarOrFence runs the mbarrier ops, fences, tensor-map updates and calls.
func (x *schedExec) mbarOrFence() {
	st := x.st
	switch x.op.Code {
	case sc.MbarInit:
		x.initBar(int(st.bar))
	case sc.MbarInval:
		if x.useBar(st.bar) {
			x.ns.bars[st.bar] = schedBarSt{}
			x.ns.barK[st.bar] = schedKnow{}
		}
	case sc.MbarArrive:
		if x.useBar(st.bar) {
			x.arrive(int(st.bar), true, x.op.N, x.op.NoComplete())
		}
	case sc.MbarArriveExpectTx:
		if x.useBar(st.bar) && x.addTx(int(st.bar), int64(x.op.N)) {
			x.arrive(int(st.bar), true, 1, false)
		}
	case sc.MbarExpectTx:
		if x.useBar(st.bar) && x.addTx(int(st.bar), int64(x.op.N)) {
			x.maybeComplete(int(st.bar), false)
		}
	case sc.FenceProxyAsync:
		if x.op.Space() != sc.SpaceGlobal {
			for i := range x.ns.bufs {
				b := &x.ns.bufs[i]
				if b.wValid && !b.wAsync && b.w.seen&x.rb != 0 {
					b.wf.seen |= x.rb
				}
			}
		}
	case sc.FenceTensormapRelease:
		for i := range x.ns.tmaps {
			t := &x.ns.tmaps[i]
			if t.wValid && t.w.seen&x.rb != 0 {
				t.rel.seen |= x.rb
			}
		}
	case sc.FenceTensormapAcquire:
		t := &x.ns.tmaps[x.op.TMap]
		if t.wValid && t.rel.seen&x.rb != 0 {
			t.acq |= x.rb
		}
	case sc.TensormapReplace:
		x.replaceTmap(int(x.op.TMap))
	case sc.Call:
		switch x.op.Effect() {
		case sc.EffectGeneric:
			x.generic(st.a, true)
		case sc.EffectAsync:
			if x.async(st.a, false, "an opaque call") {
				x.ns.readRecord(st.a, x.r, schedKnow{seen: x.rb})
			}
		}
	}
}

func (x *schedExec) launch(f schedFlight) {
	i := x.ns.freeFlight()
	if i < 0 {
		x.ok = false
		x.k.overflow(x.st)
		return
	}
	f.role = uint8(x.r)
	x.ns.fl[i] = f
	if f.kind == schedFlCommit {
		x.ns.snapshotCommit(x.r, i)
	}
}

// conflict returns the in-flight op that conflicts with an access to buffer
// b, or -1. In-flight tcgen05.mma ops of the accessing role do not conflict
// with its next tcgen05.mma (they execute in order).
func (x *schedExec) conflict(b int8, write bool) int {
	for i := range x.ns.fl {
		f := &x.ns.fl[i]
		if f.kind == schedFlFree || (f.kind == schedFlMMA && x.op.Code == sc.Tcgen05MMA && int(f.role) == x.r) {
			continue
		}
		if f.writes(b) || (write && f.reads(b)) {
			return i
		}
	}
	return -1
}

var schedFlightNames = [...]string{schedFlFree: "?", schedFlTMALoad: "cp.async.bulk.tensor.load", schedFlTMAStore: "cp.async.bulk.tensor.store",
	schedFlWgmma: "wgmma.mma_async", schedFlMMA: "tcgen05.mma", schedFlCpAsync: "cp.async", schedFlCommit: "tcgen05.commit"}

// ordered checks that role r is ordered after buffer b's in-flight ops,
// last write and (for a write) reads, reporting a race otherwise.
func (x *schedExec) ordered(b int8, write bool) bool {
	what := func() string { return fmt.Sprintf("%s of buffer %d by role %d", x.op.Code, b, x.r) }
	if i := x.conflict(b, write); i >= 0 {
		f := x.ns.fl[i]
		x.fail(Race, "", func() string {
			return fmt.Sprintf("%s while %s (role %d) on it is in flight", what(), schedFlightNames[f.kind], f.role)
		})
		return false
	}
	buf := &x.ns.bufs[b]
	sameMMA := x.op.Code == sc.Tcgen05MMA && buf.w.tc&x.rb != 0 // tcgen05 ops of one thread run in order
	if buf.wValid && buf.w.seen&x.rb == 0 && !sameMMA {
		x.fail(Race, "", func() string { return what() + " is not ordered after the buffer's last write" })
		return false
	}
	if write && !schedReadsOrdered(&buf.r, buf.rValid, x.rb) {
		x.fail(Race, "", func() string { return what() + " is not ordered after the buffer's earlier reads" })
		return false
	}
	return true
}

// generic is a generic-proxy access (or a tensor-memory access) of b by
// role r, completed at once unless the caller launches it.
func (x *schedExec) generic(b int8, write bool) bool {
	if !x.ordered(b, write) {
		return false
	}
	if write {
		x.ns.writeRecord(b, schedKnow{seen: x.rb}, false)
	} else {
		x.ns.readRecord(b, x.r, schedKnow{seen: x.rb})
	}
	return true
}

// async checks an async-proxy access of shared buffer b issued by role r:
// besides ordering, a generic write before it needs a fence.proxy.async
// between them (in the writer, or in r after synchronizing).
func (x *schedExec) async(b int8, write bool, what string) bool {
	if !x.ordered(b, write) {
		return false
	}
	buf := &x.ns.bufs[b]
	if x.m.v.Buffers[b] == sc.Smem && buf.wValid && !buf.wAsync && buf.wf.seen&x.rb == 0 {
		x.fail(ProxyHazard, ProxyAsync, func() string {
			return fmt.Sprintf("async-proxy access of buffer %d by %s (role %d) after a generic-proxy write with no fence.proxy.async between them", b, what, x.r)
		})
		return false
	}
	return true
}

// useBar checks that mbarrier b is initialized and role r is ordered after
// its init.
func (x *schedExec) useBar(b int8) bool {
	if !x.ns.bars[b].init {
		x.fail(UBUninit, "", func() string {
			return fmt.Sprintf("%s on mbarrier %d, which is not initialized (or was invalidated)", x.op.Code, b)
		})
		return false
	}
	if x.ns.barK[b].seen&x.rb == 0 {
		x.fail(Race, "", func() string {
			return fmt.Sprintf("%s on mbarrier %d by role %d is not ordered after its mbarrier.init", x.op.Code, b, x.r)
		})
		return false
	}
	return true
}

func (x *schedExec) initBar(b int) {
	bar := &x.ns.bars[b]
	if bar.init {
		x.fail(UBReinit, "", func() string {
			return fmt.Sprintf("mbarrier.init of mbarrier %d, initialized and not invalidated", b)
		})
		return
	}
	n := x.op.N
	if n < 1 || n > sc.MbarMax {
		x.fail(UBInitCount, "", func() string { return fmt.Sprintf("mbarrier.init of mbarrier %d with count %d", b, n) })
		return
	}
	*bar = schedBarSt{init: true, count: n, pending: n}
	x.ns.barK[b] = schedKnow{seen: x.rb}
}

// arrive is an arrive-on of count at mbarrier b; byRole releases role r's
// knowledge (async arrivals carry only their own records).
func (x *schedExec) arrive(b int, byRole bool, count uint32, noComplete bool) {
	bar := &x.ns.bars[b]
	if bar.ph >= 1 && !bar.observed {
		x.fail(UBUnobserved, "", func() string {
			return fmt.Sprintf("arrival on mbarrier %d in phase %d before any try_wait observed phase %d complete", b, bar.ph, bar.ph-1)
		})
		return
	}
	if byRole {
		x.ns.release(x.r, b)
	}
	if count > bar.pending {
		x.fail(UBPending, "", func() string {
			return fmt.Sprintf("arrival count %d on mbarrier %d with %d arrivals pending", count, b, bar.pending)
		})
		return
	}
	bar.pending -= count
	x.maybeComplete(b, noComplete)
}

func (x *schedExec) maybeComplete(b int, noComplete bool) {
	bar := &x.ns.bars[b]
	if bar.pending != 0 || bar.tx != 0 {
		return
	}
	if noComplete {
		x.fail(UBNoComplete, "", func() string {
			return fmt.Sprintf("mbarrier.arrive.noComplete completed phase %d of mbarrier %d", bar.ph, b)
		})
		return
	}
	x.ns.completePhase(b)
}

// addTx adds n (negative for complete-tx) to b's tx-count.
func (x *schedExec) addTx(b int, n int64) bool {
	bar := &x.ns.bars[b]
	tx := int64(bar.tx) + n
	if tx > sc.MbarMax || tx < -sc.MbarMax {
		x.fail(UBTxRange, "", func() string {
			return fmt.Sprintf("tx-count of mbarrier %d would be %d, outside -(2^20-1)..2^20-1", b, tx)
		})
		return false
	}
	bar.tx = int32(tx)
	return true
}

func (x *schedExec) tryWait() bool {
	b := x.st.bar
	bar := &x.ns.bars[b]
	if bar.init && x.ns.barK[b].seen&x.rb != 0 {
		par := x.m.v.ResolveParity(x.op, &x.ns.roles[x.r].ring)
		x.st.par = int8(par)
		if int(bar.ph&1) == par {
			return false // the phase named is the current one: blocked
		}
		x.ns.acquire(x.r, int(b))
		if bar.ph >= 1 {
			bar.observed = true
		}
		x.ns.roles[x.r].pc++
		return true
	}
	x.useBar(b) // reports the violation
	return true
}

func (x *schedExec) barSync() {
	rs := &x.ns.roles[x.r]
	id := x.op.Bar.Base
	nb := &x.ns.named[id]
	need := uint8(x.op.N)
	if need == 0 {
		need = x.m.v.NRoles
	}
	if nb.need == 0 {
		nb.need = need
	}
	nb.arrived |= x.rb
	if bits.OnesCount8(nb.arrived) < int(nb.need) {
		rs.inBar = true
		return
	}
	x.ns.join(nb.arrived)
	for q := range x.ns.roles {
		if nb.arrived&(1<<q) != 0 {
			x.ns.roles[q].inBar = false
			x.ns.roles[q].pc++
		}
	}
	*nb = schedNamedSt{}
}

// waitGroup completes the role's async groups older than the N newest.
func (x *schedExec) waitGroup() {
	rs := &x.ns.roles[x.r]
	n := uint16(x.op.N)
	me := schedKnow{seen: x.rb}
	for i := range x.ns.fl {
		f := &x.ns.fl[i]
		if int(f.role) != x.r {
			continue
		}
		switch {
		case x.op.Code == sc.CpAsyncWait && f.kind == schedFlCpAsync && f.group+n < rs.cpSeq:
			x.ns.writeRecord(f.a, me, false)
			*f = schedFlight{}
		case x.op.Code == sc.WgmmaWait && f.kind == schedFlWgmma && f.group+n < rs.wgSeq:
			x.ns.readRecord(f.a, x.r, me)
			x.ns.readRecord(f.b, x.r, me)
			*f = schedFlight{}
		case x.op.Code == sc.BulkWait && f.kind == schedFlTMAStore && f.group+n < rs.bulkSeq:
			if !f.readDone {
				x.ns.readRecord(f.a, x.r, me)
				f.readDone = true
			}
			if !x.op.Read() {
				*f = schedFlight{}
			}
		}
	}
}

// tma issues a TMA load or store.
func (x *schedExec) tma() {
	st := x.st
	rs := &x.ns.roles[x.r]
	load := x.op.Code == sc.TMALoad
	if load && !x.useBar(st.bar) {
		return
	}
	if !x.useTmap(int(x.op.TMap)) {
		return
	}
	if !x.async(st.a, load, x.op.Code.String()) {
		return
	}
	tile := uint8(x.m.v.ResolveTile(x.op.Tile, &rs.ring))
	for i := range x.ns.fl {
		f := x.ns.fl[i]
		if (f.kind == schedFlTMAStore || (f.kind == schedFlTMALoad && !load)) && f.tmap == x.op.TMap && f.tile == tile {
			same := f.kind == schedFlTMAStore && !load && int(f.role) == x.r && f.group == rs.bulkSeq
			x.fail(Race, "", func() string {
				d := fmt.Sprintf("%s of tensor map %d tile %d by role %d while %s (role %d) of the same tile is in flight",
					x.op.Code, x.op.TMap, tile, x.r, schedFlightNames[f.kind], f.role)
				if same {
					d += " in the same bulk async-group (no ordering within a group)"
				}
				return d
			})
			return
		}
	}
	f := schedFlight{kind: schedFlTMAStore, a: st.a, b: -1, c: -1, bar: -1, tmap: x.op.TMap, tile: tile, group: rs.bulkSeq}
	if load {
		f.kind, f.bar, f.bytes = schedFlTMALoad, st.bar, x.op.N
	}
	x.launch(f)
}

// useTmap checks a TMA op's read of tensor map t through the tensormap
// proxy: after a generic update it needs a release fence (by the updater)
// and an acquire fence (by this role).
func (x *schedExec) useTmap(t int) bool {
	tm := &x.ns.tmaps[t]
	if tm.wValid {
		if tm.w.seen&x.rb == 0 {
			x.fail(Race, "", func() string {
				return fmt.Sprintf("%s by role %d reads tensor map %d, not ordered after its update", x.op.Code, x.r, t)
			})
			return false
		}
		if tm.acq&x.rb == 0 {
			missing := "fence.proxy.tensormap::generic.acquire"
			if tm.rel.seen&x.rb == 0 {
				missing = "fence.proxy.tensormap::generic.release"
			}
			x.fail(ProxyHazard, ProxyTensormap, func() string {
				return fmt.Sprintf("%s by role %d uses tensor map %d after a generic update without %s", x.op.Code, x.r, t, missing)
			})
			return false
		}
	}
	if tm.rValid&x.rb == 0 {
		tm.r[x.r] = schedKnow{seen: x.rb}
		tm.rValid |= x.rb
	} else {
		tm.r[x.r].and(schedKnow{seen: x.rb})
	}
	return true
}

func (x *schedExec) replaceTmap(t int) {
	tm := &x.ns.tmaps[t]
	if (tm.wValid && tm.w.seen&x.rb == 0) || !schedReadsOrdered(&tm.r, tm.rValid, x.rb) {
		x.fail(Race, "", func() string {
			return fmt.Sprintf("tensormap.replace of tensor map %d by role %d is not ordered after its earlier update or uses", t, x.r)
		})
		return
	}
	*tm = schedTmapSt{w: schedKnow{seen: x.rb}, wValid: true}
}

// asyncStep completes in-flight op i: a TMA load's write lands and
// complete-tx hits its mbarrier; a tcgen05.commit's tracked MMAs finish and
// it arrives on its mbarrier.
func (m *schedMachine) asyncStep(s *schedState, i int, k schedSink) {
	f := s.fl[i]
	x := &m.xs[0]
	*x = schedExec{m: m, ns: *s, r: -1, k: k, ok: true,
		st: schedStep{role: -1, flight: f.kind, issuer: int8(f.role), a: f.a, b: -1, c: -1, bar: f.bar, par: -1, it: -1}}
	x.ns.fl[i] = schedFlight{}
	bb := schedKnow{acc: uint16(1) << f.bar}
	if f.kind == schedFlCommit {
		for j := range x.ns.fl {
			g := &x.ns.fl[j]
			if g.kind == schedFlMMA && g.role == f.role && g.group <= f.group {
				// Later commits of the role track this MMA too: their
				// arrivals release its accesses as well.
				k := bb
				k.tc = 1 << g.role
				for l := range x.ns.fl {
					h := &x.ns.fl[l]
					if h.kind == schedFlCommit && h.role == g.role && h.group >= g.group {
						k.commits |= 1 << l
					}
				}
				x.ns.readRecord(g.a, int(g.role), k)
				x.ns.readRecord(g.b, int(g.role), k)
				x.ns.writeRecord(g.c, k, true)
				*g = schedFlight{}
			}
		}
	}
	b := int(f.bar)
	if f.kind == schedFlCommit {
		x.ns.releaseCommit(i, b)
	}
	if !x.ns.bars[b].init {
		x.fail(UBUninit, "", func() string {
			return fmt.Sprintf("%s completes on mbarrier %d, which is not initialized (or was invalidated)", schedFlightNames[f.kind], b)
		})
		return
	}
	if f.kind == schedFlTMALoad {
		x.ns.writeRecord(f.a, bb, true)
		if x.addTx(b, -int64(f.bytes)) {
			x.maybeComplete(b, false)
		}
	} else {
		x.arrive(b, false, 1, false)
	}
	if x.ok {
		k.next(&x.ns, x.st)
	}
}
