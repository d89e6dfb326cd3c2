package ptx

import (
	"fmt"
	"strings"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
)

func init() { register(sc.Name, renderSchedule) }

// Constants of a rendered schedule.
const (
	// schedBufBytes is one shared-memory buffer: a TMA slot (TMABytes),
	// 1024-byte aligned so that TMA (128 B) and 128B-swizzled wgmma/tcgen05
	// descriptors (base offset 0 at the 1024 B repeat) both hold.
	schedBufBytes = sc.TMABytes
	schedBufAlign = 1024
	// schedTmemCols is the tensor-memory columns of one tmem buffer: a
	// 128x32 f32 accumulator.
	schedTmemCols = 32
	// schedTileRows is the TMA box height: tile t is at coordinates {0, 32t}.
	schedTileRows = 32
	// Shared-memory matrix descriptors of a buffer, without its start
	// address: LBO 16 B, SBO 1024 B, 128B swizzle; tcgen05 adds the fixed
	// 0b001 at bits 46-48.
	schedWgmmaDesc   = 0x4000004000010000
	schedTcgen05Desc = 0x4000404000010000
	// schedIDesc is the tcgen05 instruction descriptor of kind::f16 with
	// f16 A and B, f32 D, M=128, N=32.
	schedIDesc = 1<<4 | (32>>3)<<17 | (128>>4)<<24
)

// renderSchedule spells a schedule as one warp-specialized kernel.
//
// Layout: role i is a branch on the warp index. Warp roles (warp, load, mma)
// take the next warp, warpgroup roles (epilogue, compute) the next four
// warps from a multiple of four, as wgmma needs; .reqntid is the block.
// Padding warps run no role.
//
// Objects are module-scope, named after the entry: each shared-memory
// buffer a .shared .b8 array of TMABytes aligned to 1024; each mbarrier a
// .shared .b64; each tensor map a 64-byte aligned .global .b8[128] (the
// host writes the CUtensorMap there; TMA takes its generic address). Tensor
// memory is allocated by warp 0 in the prologue when the schedule has a
// tcgen05 op (32 columns per tmem buffer) and freed at the end. The
// prologue has thread 0 init every preinitialized mbarrier with its count,
// fence.mbarrier_init (sm_90+, PTX 8.0+), then bar.sync 0 over the block.
//
// Each op is its instruction(s). Ops the model counts once per role
// (mbarrier init/arrive/expect_tx/inval, TMA, bulk groups, tcgen05.mma and
// commit, tensormap.replace) are issued by the role's first thread; the
// collective and per-thread ops (ld/st.shared at the lane's word, ldmatrix,
// stmatrix, cp.async of the lane's 16 bytes, wgmma, tcgen05.ld, fences,
// try_wait, bar.sync, calls) by every thread of the role. A ring ref selects
// its slot at run time (position % stages, then selp among the ring's
// buffers or mbarriers); a ring wait's parity is (parity + position /
// stages) & 1; a ring tile is base + position. Loops are counted loops;
// if-conditions test the innermost loop's counter, "any" a bit of a global
// word the host sets. try_wait.parity retries in a loop. A tensor-map
// update is tensormap.replace of the global address field of the map in
// global memory (sm_90a, PTX 8.3), so it is a generic-proxy write that the
// tensormap fences order; the fences use .cta scope. bar.sync id counts the
// threads of its roles (those naming the id first; 0 roles: all roles). An
// opaque call is a .func per call site, called with call.uni: with a
// shared-memory pointer it takes the buffer's address as a .b32 parameter;
// without one it reaches the buffer by its module-scope name (a ring slot
// index as a .b32 parameter). Its body does the call's effect: none; a
// generic st.shared; or an async-proxy read that completes in the call
// (cp.async.bulk to global, commit, wait_group.read 0).
//
// The TMA byte count is the tensor map's box (host side) and the
// expect_tx operand; the instruction does not carry it.
func renderSchedule(v sc.Value, k *kernel) error {
	r := &schedRender{k: k, v: v}
	r.layout()
	r.declare()
	r.prologue()
	for i := range int(v.NRoles) {
		r.role(i)
	}
	r.epilogue()
	return nil
}

