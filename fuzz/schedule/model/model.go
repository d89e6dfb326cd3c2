// Package model is the reference semantics of schedules (fuzz/schedule):
// an explicit-state checker that runs a schedule's
// roles and its async operations (TMA loads landing, tcgen05.commit
// arrivals) in every interleaving, breadth first, with a visited set, up to
// a bound on the number of states. Ops that touch only their role's private
// state run before any other transition (a persistent-set reduction that
// keeps every deadlock and every violation). A violating transition is
// recorded with its witness (the shortest interleaving that reaches it) and
// not explored further. Exceeding the bound makes the result incomplete:
// violations found are real, but "no violation" becomes "bound exceeded",
// never ok.
//
// The ptxisa rule set of oracles/rules judges schedules with it, and
// the schedule fuzz targets check it; its rule names are the last part of
// that rule set's rule IDs ("ptxisa.schedule.race").
package model

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"strings"
	"time"
	"unsafe"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// Finding is one violation found by the model.
type Finding struct {
	// Rule is the model rule: "deadlock", "race", "proxy-hazard",
	// "ub.<which>", or "operand-space" (found without exploring).
	Rule string `json:"rule"`
	// Proxy says which cross-proxy rule a proxy hazard broke: "async"
	// (generic <-> async) or "tensormap".
	Proxy  string `json:"proxy,omitempty"`
	Detail string `json:"detail"`
	// Witness is the interleaving that reaches the violation, one step a
	// line; control-flow steps are left out.
	Witness []string `json:"witness,omitempty"`
}

