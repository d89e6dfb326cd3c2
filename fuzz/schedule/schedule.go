// Package schedule is the async-schedule domain: one CTA's warp-specialized
// program as roles (load warp, MMA warp, epilogue and compute warpgroups),
// each a short op sequence with bounded loops and branches, over shared and
// tensor-memory buffers, circular-buffer rings, mbarriers and tensor maps.
// The ops are the PTX instructions that move and synchronize data (TMA,
// cp.async, wgmma, tcgen05, mbarrier, proxy fences, bar.sync) with the
// operands their PTX spelling needs, so a schedule renders to PTX op by op.
//
// Every size is bounded and every field is a fixed-size array with a count,
// so values compare with ==, round-trip exactly and the reference model in
// fuzz/schedule/model explores all interleavings quickly.
package schedule

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "schedule"

// Bounds of a schedule.
const (
	MaxRoles      = 4
	MaxOps        = 24 // per role
	MaxBuffers    = 8
	MaxBarriers   = 12
	MaxRings      = 4
	MaxTensorMaps = 4
	MaxStages     = 4 // per ring
	MaxTrips      = 8 // per loop
	MaxLoopDepth  = 2
	MaxNamedBars  = 4 // bar.sync ids 0..3
	MaxTile       = 15
	MaxWaitN      = 7 // wait_group N
	// MaxStatesLimit caps the model's state bound a value may ask for.
	MaxStatesLimit = 1_000_000
	// MaxCount bounds counts and byte numbers; mbarrier counts above
	// 2^20-1 exist only to be judged undefined.
	MaxCount = 1 << 21
)

// MbarMax is 2^20-1, the largest mbarrier arrival count and tx-count magnitude.
const MbarMax = 1<<20 - 1

// DefaultArch is the target of a schedule that names none.
var DefaultArch = target.Arch{SM: 90, Suffix: "a"}

// Code is an op's opcode. The order is the canonical encoding: only append.
type Code uint8

const (
	Nop Code = iota
	LdShared
	StShared
	Ldmatrix
	Stmatrix
	CpAsync
	CpAsyncCommit
	CpAsyncWait
	TMALoad
	TMAStore
	BulkCommit
	BulkWait
	WgmmaFence
	Wgmma
	WgmmaCommit
	WgmmaWait
	Tcgen05MMA
	Tcgen05Commit
	Tcgen05Ld
	MbarInit
	MbarArrive
	MbarArriveExpectTx
	MbarExpectTx
	MbarTryWait
	MbarInval
	FenceProxyAsync
	FenceTensormapRelease
	FenceTensormapAcquire
	TensormapReplace
	BarSync
	Call
	Loop
	EndLoop
	If
	Else
	EndIf
	RingAdvance
	numCodes
)

// Field is a set of op fields.
type Field uint16

// Op fields; each code uses a fixed subset (see Code.Fields).
const (
	FA Field = 1 << iota
	FB
	FC
	FBar
	FTMap
	FTile
	FParity
	FN
	FNoComplete
	FRead
	FSpace
	FSmemArg
	FEffect
)

// NKind says what an op's N means, and names its JSON field.
type NKind uint8

const (
	NNone  NKind = iota
	NWait        // "n": wait_group N, 0..7
	NBytes       // "bytes": tx bytes, 0..MaxCount
	NCount       // "count": arrival or init count, 0..MaxCount
	NRoles       // "count": bar.sync roles, 0 (all) ..4
	NTrips       // "trips": 1..8
	NCond        // "cond": a branch condition
	NRing        // "ring": ring index
)

type codeInfo struct {
	name   string
	fields Field
	n      NKind
}