// schedRender holds one schedule's rendering state.
type schedRender struct {
	k *kernel
	v sc.Value

	// first and warps place each role; threads is the block.
	first, warps [sc.MaxRoles]int
	threads      int

	uses    map[sc.Code]bool
	tcgen05 bool
	labels  int

	// Registers holding every buffer's and mbarrier's address, every tensor
	// map's global and generic address.
	buf, bar       []string
	tmapG, tmapGen []string
	gmem           string // global scratch (cp.async source, bulk copies)
	tid, warp      string
	lane4, lane16  string
	any            string // the "any" condition word
	acc            string // wgmma accumulator vector
	scaleD         string // true predicate
	ifs, calls     int

	// Per role.
	leader string
	pos    [sc.MaxRings]string
	loops  []schedLoop
	conds  []schedIf
}

type schedLoop struct {
	cnt, top string
	trips    int
}

type schedIf struct {
	els, end string
	hasElse  bool
}

func (r *schedRender) label() string {
	r.labels++
	return fmt.Sprintf("$L%d", r.labels)
}

func (r *schedRender) emit(format string, args ...any) { r.k.emit(format, args...) }

// layout places the roles on warps and notes the ops in use.
func (r *schedRender) layout() {
	w := 0
	r.uses = map[sc.Code]bool{}
	for i, role := range r.v.RoleList() {
		n := 1
		if role.Kind == sc.RoleEpilogue || role.Kind == sc.RoleCompute {
			n = 4
			w = (w + 3) &^ 3
		}
		r.first[i], r.warps[i] = w, n
		w += n
		for _, o := range role.Program() {
			r.uses[o.Code] = true
		}
	}
	r.threads = 32 * w
	r.tcgen05 = r.uses[sc.Tcgen05MMA] || r.uses[sc.Tcgen05Commit] || r.uses[sc.Tcgen05Ld]
}

// tmemBuffers counts the tensor-memory buffers.
func (r *schedRender) tmemBuffers() int {
	n := 0
	for _, s := range r.v.Buffers[:r.v.NBuffers] {
		if s == sc.Tmem {
			n++
		}
	}
	return n
}

// tmemCols is the allocation: 32 columns per tmem buffer, a power of two
// from 32 to 512.
func (r *schedRender) tmemCols() int {
	n := 32
	for n < schedTmemCols*r.tmemBuffers() {
		n *= 2
	}
	return n
}

func (r *schedRender) needGmem() bool {
	if r.uses[sc.CpAsync] || r.uses[sc.TensormapReplace] {
		return true
	}
	for _, role := range r.v.RoleList() {
		for _, o := range role.Program() {
			if o.Code == sc.Call && o.Effect() == sc.EffectAsync {
				return true
			}
		}
	}
	return false
}

func (r *schedRender) needAny() bool {
	for _, role := range r.v.RoleList() {
		for _, o := range role.Program() {
			if o.Code == sc.If && o.Cond() == sc.CondAny {
				return true
			}
		}
	}
	return false
}

// declare writes the module-scope objects and the block size.
func (r *schedRender) declare() {
	k, v := r.k, r.v
	var b strings.Builder
	for i, s := range v.Buffers[:v.NBuffers] {
		if s == sc.Smem {
			fmt.Fprintf(&b, ".shared .align %d .b8 %s[%d];\n", schedBufAlign, k.symbol(fmt.Sprint("buf", i)), schedBufBytes)
		}
	}
	for i := range int(v.NBarriers) {
		fmt.Fprintf(&b, ".shared .align 8 .b64 %s;\n", k.symbol(fmt.Sprint("mbar", i)))
	}
	if r.tcgen05 {
		fmt.Fprintf(&b, ".shared .align 4 .b32 %s;\n", k.symbol("taddr"))
	}
	for i := range int(v.NTensorMaps) {
		fmt.Fprintf(&b, ".global .align 64 .b8 %s[128];\n", k.symbol(fmt.Sprint("tmap", i)))
	}
	if r.needGmem() {
		fmt.Fprintf(&b, ".global .align 128 .b8 %s[%d];\n", k.symbol("gmem"), schedBufBytes)
	}
	if r.needAny() {
		fmt.Fprintf(&b, ".global .align 4 .u32 %s;\n", k.symbol("any"))
	}
	if b.Len() > 0 {
		k.decls = append(k.decls, b.String())
	}
	k.directives = append(k.directives, fmt.Sprintf(".reqntid %d, 1, 1", max(r.threads, 32)))
}