// Result is what the model found about one schedule.
type Result struct {
	States      int  `json:"states"`
	Transitions int  `json:"transitions"`
	Complete    bool `json:"complete"` // every reachable state was explored
	// Findings holds the first witness of each rule (and proxy kind), in
	// the order found.
	Findings []Finding     `json:"findings,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// Find returns the finding of rule, or nil.
func (r *Result) Find(rule string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Rule == rule {
			return &r.Findings[i]
		}
	}
	return nil
}

// FindProxy returns the proxy hazard of the given kind, or nil.
func (r *Result) FindProxy(kind string) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Rule == ProxyHazard && r.Findings[i].Proxy == kind {
			return &r.Findings[i]
		}
	}
	return nil
}

// VerdictOrder is the order in which the ptxisa ladder reports the
// model's findings when a schedule has several.
var VerdictOrder = []string{OperandSpace, UBUninit, UBReinit, UBInitCount, UBNoComplete, UBTxRange,
	UBPending, UBUnobserved, UBWgmmaFence, Race, ProxyHazard, Deadlock}

// Verdict is "ok", the first finding's rule in VerdictOrder, or
// "bound-exceeded" when nothing was found in an incomplete exploration.
func (r *Result) Verdict() string {
	for _, rule := range VerdictOrder {
		if r.Find(rule) != nil {
			return rule
		}
	}
	if !r.Complete {
		return BoundExceeded
	}
	return "ok"
}

// Check runs the model on v with v's own state bound.
func Check(v sc.Value) *Result { return CheckBound(v, v.StateBound()) }

// CheckBound runs the model on v, exploring at most bound states.
func CheckBound(v sc.Value, bound int) *Result {
	start := time.Now()
	res := &Result{}
	if f := schedStaticCheck(&v); f != nil {
		res.Findings = append(res.Findings, *f)
		res.Complete = true
		res.Elapsed = time.Since(start)
		return res
	}
	e := &schedExplorer{m: newSchedMachine(&v), limit: bound, res: res, seen: map[[2]uint64]int32{}}
	e.run()
	res.States = len(e.nodes)
	res.Transitions = e.trans
	res.Complete = !e.bounded
	res.Elapsed = time.Since(start)
	return res
}

// schedStaticCheck finds what needs no exploration: operands in the
// wrong memory and preinitialized mbarriers with an impossible count.
func schedStaticCheck(v *sc.Value) *Finding {
	for i, b := range v.Barriers[:v.NBarriers] {
		if b.Preinit && (b.Count < 1 || b.Count > sc.MbarMax) {
			return &Finding{Rule: UBInitCount, Detail: fmt.Sprintf("mbarrier %d is initialized with count %d", i, b.Count)}
		}
	}
	for r, role := range v.RoleList() {
		for pc, o := range role.Program() {
			if msg := schedOperandSpace(v, o); msg != "" {
				return &Finding{Rule: OperandSpace, Detail: fmt.Sprintf("role %d op %d %s: %s", r, pc, o.Code, msg)}
			}
		}
	}
	return nil
}

// operandSpace checks every buffer an op may name (each slot of a ring)
// against the memory the op accesses.
func schedOperandSpace(v *sc.Value, o sc.Op) string {
	check := func(name string, ref sc.Ref, want sc.BufSpace) string {
		n := 1
		if ref.Ring != 0 {
			n = int(v.Rings[ref.Ring-1])
		}
		for i := range n {
			if b := int(ref.Base) + i; v.Buffers[b] != want {
				return fmt.Sprintf("operand %s names buffer %d in %s, want %s", name, b, sc.BufSpaces.Name(int(v.Buffers[b])), sc.BufSpaces.Name(int(want)))
			}
		}
		return ""
	}
	var msgs []string
	switch o.Code {
	case sc.LdShared, sc.StShared, sc.Ldmatrix, sc.Stmatrix, sc.CpAsync, sc.TMALoad, sc.TMAStore:
		msgs = append(msgs, check("a", o.A, sc.Smem))
	case sc.Wgmma:
		msgs = append(msgs, check("a", o.A, sc.Smem), check("b", o.B, sc.Smem))
	case sc.Tcgen05MMA:
		msgs = append(msgs, check("a", o.A, sc.Smem), check("b", o.B, sc.Smem), check("d", o.C, sc.Tmem))
	case sc.Tcgen05Ld:
		msgs = append(msgs, check("a", o.A, sc.Tmem))
	case sc.Call:
		if o.SmemArg() || o.Effect() != sc.EffectNone {
			msgs = append(msgs, check("a", o.A, sc.Smem))
		}
	}
	for _, m := range msgs {
		if m != "" {
			return m
		}
	}
	return ""
}

type schedNode struct {
	parent int32
	st     schedStep
}

type schedQueued struct {
	s   schedState
	idx int32
}

// explorer is the breadth-first search; it is the sink of every expanded
// state's transitions.
type schedExplorer struct {
	m         *schedMachine
	limit     int
	res       *Result
	seen      map[[2]uint64]int32
	nodes     []schedNode
	level     []schedQueued
	nextLevel []schedQueued
	cur       int32
	enabled   int
	trans     int
	bounded   bool
}

var schedHashSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// key hashes a state's bytes (128 bits: a collision is astronomically
// unlikely at these sizes). Padding is never written, so equal states have
// equal bytes.
func schedKey(s *schedState) [2]uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(s)), unsafe.Sizeof(*s))
	return [2]uint64{maphash.Bytes(schedHashSeeds[0], b), maphash.Bytes(schedHashSeeds[1], b)}
}

func (e *schedExplorer) initial() schedState {
	var s schedState
	v := e.m.v
	for i, b := range v.Barriers[:v.NBarriers] {
		if b.Preinit {
			s.bars[i] = schedBarSt{init: true, count: b.Count, pending: b.Count}
			s.barK[i] = schedKnow{seen: e.m.all}
		}
	}
	return s
}

func (e *schedExplorer) run() {
	s0 := e.initial()
	e.seen[schedKey(&s0)] = 0
	e.nodes = append(e.nodes, schedNode{parent: -1})
	e.level = []schedQueued{{s: s0, idx: 0}}
	for len(e.level) > 0 {
		for i := range e.level {
			e.cur = e.level[i].idx
			e.expand(&e.level[i].s)
		}
		e.level, e.nextLevel = e.nextLevel, e.level[:0]
	}
}

func (e *schedExplorer) done(s *schedState, r int) bool {
	return int(s.roles[r].pc) == int(e.m.v.Roles[r].NOps) && !s.roles[r].inBar
}

func (e *schedExplorer) expand(s *schedState) {
	m := e.m
	e.enabled = 0
	nr := int(m.v.NRoles)
	for r := range nr {
		rs := &s.roles[r]
		if !e.done(s, r) && !rs.inBar && schedLocal(m.v.Roles[r].Ops[rs.pc].Code) {
			m.roleStep(s, r, e)
			return
		}
	}
	allDone := true
	for r := range nr {
		if !e.done(s, r) {
			allDone = false
			if !s.roles[r].inBar {
				m.roleStep(s, r, e)
			}
		}
	}
	for i := range s.fl {
		f := &s.fl[i]
		if f.kind == schedFlTMALoad || (f.kind == schedFlCommit && schedOldestCommit(s, i)) {
			m.asyncStep(s, i, e)
		}
	}
	if e.enabled == 0 && !allDone {
		e.violation(schedStep{role: -2}, Deadlock, "", func() string { return e.blocked(s) })
	}
}

// oldestCommit reports whether in-flight commit i is its role's oldest:
// one thread's commits arrive in order.
func schedOldestCommit(s *schedState, i int) bool {
	f := &s.fl[i]
	for j := range s.fl {
		g := &s.fl[j]
		if g.kind == schedFlCommit && g.role == f.role && g.group < f.group {
			return false
		}
	}
	return true
}

func (e *schedExplorer) next(ns *schedState, st schedStep) {
	e.enabled++
	e.trans++
	k := schedKey(ns)
	if _, ok := e.seen[k]; ok {
		return
	}
	if len(e.nodes) >= e.limit {
		e.bounded = true
		return
	}
	e.seen[k] = int32(len(e.nodes))
	e.nodes = append(e.nodes, schedNode{parent: e.cur, st: st})
	e.nextLevel = append(e.nextLevel, schedQueued{s: *ns, idx: int32(len(e.nodes) - 1)})
}

func (e *schedExplorer) violation(st schedStep, rule, proxy string, detail func() string) {
	e.enabled++
	e.trans++
	for _, f := range e.res.Findings {
		if f.Rule == rule && f.Proxy == proxy {
			return
		}
	}
	e.res.Findings = append(e.res.Findings, Finding{Rule: rule, Proxy: proxy, Detail: detail(), Witness: e.witness(st)})
}

func (e *schedExplorer) overflow(schedStep) {
	e.enabled++
	e.bounded = true
}

// witnessSteps is how many steps a witness keeps (the last ones).
const schedWitnessSteps = 24

// witness spells the path to the current state plus st.
func (e *schedExplorer) witness(st schedStep) []string {
	var steps []schedStep
	if st.role != -2 {
		steps = append(steps, st)
	}
	for i := e.cur; i > 0; i = e.nodes[i].parent {
		steps = append(steps, e.nodes[i].st)
	}
	var lines []string
	for i := len(steps) - 1; i >= 0; i-- {
		if l := schedRenderStep(e.m.v, steps[i]); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > schedWitnessSteps {
		lines = append([]string{fmt.Sprintf("(%d earlier steps)", len(lines)-schedWitnessSteps)}, lines[len(lines)-schedWitnessSteps:]...)
	}
	return lines
}

// renderStep spells one step; control-flow steps spell as "".
func schedRenderStep(v *sc.Value, st schedStep) string {
	if st.role < 0 {
		s := fmt.Sprintf("async: %s of role %d", schedFlightNames[st.flight], st.issuer)
		if st.flight == schedFlTMALoad {
			s += fmt.Sprintf(" lands in buffer %d", st.a)
		} else {
			s += " fires (its tcgen05.mma ops complete)"
		}
		return s + fmt.Sprintf(", arriving on mbarrier %d", st.bar)
	}
	o := v.Roles[st.role].Ops[st.pc]
	switch o.Code {
	case sc.Nop, sc.Loop, sc.EndLoop, sc.Else, sc.EndIf, sc.RingAdvance:
		return ""
	case sc.If:
		if o.Cond() != sc.CondAny {
			return ""
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "r%d.%d", st.role, st.pc)
	if st.it > 0 {
		fmt.Fprintf(&b, "@%d", st.it)
	}
	b.WriteString(" " + o.Code.String())
	for _, x := range []struct {
		name string
		v    int8
	}{{"a", st.a}, {"b", st.b}, {"d", st.c}, {"bar", st.bar}} {
		if x.v >= 0 {
			if o.Code == sc.BarSync {
				fmt.Fprintf(&b, " id=%d", x.v)
				continue
			}
			fmt.Fprintf(&b, " %s=%d", x.name, x.v)
		}
	}
	switch o.Code {
	case sc.MbarTryWait:
		fmt.Fprintf(&b, " parity=%d", st.par)
	case sc.If:
		fmt.Fprintf(&b, " (taken=%v)", st.par == 1)
	case sc.TMALoad, sc.TMAStore, sc.FenceTensormapAcquire, sc.TensormapReplace:
		fmt.Fprintf(&b, " tmap=%d", o.TMap)
	}
	if o.Code.N() == sc.NBytes || o.Code.N() == sc.NWait || o.Code == sc.MbarArrive && o.N != 1 {
		fmt.Fprintf(&b, " %d", o.N)
	}
	if o.Code == sc.FenceProxyAsync && o.Space() != sc.SpaceAll {
		b.WriteString("." + sc.Spaces.Name(int(o.Space())))
	}
	return b.String()
}

// blocked describes a deadlocked state: each unfinished role's op and the
// mbarrier it waits on.
func (e *schedExplorer) blocked(s *schedState) string {
	v := e.m.v
	var parts []string
	for r := range int(v.NRoles) {
		if e.done(s, r) {
			continue
		}
		rs := &s.roles[r]
		o := v.Roles[r].Ops[rs.pc]
		p := fmt.Sprintf("role %d blocked at op %d %s", r, rs.pc, o.Code)
		switch o.Code {
		case sc.MbarTryWait:
			b := v.Resolve(o.Bar, &rs.ring)
			bar := s.bars[b]
			p += fmt.Sprintf(" mbarrier %d parity %d (phase %d, %d of %d arrivals pending, tx-count %d)",
				b, v.ResolveParity(o, &rs.ring), bar.ph, bar.pending, bar.count, bar.tx)
		case sc.BarSync:
			nb := s.named[o.Bar.Base]
			p += fmt.Sprintf(" id %d (%d of %d roles arrived)", o.Bar.Base, bits.OnesCount8(nb.arrived), nb.need)
		}
		parts = append(parts, p)
	}
	return "deadlock: " + strings.Join(parts, "; ")
}