var codes = [numCodes]codeInfo{
	Nop:                   {"nop", 0, NNone},
	LdShared:              {"ld.shared", FA, NNone},
	StShared:              {"st.shared", FA, NNone},
	Ldmatrix:              {"ldmatrix", FA, NNone},
	Stmatrix:              {"stmatrix", FA, NNone},
	CpAsync:               {"cp.async", FA, NNone},
	CpAsyncCommit:         {"cp.async.commit_group", 0, NNone},
	CpAsyncWait:           {"cp.async.wait_group", FN, NWait},
	TMALoad:               {"cp.async.bulk.tensor.load", FA | FBar | FTMap | FTile | FN, NBytes},
	TMAStore:              {"cp.async.bulk.tensor.store", FA | FTMap | FTile, NNone},
	BulkCommit:            {"cp.async.bulk.commit_group", 0, NNone},
	BulkWait:              {"cp.async.bulk.wait_group", FN | FRead, NWait},
	WgmmaFence:            {"wgmma.fence", 0, NNone},
	Wgmma:                 {"wgmma.mma_async", FA | FB, NNone},
	WgmmaCommit:           {"wgmma.commit_group", 0, NNone},
	WgmmaWait:             {"wgmma.wait_group", FN, NWait},
	Tcgen05MMA:            {"tcgen05.mma", FA | FB | FC, NNone},
	Tcgen05Commit:         {"tcgen05.commit", FBar, NNone},
	Tcgen05Ld:             {"tcgen05.ld", FA, NNone},
	MbarInit:              {"mbarrier.init", FBar | FN, NCount},
	MbarArrive:            {"mbarrier.arrive", FBar | FN | FNoComplete, NCount},
	MbarArriveExpectTx:    {"mbarrier.arrive.expect_tx", FBar | FN, NBytes},
	MbarExpectTx:          {"mbarrier.expect_tx", FBar | FN, NBytes},
	MbarTryWait:           {"mbarrier.try_wait.parity", FBar | FParity, NNone},
	MbarInval:             {"mbarrier.inval", FBar, NNone},
	FenceProxyAsync:       {"fence.proxy.async", FSpace, NNone},
	FenceTensormapRelease: {"fence.proxy.tensormap::generic.release", 0, NNone},
	FenceTensormapAcquire: {"fence.proxy.tensormap::generic.acquire", FTMap, NNone},
	TensormapReplace:      {"tensormap.replace", FTMap, NNone},
	BarSync:               {"bar.sync", FBar | FN, NRoles},
	Call:                  {"call", FA | FSmemArg | FEffect, NNone},
	Loop:                  {"loop", FN, NTrips},
	EndLoop:               {"endloop", 0, NNone},
	If:                    {"if", FN, NCond},
	Else:                  {"else", 0, NNone},
	EndIf:                 {"endif", 0, NNone},
	RingAdvance:           {"ring.advance", FN, NRing},
}

func (c Code) String() string {
	if c < numCodes {
		return codes[c].name
	}
	return fmt.Sprintf("?%d", c)
}

// codeNames spells the codes in order.
var codeNames = func() domain.Enum {
	names := make(domain.Enum, numCodes)
	for i, c := range codes {
		names[i] = c.name
	}
	return names
}()

// Enum names the codes: mutation reads its size.
func (Code) Enum() domain.Enum { return codeNames }

// Fields lists the fields an op with code c uses.
func (c Code) Fields() Field { return codes[c].fields }

// N says what N means for code c.
func (c Code) N() NKind { return codes[c].n }

// ParseCode parses an op name.
func ParseCode(name string) (Code, bool) {
	for i, ci := range codes {
		if ci.name == name {
			return Code(i), true
		}
	}
	return 0, false
}

// CodeNames lists the op names in code order.
func CodeNames() []string {
	names := make([]string, numCodes)
	for i, ci := range codes {
		names[i] = ci.name
	}
	return names
}

// Cond is a branch condition, evaluated on the innermost loop's iteration
// (outside loops the iteration is 0 of 1). Any is nondeterministic: the
// model explores both ways.
type Cond uint8

const (
	CondAny Cond = iota
	CondFirst
	CondLast
	CondNotFirst
	CondNotLast
	CondEven
	CondOdd
	numConds
)

// Conds spells the conditions.
var Conds = domain.Enum{"any", "first", "last", "notfirst", "notlast", "even", "odd"}

// Space is a fence.proxy.async state space.
type Space uint8

const (
	SpaceAll Space = iota // fence.proxy.async
	SpaceSharedCTA
	SpaceSharedCluster
	SpaceGlobal
)

// Spaces spells the fence spaces; "" is the plain fence.
var Spaces = domain.Enum{"", "shared::cta", "shared::cluster", "global"}

// Effect is what an opaque call really does to its buffer. Fence insertion
// sees only whether the call takes a shared-memory pointer; the model sees
// the effect.
type Effect uint8

const (
	EffectNone    Effect = iota
	EffectGeneric        // writes the buffer through the generic proxy
	EffectAsync          // reads the buffer through the async proxy (e.g. a wrapped wgmma), completing inside the call
)

// Effects spells the call effects.
var Effects = domain.Enum{"none", "generic", "async"}

// Flags bits of an op.
const (
	flagNoComplete = 1 << 0
	flagRead       = 1 << 1
	flagSpaceShift = 2 // 2 bits
	flagSmemArg    = 1 << 4
	flagEffShift   = 5 // 2 bits
)

// Ref names a buffer, mbarrier or tile: Base when Ring is 0, else Base plus
// the role's position in ring Ring-1 modulo the ring's stages (for tiles,
// Base plus the position itself, without modulo).
type Ref struct {
	Base uint8
	Ring uint8
}