// prologue computes the thread's place and every object's address, inits
// the preinitialized mbarriers, allocates tensor memory and syncs.
func (r *schedRender) prologue() {
	k, v := r.k, r.v
	r.tid, r.warp = k.reg(b32), k.reg(b32)
	lane := k.reg(b32)
	r.lane4, r.lane16 = k.reg(b32), k.reg(b32)
	r.emit("mov.u32 %s, %%tid.x;", r.tid)
	r.emit("shr.u32 %s, %s, 5;", r.warp, r.tid)
	r.emit("and.b32 %s, %s, 31;", lane, r.tid)
	r.emit("shl.b32 %s, %s, 2;", r.lane4, lane)
	r.emit("shl.b32 %s, %s, 4;", r.lane16, lane)
	for i := range int(v.NBarriers) {
		x := k.reg(b32)
		r.emit("mov.u32 %s, %s;", x, k.symbol(fmt.Sprint("mbar", i)))
		r.bar = append(r.bar, x)
	}
	for i := range int(v.NTensorMaps) {
		g, gen := k.reg(b64), k.reg(b64)
		r.emit("mov.u64 %s, %s;", g, k.symbol(fmt.Sprint("tmap", i)))
		r.emit("cvta.global.u64 %s, %s;", gen, g)
		r.tmapG, r.tmapGen = append(r.tmapG, g), append(r.tmapGen, gen)
	}
	if r.needGmem() {
		r.gmem = k.reg(b64)
		r.emit("mov.u64 %s, %s;", r.gmem, k.symbol("gmem"))
	}
	p := k.reg(pred)
	if r.tcgen05 {
		skip := r.label()
		r.emit("setp.ne.u32 %s, %s, 0;", p, r.warp)
		r.emit("@%s bra %s;", p, skip)
		r.emit("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%s], %d;", k.symbol("taddr"), r.tmemCols())
		r.emit("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;")
		r.emit("%s:", skip)
	}
	var inits []int
	for i, b := range v.Barriers[:v.NBarriers] {
		if b.Preinit {
			inits = append(inits, i)
		}
	}
	if len(inits) > 0 {
		skip := r.label()
		r.emit("setp.ne.u32 %s, %s, 0;", p, r.tid)
		r.emit("@%s bra %s;", p, skip)
		for _, i := range inits {
			r.emit("mbarrier.init.shared.b64 [%s], %d;", r.bar[i], v.Barriers[i].Count)
		}
		if v.Tgt.Arch.SM >= 90 && v.Tgt.PTX >= 80 {
			r.emit("fence.mbarrier_init.release.cluster;")
		}
		r.emit("%s:", skip)
	}
	r.emit("bar.sync 0, %d;", max(r.threads, 32))
	var taddr string
	if r.tcgen05 {
		r.emit("tcgen05.fence::after_thread_sync;")
		taddr = k.reg(b32)
		r.emit("ld.shared.b32 %s, [%s];", taddr, k.symbol("taddr"))
	}
	tm := 0
	for i, s := range v.Buffers[:v.NBuffers] {
		x := k.reg(b32)
		switch {
		case s == sc.Smem:
			r.emit("mov.u32 %s, %s;", x, k.symbol(fmt.Sprint("buf", i)))
		case taddr != "":
			r.emit("add.u32 %s, %s, %d;", x, taddr, schedTmemCols*tm)
		default:
			r.emit("mov.u32 %s, %d;", x, schedTmemCols*tm) // tensor memory never allocated: no tcgen05 op uses it
		}
		if s == sc.Tmem {
			tm++
		}
		r.buf = append(r.buf, x)
	}
	if r.uses[sc.Wgmma] || r.uses[sc.Tcgen05MMA] {
		r.scaleD = k.reg(pred)
		r.emit("setp.eq.u32 %s, 0, 0;", r.scaleD)
	}
	if r.uses[sc.Wgmma] {
		r.acc = fragment(k, f32, 4) // m64n8: 64*8/128 f32 per thread
	}
	if r.needAny() {
		r.any = k.reg(b32)
		r.emit("ld.global.u32 %s, [%s];", r.any, k.symbol("any"))
	}
}

// epilogue frees tensor memory after every role is done.
func (r *schedRender) epilogue() {
	r.emit("$Ldone:")
	if !r.tcgen05 {
		return
	}
	k := r.k
	r.emit("tcgen05.fence::before_thread_sync;")
	r.emit("bar.sync 0, %d;", r.threads)
	p, taddr := k.reg(pred), k.reg(b32)
	skip := r.label()
	r.emit("setp.ne.u32 %s, %s, 0;", p, r.warp)
	r.emit("@%s bra %s;", p, skip)
	r.emit("ld.shared.b32 %s, [%s];", taddr, k.symbol("taddr"))
	r.emit("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %s, %d;", taddr, r.tmemCols())
	r.emit("%s:", skip)
}

