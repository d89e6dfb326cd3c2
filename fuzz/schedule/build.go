package schedule

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Fixed is a ref to object i.
func Fixed(i int) Ref { return Ref{Base: uint8(i)} }

// InRing is a ref to base plus the role's position in ring (modulo its stages).
func InRing(base, ring int) Ref { return Ref{Base: uint8(base), Ring: uint8(ring + 1)} }

// Builder assembles a schedule in Go source: seeds, tests and the planners
// use it. Errors (too many objects or ops) are kept and returned by Value.
type Builder struct {
	v   Value
	err error
}

// NewBuilder starts a schedule for t.
func NewBuilder(t target.Target) *Builder { return &Builder{v: Value{Tgt: t}} }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// next counts one more declaration in *n (one of the value's NBuffers,
// NRoles, ...), at most max of them, and returns its index. Past max the
// build fails with "more than max what", and next returns 0, false. Every
// declaration is bounded and numbered this way.
func (b *Builder) next(n *uint8, max int, what string) (int, bool) {
	if int(*n) == max {
		b.fail("more than %d %s", max, what)
		return 0, false
	}
	*n++
	return int(*n) - 1, true
}

// add puts x in the next of the declared slots (n of them used) and returns
// its index; past the last slot it records the error and returns 0.
func add[T any](b *Builder, n *uint8, slots []T, what string, x T) int {
	i, ok := b.next(n, len(slots), what)
	if ok {
		slots[i] = x
	}
	return i
}

// Buffer declares a buffer and returns its index.
func (b *Builder) Buffer(s BufSpace) int {
	return add(b, &b.v.NBuffers, b.v.Buffers[:], "buffers", s)
}

// Barrier declares an mbarrier initialized with count before the roles
// start, and returns its index.
func (b *Builder) Barrier(count int) int {
	return b.barrier(Barrier{Preinit: true, Count: uint32(count)})
}

// UninitBarrier declares an mbarrier that a role must mbarrier.init.
func (b *Builder) UninitBarrier() int { return b.barrier(Barrier{}) }

func (b *Builder) barrier(bar Barrier) int {
	return add(b, &b.v.NBarriers, b.v.Barriers[:], "mbarriers", bar)
}

// Ring declares a circular-buffer ring of stages and returns its index.
func (b *Builder) Ring(stages int) int {
	return add(b, &b.v.NRings, b.v.Rings[:], "rings", uint8(stages))
}

// TensorMap declares a tensor map and returns its index.
func (b *Builder) TensorMap() int {
	i, _ := b.next(&b.v.NTensorMaps, MaxTensorMaps, "tensor maps")
	return i
}

// Role adds a role and returns its op builder.
func (b *Builder) Role(k RoleKind) *RoleBuilder {
	i, ok := b.next(&b.v.NRoles, MaxRoles, "roles")
	if !ok {
		return &RoleBuilder{b: b, role: &Role{}}
	}
	r := &b.v.Roles[i]
	r.Kind = k
	return &RoleBuilder{b: b, role: r}
}

// Value returns the schedule, validated.
func (b *Builder) Value() (Value, error) {
	if b.err != nil {
		return Value{}, b.err
	}
	if err := b.v.Validate(); err != nil {
		return Value{}, err
	}
	return b.v, nil
}

// MustValue is Value for schedules written in Go source; it panics on a
// mistake in that source.
func (b *Builder) MustValue() Value {
	v, err := b.Value()
	if err != nil {
		panic(err)
	}
	return v
}

// RoleBuilder appends ops to one role.
type RoleBuilder struct {
	b    *Builder
	role *Role
}

// Op appends o.
func (r *RoleBuilder) Op(o Op) *RoleBuilder {
	if r.role.NOps == MaxOps {
		r.b.fail("more than %d ops in a role", MaxOps)
		return r
	}
	r.role.Ops[r.role.NOps] = o
	r.role.NOps++
	return r
}

// Ld appends ld.shared a.
func (r *RoleBuilder) Ld(a Ref) *RoleBuilder { return r.Op(Op{Code: LdShared, A: a}) }

