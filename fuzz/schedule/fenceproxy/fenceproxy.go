// Package fenceproxy is an algorithm under test: TileLang's InjectFenceProxy
// pass as seed 002 describes it, blind spots included. Per role, it walks
// the program in order with a may-set of proxy states (none, generic,
// async), merges branches conservatively and iterates loops to a fixpoint,
// and inserts fence.proxy.async right before an async-proxy op (TMA load or
// store, wgmma) whenever the state before it may be generic. Generic ops are
// st.shared, ldmatrix, stmatrix, cp.async and opaque calls with a
// shared-memory pointer; every other op (ld.shared, tcgen05.mma, tensor-map
// updates, calls without such a pointer, mbarrier and sync ops) has no proxy
// effect. It also normalizes every TMA store to be followed by its
// tma_store_arrive / tma_store_wait handshake (cp.async.bulk.commit_group,
// cp.async.bulk.wait_group.read 0).
//
// The pass knows nothing of other roles: a generic write in one role and an
// async read in another are never fenced, which is what the model judges.
package fenceproxy

import (
	"fmt"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

// Proxy states, as a may-set.
const (
	none    = 1 << 0
	generic = 1 << 1
	async   = 1 << 2
)

// Site is an inserted op: its role and index in the output.
type Site struct{ Role, PC int }

// Result is the output of the pass.
type Result struct {
	V sc.Value
	// Fences are the fence.proxy.async ops the pass inserted.
	Fences []Site
	// Handshakes counts TMA stores that got their commit/wait inserted.
	Handshakes int
}

// ErrCapacity says the output does not fit MaxOps ops in a role.
var ErrCapacity = fmt.Errorf("fenceproxy: output exceeds %d ops in a role", sc.MaxOps)

// Strip returns v without its fence.proxy.async ops (tensormap fences stay).
func Strip(v sc.Value) sc.Value {
	out := v
	for r := range v.RoleList() {
		role := &out.Roles[r]
		var ops []sc.Op
		for _, o := range v.Roles[r].Program() {
			if o.Code != sc.FenceProxyAsync {
				ops = append(ops, o)
			}
		}
		role.Ops = [sc.MaxOps]sc.Op{}
		copy(role.Ops[:], ops)
		role.NOps = uint8(len(ops))
	}
	return out
}

// Reinsert runs the pass on v with its fence.proxy.async ops stripped: the
// fences the pass places on its own, as the fenceproxy oracle judges them.
func Reinsert(v sc.Value) (Result, error) { return Inject(Strip(v)) }

// class is the pass's view of an op.
func class(o sc.Op) int {
	switch o.Code {
	case sc.TMALoad, sc.TMAStore, sc.Wgmma:
		return async
	case sc.StShared, sc.Ldmatrix, sc.Stmatrix, sc.CpAsync:
		return generic
	case sc.Call:
		if o.SmemArg() {
			return generic
		}
	case sc.FenceProxyAsync:
		return none
	}
	return 0 // no proxy effect
}

// Inject runs the pass over every role of v.
func Inject(v sc.Value) (Result, error) {
	res := Result{V: v}
	for r := range v.RoleList() {
		p := &pass{in: v.Roles[r].Program(), role: r}
		p.rewrite(0, len(p.in), none)
		if len(p.out) > sc.MaxOps {
			return Result{}, ErrCapacity
		}
		role := &res.V.Roles[r]
		role.Ops = [sc.MaxOps]sc.Op{}
		copy(role.Ops[:], p.out)
		role.NOps = uint8(len(p.out))
		res.Fences = append(res.Fences, p.fences...)
		res.Handshakes += p.handshakes
	}
	if err := res.V.Validate(); err != nil {
		return Result{}, fmt.Errorf("fenceproxy: output invalid: %w", err)
	}
	return res, nil
}

type pass struct {
	in         []sc.Op
	out        []sc.Op
	role       int
	fences     []Site
	handshakes int
}

// analyze returns the state after in[lo:hi] from state st, without output.
func (p *pass) analyze(lo, hi, st int) int {
	q := &pass{in: p.in}
	return q.walk(lo, hi, st, false)
}

// rewrite emits in[lo:hi] with fences and handshakes, from state st.
func (p *pass) rewrite(lo, hi, st int) int { return p.walk(lo, hi, st, true) }

func (p *pass) walk(lo, hi, st int, emit bool) int {
	for i := lo; i < hi; i++ {
		o := p.in[i]
		switch o.Code {
		case sc.Loop:
			end := sc.BlockEnd(p.in, i)
			entry := st
			for {
				next := entry | p.analyze(i+1, end, entry)
				if next == entry {
					break
				}
				entry = next
			}
			p.put(emit, o)
			st = p.walk(i+1, end, entry, emit)
			p.put(emit, p.in[end])
			i = end
		case sc.If:
			els, end := sc.IfParts(p.in, i)
			p.put(emit, o)
			thenSt := p.walk(i+1, els, st, emit)
			elseSt := st
			if els != end {
				p.put(emit, p.in[els])
				elseSt = p.walk(els+1, end, st, emit)
			}
			p.put(emit, p.in[end])
			st = thenSt | elseSt
			i = end
		default:
			st = p.op(i, st, emit)
		}
	}
	return st
}

// op emits one non-control op and returns the state after it.
func (p *pass) op(i, st int, emit bool) int {
	o := p.in[i]
	c := class(o)
	if c == async && st&generic != 0 {
		if emit {
			p.fences = append(p.fences, Site{p.role, len(p.out)})
		}
		p.put(emit, sc.Op{Code: sc.FenceProxyAsync})
	}
	p.put(emit, o)
	if o.Code == sc.TMAStore && !p.hasHandshake(i) {
		p.put(emit, sc.Op{Code: sc.BulkCommit})
		p.put(emit, sc.Op{Code: sc.BulkWait}.WithFlags(false, true, 0, false, 0))
		if emit {
			p.handshakes++
		}
	}
	if c != 0 {
		return c
	}
	return st
}

func (p *pass) hasHandshake(i int) bool {
	return i+2 < len(p.in) && p.in[i+1].Code == sc.BulkCommit &&
		p.in[i+2].Code == sc.BulkWait && p.in[i+2].N == 0 && p.in[i+2].Read()
}

func (p *pass) put(emit bool, o sc.Op) {
	if emit {
		p.out = append(p.out, o)
	}
}