// role spells role i: a branch on the warp index around its program.
func (r *schedRender) role(i int) {
	k, role := r.k, r.v.Roles[i]
	next := r.label()
	rel, p := k.reg(b32), k.reg(pred)
	r.emit("sub.u32 %s, %s, %d;", rel, r.warp, r.first[i])
	r.emit("setp.ge.u32 %s, %s, %d;", p, rel, r.warps[i])
	r.emit("@%s bra %s;", p, next)
	r.leader = k.reg(pred)
	r.emit("setp.eq.u32 %s, %s, %d;", r.leader, r.tid, 32*r.first[i])
	r.pos = [sc.MaxRings]string{}
	for j := range int(r.v.NRings) {
		r.pos[j] = k.value(b32, 0)
	}
	r.loops, r.conds = nil, nil
	for _, o := range role.Program() {
		r.op(o)
	}
	r.emit("bra.uni $Ldone;")
	r.emit("%s:", next)
}

// ref is the register holding the address of ref's object in table: the
// object itself, or the ring slot (position % stages) selected among the
// ring's objects.
func (r *schedRender) ref(ref sc.Ref, table []string) string {
	if ref.Ring == 0 {
		return table[ref.Base]
	}
	k := r.k
	stages := int(r.v.Rings[ref.Ring-1])
	slot := r.slot(ref)
	out := k.reg(b32)
	r.emit("mov.u32 %s, %s;", out, table[ref.Base])
	p := k.reg(pred)
	for s := 1; s < stages; s++ {
		r.emit("setp.eq.u32 %s, %s, %d;", p, slot, s)
		r.emit("selp.b32 %s, %s, %s, %s;", out, table[int(ref.Base)+s], out, p)
	}
	return out
}

// slot is a register holding ring ref's slot: position % stages.
func (r *schedRender) slot(ref sc.Ref) string {
	s := r.k.reg(b32)
	r.emit("rem.u32 %s, %s, %d;", s, r.pos[ref.Ring-1], r.v.Rings[ref.Ring-1])
	return s
}

// parity is a wait's parity: an immediate, or (parity + position/stages) & 1.
func (r *schedRender) parity(o sc.Op) string {
	if o.Bar.Ring == 0 {
		return fmt.Sprint(o.Parity)
	}
	x := r.k.reg(b32)
	r.emit("div.u32 %s, %s, %d;", x, r.pos[o.Bar.Ring-1], r.v.Rings[o.Bar.Ring-1])
	r.emit("add.u32 %s, %s, %d;", x, x, o.Parity)
	r.emit("and.b32 %s, %s, 1;", x, x)
	return x
}

// tileCoords spells a TMA op's {x, y}: tile t is the box at {0, 32t}.
func (r *schedRender) tileCoords(t sc.Ref) string {
	k := r.k
	y := k.reg(b32)
	if t.Ring == 0 {
		r.emit("mov.u32 %s, %d;", y, int(t.Base)*schedTileRows)
	} else {
		r.emit("add.u32 %s, %s, %d;", y, r.pos[t.Ring-1], t.Base)
		r.emit("mul.lo.u32 %s, %s, %d;", y, y, schedTileRows)
	}
	return vec([]string{k.zero(b32), y})
}

// desc builds a shared-memory matrix descriptor of the buffer at addr.
func (r *schedRender) desc(addr string, base uint64) string {
	d := r.k.reg(b64)
	r.emit("cvt.u64.u32 %s, %s;", d, addr)
	r.emit("shr.u64 %s, %s, 4;", d, d)
	r.emit("and.b64 %s, %s, 0x3fff;", d, d)
	r.emit("or.b64 %s, %s, %#x;", d, d, base)
	return d
}

// plus is addr + off in a fresh register.
func (r *schedRender) plus(addr, off string) string {
	x := r.k.reg(b32)
	r.emit("add.u32 %s, %s, %s;", x, addr, off)
	return x
}

// lead prefixes an instruction issued by the role's first thread only.
func (r *schedRender) lead(format string, args ...any) {
	r.emit("@%s %s", r.leader, fmt.Sprintf(format, args...))
}