// St appends st.shared a.
func (r *RoleBuilder) St(a Ref) *RoleBuilder { return r.Op(Op{Code: StShared, A: a}) }

// Ldmatrix appends ldmatrix from a.
func (r *RoleBuilder) Ldmatrix(a Ref) *RoleBuilder { return r.Op(Op{Code: Ldmatrix, A: a}) }

// Stmatrix appends stmatrix to a.
func (r *RoleBuilder) Stmatrix(a Ref) *RoleBuilder { return r.Op(Op{Code: Stmatrix, A: a}) }

// CpAsync appends cp.async into a.
func (r *RoleBuilder) CpAsync(a Ref) *RoleBuilder { return r.Op(Op{Code: CpAsync, A: a}) }

// CpAsyncCommit appends cp.async.commit_group.
func (r *RoleBuilder) CpAsyncCommit() *RoleBuilder { return r.Op(Op{Code: CpAsyncCommit}) }

// CpAsyncWait appends cp.async.wait_group n.
func (r *RoleBuilder) CpAsyncWait(n int) *RoleBuilder {
	return r.Op(Op{Code: CpAsyncWait, N: uint32(n)})
}

// TMALoad appends a TMA load of bytes into a through tensor map tm,
// completing on bar.
func (r *RoleBuilder) TMALoad(a, bar Ref, tm, bytes int) *RoleBuilder {
	return r.Op(Op{Code: TMALoad, A: a, Bar: bar, TMap: uint8(tm), N: uint32(bytes)})
}

// TMAStore appends a TMA store of a through tensor map tm to tile.
func (r *RoleBuilder) TMAStore(a Ref, tm int, tile Ref) *RoleBuilder {
	return r.Op(Op{Code: TMAStore, A: a, TMap: uint8(tm), Tile: tile})
}

// BulkCommit appends cp.async.bulk.commit_group.
func (r *RoleBuilder) BulkCommit() *RoleBuilder { return r.Op(Op{Code: BulkCommit}) }

// BulkWait appends cp.async.bulk.wait_group{.read} n.
func (r *RoleBuilder) BulkWait(n int, read bool) *RoleBuilder {
	return r.Op(Op{Code: BulkWait, N: uint32(n)}.WithFlags(false, read, 0, false, 0))
}

// WgmmaFence appends wgmma.fence.
func (r *RoleBuilder) WgmmaFence() *RoleBuilder { return r.Op(Op{Code: WgmmaFence}) }

// Wgmma appends wgmma.mma_async reading a and b.
func (r *RoleBuilder) Wgmma(a, b Ref) *RoleBuilder { return r.Op(Op{Code: Wgmma, A: a, B: b}) }

// WgmmaCommit appends wgmma.commit_group.
func (r *RoleBuilder) WgmmaCommit() *RoleBuilder { return r.Op(Op{Code: WgmmaCommit}) }

// WgmmaWait appends wgmma.wait_group n.
func (r *RoleBuilder) WgmmaWait(n int) *RoleBuilder {
	return r.Op(Op{Code: WgmmaWait, N: uint32(n)})
}

// MMA appends tcgen05.mma reading a and b, accumulating into tensor memory d.
func (r *RoleBuilder) MMA(a, b, d Ref) *RoleBuilder {
	return r.Op(Op{Code: Tcgen05MMA, A: a, B: b, C: d})
}

// Commit appends tcgen05.commit arriving on bar.
func (r *RoleBuilder) Commit(bar Ref) *RoleBuilder { return r.Op(Op{Code: Tcgen05Commit, Bar: bar}) }

// TmemLd appends tcgen05.ld from tensor memory a.
func (r *RoleBuilder) TmemLd(a Ref) *RoleBuilder { return r.Op(Op{Code: Tcgen05Ld, A: a}) }

// Init appends mbarrier.init bar, count.
func (r *RoleBuilder) Init(bar Ref, count int) *RoleBuilder {
	return r.Op(Op{Code: MbarInit, Bar: bar, N: uint32(count)})
}

// Arrive appends mbarrier.arrive bar.
func (r *RoleBuilder) Arrive(bar Ref) *RoleBuilder { return r.ArriveN(bar, 1, false) }