// Op is one instruction of a role.
type Op struct {
	Code Code
	// A, B: source buffers (A is the only buffer of one-buffer ops); C: the
	// destination of tcgen05.mma (a tensor-memory buffer).
	A, B, C Ref
	// Bar is the mbarrier; for bar.sync, the named barrier id.
	Bar  Ref
	TMap uint8
	// Tile is the global tile of a TMA op: two in-flight TMA ops conflict
	// when they name the same tensor map and tile.
	Tile   Ref
	Parity uint8
	// N is the op's number; Code.N says which (count, bytes, n, trips,
	// cond, ring).
	N     uint32
	Flags uint8
}

// NoComplete reports mbarrier.arrive.noComplete.
func (o Op) NoComplete() bool { return o.Flags&flagNoComplete != 0 }

// Read reports cp.async.bulk.wait_group.read.
func (o Op) Read() bool { return o.Flags&flagRead != 0 }

// Space is a fence.proxy.async's state space.
func (o Op) Space() Space { return Space(o.Flags >> flagSpaceShift & 3) }

// SmemArg reports whether a call takes a shared-memory pointer (to A).
func (o Op) SmemArg() bool { return o.Flags&flagSmemArg != 0 }

// Effect is a call's true effect.
func (o Op) Effect() Effect { return Effect(o.Flags >> flagEffShift & 3) }

// Cond is an if's condition.
func (o Op) Cond() Cond { return Cond(o.N) }

// WithFlags returns o with the given flag values set.
func (o Op) WithFlags(noComplete, read bool, space Space, smemArg bool, eff Effect) Op {
	var f uint8
	if noComplete {
		f |= flagNoComplete
	}
	if read {
		f |= flagRead
	}
	f |= uint8(space&3) << flagSpaceShift
	if smemArg {
		f |= flagSmemArg
	}
	f |= uint8(eff&3) << flagEffShift
	o.Flags = f
	return o
}

// RoleKind is what a role is in a warp-specialized kernel.
type RoleKind uint8

const (
	RoleWarp     RoleKind = iota // a plain warp
	RoleLoad                     // load warp: issues TMA loads
	RoleMMA                      // MMA warp: issues tcgen05.mma
	RoleEpilogue                 // epilogue warpgroup(s)
	RoleCompute                  // Hopper consumer warpgroup: wgmma + epilogue
	numRoleKinds
)

// RoleKinds spells the role kinds.
var RoleKinds = domain.Enum{"warp", "load", "mma", "epilogue", "compute"}

func (k RoleKind) String() string { return RoleKinds.Name(int(k)) }

// Enum names the values of RoleKind: package desc and mutation read its size.
func (RoleKind) Enum() domain.Enum { return RoleKinds }

// Role is one warp or warpgroup with its program.
type Role struct {
	Kind RoleKind
	NOps uint8
	Ops  [MaxOps]Op
}

// Program returns the role's ops.
func (r *Role) Program() []Op { return upTo(r.Ops[:], r.NOps) }

// BlockEnd returns the index of the endloop or endif that closes the loop or
// if at i in ops, len(ops) when none does. Every pass that walks a
// program's structure (the rules, the fence insertion) finds blocks this way.
func BlockEnd(ops []Op, i int) int {
	d := 0
	for j := i; j < len(ops); j++ {
		switch ops[j].Code {
		case Loop, If:
			d++
		case EndLoop, EndIf:
			if d--; d == 0 {
				return j
			}
		}
	}
	return len(ops)
}

// IfParts returns the else of the if at i in ops (its endif when it has
// none) and its endif.
func IfParts(ops []Op, i int) (els, end int) {
	end = BlockEnd(ops, i)
	d := 0
	for j := i + 1; j < end; j++ {
		switch ops[j].Code {
		case Loop, If:
			d++
		case EndLoop, EndIf:
			d--
		case Else:
			if d == 0 {
				return j, end
			}
		}
	}
	return end, end
}

// BufSpace is where a buffer lives.
type BufSpace uint8

const (
	Smem BufSpace = iota // shared memory
	Tmem                 // tensor memory (tcgen05 accumulators)
)

// BufSpaces spells the buffer spaces.
var BufSpaces = domain.Enum{"smem", "tmem"}

// Barrier declares an mbarrier. A preinitialized one is initialized with
// Count before the roles start, visibly to all (the prologue
// init + fence + bar.sync is not modelled); otherwise Count is zero and a
// role must mbarrier.init it.
type Barrier struct {
	Preinit bool
	Count   uint32
}

// Value is one schedule.
type Value struct {
	NRoles      uint8
	Roles       [MaxRoles]Role
	NBuffers    uint8
	Buffers     [MaxBuffers]BufSpace
	NBarriers   uint8
	Barriers    [MaxBarriers]Barrier
	NRings      uint8
	Rings       [MaxRings]uint8 // stages per ring
	NTensorMaps uint8
	// MaxStates bounds the model's exploration; 0 means DefaultMaxStates.
	MaxStates uint32
	Tgt       target.Target
}