// op spells one op.
func (r *schedRender) op(o sc.Op) {
	k := r.k
	switch o.Code {
	case sc.Nop:
	case sc.LdShared:
		r.emit("ld.shared.b32 %s, [%s];", k.reg(b32), r.plus(r.ref(o.A, r.buf), r.lane4))
	case sc.StShared:
		r.emit("st.shared.b32 [%s], %s;", r.plus(r.ref(o.A, r.buf), r.lane4), r.tid)
	case sc.Ldmatrix:
		r.emit("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%s}, [%s];", k.reg(b32), r.plus(r.ref(o.A, r.buf), r.lane16))
	case sc.Stmatrix:
		r.emit("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%s], {%s};", r.plus(r.ref(o.A, r.buf), r.lane16), r.tid)
	case sc.CpAsync:
		dst := r.plus(r.ref(o.A, r.buf), r.lane16)
		off, src := k.reg(b64), k.reg(b64)
		r.emit("cvt.u64.u32 %s, %s;", off, r.lane16)
		r.emit("add.u64 %s, %s, %s;", src, r.gmem, off)
		r.emit("cp.async.cg.shared.global [%s], [%s], 16;", dst, src)
	case sc.CpAsyncCommit:
		r.emit("cp.async.commit_group;")
	case sc.CpAsyncWait:
		r.emit("cp.async.wait_group %d;", o.N)
	case sc.TMALoad:
		dst, bar := r.ref(o.A, r.buf), r.ref(o.Bar, r.bar)
		r.lead("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%s], [%s, %s], [%s];",
			dst, r.tmapGen[o.TMap], r.tileCoords(o.Tile), bar)
	case sc.TMAStore:
		src := r.ref(o.A, r.buf)
		r.lead("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%s, %s], [%s];",
			r.tmapGen[o.TMap], r.tileCoords(o.Tile), src)
	case sc.BulkCommit:
		r.lead("cp.async.bulk.commit_group;")
	case sc.BulkWait:
		read := ""
		if o.Read() {
			read = ".read"
		}
		r.lead("cp.async.bulk.wait_group%s %d;", read, o.N)
	case sc.WgmmaFence:
		r.emit("wgmma.fence.sync.aligned;")
	case sc.Wgmma:
		a := r.desc(r.ref(o.A, r.buf), schedWgmmaDesc)
		b := r.desc(r.ref(o.B, r.buf), schedWgmmaDesc)
		r.emit("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 %s, %s, %s, %s, 1, 1, 0, 0;", r.acc, a, b, r.scaleD)
	case sc.WgmmaCommit:
		r.emit("wgmma.commit_group.sync.aligned;")
	case sc.WgmmaWait:
		r.emit("wgmma.wait_group.sync.aligned %d;", o.N)
	case sc.Tcgen05MMA:
		a := r.desc(r.ref(o.A, r.buf), schedTcgen05Desc)
		b := r.desc(r.ref(o.B, r.buf), schedTcgen05Desc)
		d := r.ref(o.C, r.buf)
		idesc := k.value(b32, schedIDesc)
		r.lead("tcgen05.mma.cta_group::1.kind::f16 [%s], %s, %s, %s, %s;", d, a, b, idesc, r.scaleD)
	case sc.Tcgen05Commit:
		r.lead("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%s];", r.ref(o.Bar, r.bar))
	case sc.Tcgen05Ld:
		r.emit("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%s}, [%s];", k.reg(b32), r.ref(o.A, r.buf))
		r.emit("tcgen05.wait::ld.sync.aligned;")
	case sc.MbarInit:
		r.lead("mbarrier.init.shared.b64 [%s], %d;", r.ref(o.Bar, r.bar), o.N)
	case sc.MbarArrive:
		bar := r.ref(o.Bar, r.bar)
		switch {
		case o.NoComplete():
			r.lead("mbarrier.arrive.noComplete.shared.b64 %s, [%s], %d;", k.reg(b64), bar, o.N)
		case o.N == 1:
			r.lead("mbarrier.arrive.shared.b64 %s, [%s];", k.reg(b64), bar)
		default:
			r.lead("mbarrier.arrive.shared.b64 %s, [%s], %d;", k.reg(b64), bar, o.N)
		}
	case sc.MbarArriveExpectTx:
		r.lead("mbarrier.arrive.expect_tx.shared.b64 %s, [%s], %d;", k.reg(b64), r.ref(o.Bar, r.bar), o.N)
	case sc.MbarExpectTx:
		r.lead("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%s], %d;", r.ref(o.Bar, r.bar), o.N)
	case sc.MbarTryWait:
		bar, par := r.ref(o.Bar, r.bar), r.parity(o)
		p, top := k.reg(pred), r.label()
		r.emit("%s:", top)
		r.emit("mbarrier.try_wait.parity.shared.b64 %s, [%s], %s;", p, bar, par)
		r.emit("@!%s bra %s;", p, top)
	case sc.MbarInval:
		r.lead("mbarrier.inval.shared.b64 [%s];", r.ref(o.Bar, r.bar))
	case sc.FenceProxyAsync:
		space := ""
		if s := o.Space(); s != sc.SpaceAll {
			space = "." + sc.Spaces.Name(int(s))
		}
		r.emit("fence.proxy.async%s;", space)
	case sc.FenceTensormapRelease:
		r.emit("fence.proxy.tensormap::generic.release.cta;")
	case sc.FenceTensormapAcquire:
		r.emit("fence.proxy.tensormap::generic.acquire.cta [%s], 128;", r.tmapGen[o.TMap])
	case sc.TensormapReplace:
		r.lead("tensormap.replace.tile.global_address.global.b1024.b64 [%s], %s;", r.tmapG[o.TMap], r.gmem)
	case sc.BarSync:
		r.emit("bar.sync %d, %d;", o.Bar.Base, r.barThreads(o))
	case sc.Call:
		r.call(o)
	case sc.Loop:
		l := schedLoop{cnt: k.value(b32, 0), top: r.label(), trips: int(o.N)}
		r.emit("%s:", l.top)
		r.loops = append(r.loops, l)
	case sc.EndLoop:
		l := r.loops[len(r.loops)-1]
		r.loops = r.loops[:len(r.loops)-1]
		p := k.reg(pred)
		r.emit("add.u32 %s, %s, 1;", l.cnt, l.cnt)
		r.emit("setp.lt.u32 %s, %s, %d;", p, l.cnt, l.trips)
		r.emit("@%s bra %s;", p, l.top)
	case sc.If:
		c := schedIf{els: r.label(), end: r.label()}
		r.emit("@!%s bra %s;", r.cond(o.Cond()), c.els)
		r.conds = append(r.conds, c)
	case sc.Else:
		c := &r.conds[len(r.conds)-1]
		c.hasElse = true
		r.emit("bra.uni %s;", c.end)
		r.emit("%s:", c.els)
	case sc.EndIf:
		c := r.conds[len(r.conds)-1]
		r.conds = r.conds[:len(r.conds)-1]
		if c.hasElse {
			r.emit("%s:", c.end)
		} else {
			r.emit("%s:", c.els)
		}
	case sc.RingAdvance:
		r.emit("add.u32 %s, %s, 1;", r.pos[o.N], r.pos[o.N])
	}
}