// ArriveN appends mbarrier.arrive{.noComplete} bar, count.
func (r *RoleBuilder) ArriveN(bar Ref, count int, noComplete bool) *RoleBuilder {
	return r.Op(Op{Code: MbarArrive, Bar: bar, N: uint32(count)}.WithFlags(noComplete, false, 0, false, 0))
}

// ArriveTx appends mbarrier.arrive.expect_tx bar, bytes.
func (r *RoleBuilder) ArriveTx(bar Ref, bytes int) *RoleBuilder {
	return r.Op(Op{Code: MbarArriveExpectTx, Bar: bar, N: uint32(bytes)})
}

// ExpectTx appends mbarrier.expect_tx bar, bytes.
func (r *RoleBuilder) ExpectTx(bar Ref, bytes int) *RoleBuilder {
	return r.Op(Op{Code: MbarExpectTx, Bar: bar, N: uint32(bytes)})
}

// Wait appends mbarrier.try_wait.parity bar, parity (in a retry loop).
func (r *RoleBuilder) Wait(bar Ref, parity int) *RoleBuilder {
	return r.Op(Op{Code: MbarTryWait, Bar: bar, Parity: uint8(parity)})
}

// Inval appends mbarrier.inval bar.
func (r *RoleBuilder) Inval(bar Ref) *RoleBuilder { return r.Op(Op{Code: MbarInval, Bar: bar}) }

// Fence appends fence.proxy.async with the given state space.
func (r *RoleBuilder) Fence(s Space) *RoleBuilder {
	return r.Op(Op{Code: FenceProxyAsync}.WithFlags(false, false, s, false, 0))
}

// TmapRelease appends fence.proxy.tensormap::generic.release.
func (r *RoleBuilder) TmapRelease() *RoleBuilder { return r.Op(Op{Code: FenceTensormapRelease}) }

// TmapAcquire appends fence.proxy.tensormap::generic.acquire of tensor map tm.
func (r *RoleBuilder) TmapAcquire(tm int) *RoleBuilder {
	return r.Op(Op{Code: FenceTensormapAcquire, TMap: uint8(tm)})
}

// TmapReplace appends a tensor-map update (tensormap.replace) of tm.
func (r *RoleBuilder) TmapReplace(tm int) *RoleBuilder {
	return r.Op(Op{Code: TensormapReplace, TMap: uint8(tm)})
}

// BarSync appends bar.sync id with count roles (0: all roles).
func (r *RoleBuilder) BarSync(id, count int) *RoleBuilder {
	return r.Op(Op{Code: BarSync, Bar: Fixed(id), N: uint32(count)})
}

// Call appends an opaque call; a is its buffer when it takes a shared-memory
// pointer or has an effect.
func (r *RoleBuilder) Call(a Ref, smemArg bool, eff Effect) *RoleBuilder {
	o := Op{Code: Call}.WithFlags(false, false, 0, smemArg, eff)
	if smemArg || eff != EffectNone {
		o.A = a
	}
	return r.Op(o)
}

// Loop opens a loop of trips iterations.
func (r *RoleBuilder) Loop(trips int) *RoleBuilder { return r.Op(Op{Code: Loop, N: uint32(trips)}) }

// EndLoop closes the innermost loop.
func (r *RoleBuilder) EndLoop() *RoleBuilder { return r.Op(Op{Code: EndLoop}) }

// If opens a branch on c.
func (r *RoleBuilder) If(c Cond) *RoleBuilder { return r.Op(Op{Code: If, N: uint32(c)}) }

// Else starts the innermost if's else branch.
func (r *RoleBuilder) Else() *RoleBuilder { return r.Op(Op{Code: Else}) }

// EndIf closes the innermost if.
func (r *RoleBuilder) EndIf() *RoleBuilder { return r.Op(Op{Code: EndIf}) }

// Advance appends ring.advance ring: the role's position in ring moves on.
func (r *RoleBuilder) Advance(ring int) *RoleBuilder {
	return r.Op(Op{Code: RingAdvance, N: uint32(ring)})
}