// DefaultMaxStates is the state bound of a value whose MaxStates is 0.
const DefaultMaxStates = 100_000

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// StateBound is the value's effective state bound.
func (v Value) StateBound() int {
	if v.MaxStates == 0 {
		return DefaultMaxStates
	}
	return int(v.MaxStates)
}

// RoleList returns the roles in use.
func (v *Value) RoleList() []Role { return upTo(v.Roles[:], v.NRoles) }

// upTo is the first n entries of a, all of them when a count was set past
// the array (a mutated value, before decoding makes it valid): encoding
// such a value must not panic.
func upTo[T any](a []T, n uint8) []T { return a[:min(int(n), len(a))] }

// Resolve evaluates ref against ring positions pos: Base, or Base plus the
// position modulo the ring's stages.
func (v *Value) Resolve(ref Ref, pos *[MaxRings]uint16) int {
	if ref.Ring == 0 {
		return int(ref.Base)
	}
	return int(ref.Base) + int(pos[ref.Ring-1])%int(v.Rings[ref.Ring-1])
}

// ResolveTile evaluates a tile ref: Base plus the ring position itself.
func (v *Value) ResolveTile(ref Ref, pos *[MaxRings]uint16) int {
	if ref.Ring == 0 {
		return int(ref.Base)
	}
	return int(ref.Base) + int(pos[ref.Ring-1])
}

// ResolveParity evaluates a wait's parity: Parity, flipped once per full
// turn of the bar's ring.
func (v *Value) ResolveParity(op Op, pos *[MaxRings]uint16) int {
	if op.Bar.Ring == 0 {
		return int(op.Parity)
	}
	return (int(op.Parity) + int(pos[op.Bar.Ring-1])/int(v.Rings[op.Bar.Ring-1])) & 1
}

// RefString spells a ref as in JSON: "3" or "3+r1".
func RefString(r Ref) string {
	if r.Ring == 0 {
		return fmt.Sprint(r.Base)
	}
	return fmt.Sprintf("%d+r%d", r.Base, r.Ring-1)
}

// OpString is a short human form of an op, e.g. "mbarrier.try_wait.parity bar=0+r0 parity=1".
func OpString(o Op) string {
	var b strings.Builder
	b.WriteString(o.Code.String())
	f := o.Code.Fields()
	ref := func(name string, r Ref) { fmt.Fprintf(&b, " %s=%s", name, RefString(r)) }
	if f&FA != 0 && !(o.Code == Call && !o.SmemArg()) {
		ref("a", o.A)
	}
	if f&FB != 0 {
		ref("b", o.B)
	}
	if f&FC != 0 {
		ref("d", o.C)
	}
	if f&FBar != 0 {
		if o.Code == BarSync {
			fmt.Fprintf(&b, " id=%d", o.Bar.Base)
		} else {
			ref("bar", o.Bar)
		}
	}
	if f&FTMap != 0 {
		fmt.Fprintf(&b, " tmap=%d", o.TMap)
	}
	if f&FTile != 0 {
		ref("tile", o.Tile)
	}
	if f&FParity != 0 {
		fmt.Fprintf(&b, " parity=%d", o.Parity)
	}
	switch o.Code.N() {
	case NWait:
		fmt.Fprintf(&b, " n=%d", o.N)
	case NBytes:
		fmt.Fprintf(&b, " bytes=%d", o.N)
	case NCount, NRoles:
		fmt.Fprintf(&b, " count=%d", o.N)
	case NTrips:
		fmt.Fprintf(&b, " trips=%d", o.N)
	case NCond:
		fmt.Fprintf(&b, " %s", Conds.Name(int(o.N)))
	case NRing:
		fmt.Fprintf(&b, " ring=%d", o.N)
	}
	if o.NoComplete() {
		b.WriteString(" .noComplete")
	}
	if o.Read() {
		b.WriteString(" .read")
	}
	if f&FSpace != 0 && o.Space() != SpaceAll {
		b.WriteString(" ." + Spaces.Name(int(o.Space())))
	}
	if o.Code == Call {
		fmt.Fprintf(&b, " effect=%s", Effects.Name(int(o.Effect())))
	}
	return b.String()
}

// String is a multi-line human form.
func (v Value) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schedule %s: %d buffers, %d mbarriers, rings %v, %d tensor maps\n",
		v.Tgt, v.NBuffers, v.NBarriers, v.Rings[:v.NRings], v.NTensorMaps)
	for i, r := range v.RoleList() {
		fmt.Fprintf(&b, "role %d (%s):\n", i, r.Kind)
		for j, o := range r.Program() {
			fmt.Fprintf(&b, "  %2d %s\n", j, OpString(o))
		}
	}
	return b.String()
}

// Domain describes schedule for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "async schedules of one CTA: roles, buffers, mbarriers, proxies and fences, judged by an explicit-state model",
	FuzzTarget: "FuzzSchedule",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