// cond is a predicate register holding an if's condition on the innermost
// loop's iteration (0 of 1 outside loops), or a bit of the host's word.
func (r *schedRender) cond(c sc.Cond) string {
	k := r.k
	p := k.reg(pred)
	if c == sc.CondAny {
		t := k.reg(b32)
		r.emit("and.b32 %s, %s, %d;", t, r.any, uint32(1)<<(r.ifs%32))
		r.ifs++
		r.emit("setp.ne.u32 %s, %s, 0;", p, t)
		return p
	}
	cnt, trips := "0", 1
	if n := len(r.loops); n > 0 {
		cnt, trips = r.loops[n-1].cnt, r.loops[n-1].trips
	}
	switch c {
	case sc.CondFirst:
		r.emit("setp.eq.u32 %s, %s, 0;", p, cnt)
	case sc.CondLast:
		r.emit("setp.eq.u32 %s, %s, %d;", p, cnt, trips-1)
	case sc.CondNotFirst:
		r.emit("setp.ne.u32 %s, %s, 0;", p, cnt)
	case sc.CondNotLast:
		r.emit("setp.ne.u32 %s, %s, %d;", p, cnt, trips-1)
	case sc.CondEven, sc.CondOdd:
		t := k.reg(b32)
		if cnt == "0" {
			r.emit("mov.u32 %s, 0;", t)
		} else {
			r.emit("and.b32 %s, %s, 1;", t, cnt)
		}
		op := "eq"
		if c == sc.CondOdd {
			op = "ne"
		}
		r.emit("setp.%s.u32 %s, %s, 0;", op, p, t)
	}
	return p
}

// barThreads is bar.sync's thread count: the threads of its N roles, those
// that name the id first, then the others in order (N 0: every role); a
// count beyond the roles adds a warp per missing role.
func (r *schedRender) barThreads(o sc.Op) int {
	var users, others []int
	for i, role := range r.v.RoleList() {
		named := false
		for _, x := range role.Program() {
			if x.Code == sc.BarSync && x.Bar.Base == o.Bar.Base {
				named = true
			}
		}
		if named {
			users = append(users, i)
		} else {
			others = append(others, i)
		}
	}
	order := append(users, others...)
	n := int(o.N)
	if n == 0 {
		n = len(order)
	}
	t := 0
	for j := range n {
		if j < len(order) {
			t += 32 * r.warps[order[j]]
		} else {
			t += 32
		}
	}
	return t
}

// call spells an opaque call and its .func.
func (r *schedRender) call(o sc.Op) {
	k := r.k
	name := k.symbol(fmt.Sprint("call", r.calls))
	r.calls++
	f := newKernel(k.name)
	var param, arg string
	var addr string // the buffer's address inside the callee
	effect := o.Effect()
	switch {
	case o.SmemArg():
		param, arg = name+"_p", r.ref(o.A, r.buf)
		addr = f.reg(b32)
		f.emit("ld.param.b32 %s, [%s];", addr, param)
	case effect != sc.EffectNone && o.A.Ring != 0:
		// No pointer: the callee reaches the ring's buffers by name, told
		// only the slot index.
		param, arg = name+"_slot", r.slot(o.A)
		slot := f.reg(b32)
		f.emit("ld.param.b32 %s, [%s];", slot, param)
		addr = f.reg(b32)
		r.calleeBuf(f, addr, int(o.A.Base))
		p := f.reg(pred)
		tmp := f.reg(b32)
		for s := 1; s < int(r.v.Rings[o.A.Ring-1]); s++ {
			f.emit("setp.eq.u32 %s, %s, %d;", p, slot, s)
			r.calleeBuf(f, tmp, int(o.A.Base)+s)
			f.emit("selp.b32 %s, %s, %s, %s;", addr, tmp, addr, p)
		}
	case effect != sc.EffectNone:
		addr = f.reg(b32)
		r.calleeBuf(f, addr, int(o.A.Base))
	}
	switch effect {
	case sc.EffectGeneric:
		f.emit("st.shared.b32 [%s], %s;", addr, f.value(b32, 0))
	case sc.EffectAsync:
		g := f.reg(b64)
		f.emit("mov.u64 %s, %s;", g, k.symbol("gmem"))
		f.emit("cp.async.bulk.global.shared::cta.bulk_group [%s], [%s], 16;", g, addr)
		f.emit("cp.async.bulk.commit_group;")
		f.emit("cp.async.bulk.wait_group.read 0;")
	}
	var b strings.Builder
	if param != "" {
		fmt.Fprintf(&b, ".func %s(.param .b32 %s)\n{\n", name, param)
	} else {
		fmt.Fprintf(&b, ".func %s()\n{\n", name)
	}
	f.regDecls(&b)
	for _, l := range f.body {
		fmt.Fprintf(&b, "\t%s\n", l)
	}
	b.WriteString("\tret;\n}\n")
	k.decls = append(k.decls, b.String())
	if param == "" {
		r.emit("call.uni %s;", name)
		return
	}
	r.emit("{")
	r.emit(".param .b32 %s_arg;", name)
	r.emit("st.param.b32 [%s_arg], %s;", name, arg)
	r.emit("call.uni %s, (%s_arg);", name, name)
	r.emit("}")
}

// calleeBuf loads buffer i's address into x inside a callee: a shared
// buffer by its name, a tensor-memory one as its column offset.
func (r *schedRender) calleeBuf(f *kernel, x string, i int) {
	if r.v.Buffers[i] == sc.Smem {
		f.emit("mov.u32 %s, %s;", x, r.k.symbol(fmt.Sprint("buf", i)))
		return
	}
	tm := 0
	for _, s := range r.v.Buffers[:i] {
		if s == sc.Tmem {
			tm++
		}
	}
	f.emit("mov.u32 %s, %d;", x, schedTmemCols*tm)
}
