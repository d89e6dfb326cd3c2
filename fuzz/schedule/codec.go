package schedule

import (
	"errors"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// The canonical bytes: target (2), max_states (U32), the counts of roles
// (minus one), buffers, barriers, rings and tensor maps (1 each), one byte
// per buffer, per barrier a preinit byte and a number, per ring its stages
// minus one, then per role
// its kind, op count and ops. An op is code, the refs A, B, C, Bar and Tile
// (low 4 bits base, bits 4-6 ring+1), tensor map, parity|flags<<1 and N as a
// number. A number is one byte below 0xF0, else 0xF0 and a U32.

const numEscape = 0xF0

func putNum(w *domain.Writer, n uint32) {
	if n < numEscape {
		w.U8(uint8(n))
		return
	}
	w.U8(numEscape)
	w.U32(n)
}

func getNum(r *domain.Reader) uint32 {
	b := r.U8()
	if b < numEscape {
		return uint32(b)
	}
	return r.U32()
}

func putRef(w *domain.Writer, ref Ref) { w.U8(ref.Base&15 | ref.Ring<<4) }

func getRef(r *domain.Reader) Ref {
	b := r.U8()
	return Ref{Base: b & 15, Ring: b >> 4 & 7}
}

// Encode implements domain.Value.
func (v Value) Encode() []byte {
	var w domain.Writer
	w.Bytes = v.Tgt.Encode(w.Bytes)
	w.U32(v.MaxStates)
	for _, n := range []uint8{v.NRoles - 1, v.NBuffers, v.NBarriers, v.NRings, v.NTensorMaps} {
		w.U8(n)
	}
	for _, s := range upTo(v.Buffers[:], v.NBuffers) {
		w.U8(uint8(s))
	}
	for _, b := range upTo(v.Barriers[:], v.NBarriers) {
		w.Bool(b.Preinit)
		putNum(&w, b.Count)
	}
	for _, s := range upTo(v.Rings[:], v.NRings) {
		w.U8(s - 1)
	}
	for _, role := range v.RoleList() {
		w.U8(uint8(role.Kind))
		w.U8(role.NOps)
		for _, o := range role.Program() {
			w.U8(uint8(o.Code))
			for _, ref := range []Ref{o.A, o.B, o.C, o.Bar, o.Tile} {
				putRef(&w, ref)
			}
			w.U8(o.TMap)
			w.U8(o.Parity | o.Flags<<1)
			putNum(&w, o.N)
		}
	}
	return w.Bytes
}

// Decode maps fuzz bytes to a schedule: counts, indices and numbers are
// reduced into range, refs to missing objects and unmatched control ops
// become nops, so every input decodes to a valid value.
func Decode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	var v Value
	v.Tgt = target.Decode(r.U8(), r.U8())
	if ms := r.U32(); ms <= MaxStatesLimit {
		v.MaxStates = ms
	}
	v.NRoles = uint8(r.Index(MaxRoles)) + 1
	v.NBuffers = uint8(r.Index(MaxBuffers + 1))
	v.NBarriers = uint8(r.Index(MaxBarriers + 1))
	v.NRings = uint8(r.Index(MaxRings + 1))
	v.NTensorMaps = uint8(r.Index(MaxTensorMaps + 1))
	for i := range upTo(v.Buffers[:], v.NBuffers) {
		v.Buffers[i] = BufSpace(r.Index(len(BufSpaces)))
	}
	for i := range upTo(v.Barriers[:], v.NBarriers) {
		pre := r.Bool()
		n := getNum(r) % (MaxCount + 1)
		if pre {
			v.Barriers[i] = Barrier{Preinit: true, Count: n}
		}
	}
	for i := range upTo(v.Rings[:], v.NRings) {
		v.Rings[i] = uint8(r.Index(MaxStages)) + 1
	}
	for i := range v.Roles[:v.NRoles] {
		role := &v.Roles[i]
		role.Kind = RoleKind(r.Index(int(numRoleKinds)))
		role.NOps = uint8(r.Index(MaxOps + 1))
		for j := range role.Ops[:role.NOps] {
			o := Op{Code: Code(r.Index(int(numCodes)))}
			o.A, o.B, o.C, o.Bar, o.Tile = getRef(r), getRef(r), getRef(r), getRef(r), getRef(r)
			o.TMap = r.U8()
			misc := r.U8()
			o.Parity, o.Flags = misc&1, misc>>1
			o.N = getNum(r)
			role.Ops[j] = v.repairOp(o)
		}
		repairControl(role)
	}
	if err := v.Validate(); err != nil {
		return nil, fmt.Errorf("schedule: decoder produced an invalid value: %w", err)
	}
	return v, nil
}

// repairOp reduces o's fields into range and clears those its code does not
// use; an op whose operands cannot exist becomes a nop.
func (v *Value) repairOp(o Op) Op {
	f := o.Code.Fields()
	out := Op{Code: o.Code}
	ok := true
	fixRef := func(ref Ref, n int) Ref {
		if n == 0 {
			ok = false
			return Ref{}
		}
		if int(ref.Ring) > int(v.NRings) {
			ref.Ring = 0
		}
		stages := 1
		if ref.Ring != 0 {
			stages = int(v.Rings[ref.Ring-1])
			if stages > n {
				ref.Ring, stages = 0, 1
			}
		}
		ref.Base = uint8(int(ref.Base) % (n - stages + 1))
		return ref
	}
	usesA := f&FA != 0
	if o.Code == Call {
		eff := Effect(o.Flags >> flagEffShift & 3 % 3)
		smem := o.Flags&flagSmemArg != 0
		usesA = smem || eff != EffectNone
		out = out.WithFlags(false, false, 0, smem, eff)
	}
	if usesA {
		out.A = fixRef(o.A, int(v.NBuffers))
	}
	if f&FB != 0 {
		out.B = fixRef(o.B, int(v.NBuffers))
	}
	if f&FC != 0 {
		out.C = fixRef(o.C, int(v.NBuffers))
	}
	if f&FBar != 0 {
		if o.Code == BarSync {
			out.Bar = Ref{Base: o.Bar.Base % MaxNamedBars}
		} else {
			out.Bar = fixRef(o.Bar, int(v.NBarriers))
		}
	}
	if f&FTile != 0 {
		out.Tile = Ref{Base: o.Tile.Base & MaxTile, Ring: o.Tile.Ring}
		if int(out.Tile.Ring) > int(v.NRings) {
			out.Tile.Ring = 0
		}
	}
	if f&FTMap != 0 {
		if v.NTensorMaps == 0 {
			ok = false
		} else {
			out.TMap = o.TMap % v.NTensorMaps
		}
	}
	if f&FParity != 0 {
		out.Parity = o.Parity & 1
	}
	if f&FN != 0 {
		out.N = repairN(o.Code, o.N, v.NRings)
		if o.Code == RingAdvance && v.NRings == 0 {
			ok = false
		}
	}
	switch o.Code {
	case MbarArrive:
		out.Flags = o.Flags & flagNoComplete
	case BulkWait:
		out.Flags = o.Flags & flagRead
	case FenceProxyAsync:
		out.Flags = o.Flags & (3 << flagSpaceShift)
	}
	if !ok {
		return Op{}
	}
	return out
}

func repairN(c Code, n uint32, nRings uint8) uint32 {
	switch c.N() {
	case NWait:
		return n % (MaxWaitN + 1)
	case NBytes:
		return n % (MaxCount + 1)
	case NCount:
		n %= MaxCount + 1
		if n == 0 && c == MbarArrive {
			n = 1 // an arrival counts at least one
		}
		return n
	case NRoles:
		return n % (MaxRoles + 1)
	case NTrips:
		if n == 0 {
			return 1
		}
		return (n-1)%MaxTrips + 1
	case NCond:
		return n % uint32(numConds)
	case NRing:
		if nRings == 0 {
			return 0
		}
		return n % uint32(nRings)
	}
	return 0
}

// repairControl turns unmatched or too deeply nested control ops into nops,
// pass after pass, until the structure is valid; each pass that leaves it
// invalid removes at least one op.
func repairControl(role *Role) {
	ops := role.Ops[:role.NOps]
	for checkControl(ops) != nil {
		controlPass(ops)
	}
}

func controlPass(ops []Op) {
	type open struct {
		idx     int
		hasElse bool
	}
	var stack []open
	loops := 0
	for i := range ops {
		switch ops[i].Code {
		case Loop:
			if loops == MaxLoopDepth {
				ops[i] = Op{}
				continue
			}
			loops++
			stack = append(stack, open{idx: i})
		case If:
			stack = append(stack, open{idx: i})
		case Else:
			if len(stack) == 0 || ops[stack[len(stack)-1].idx].Code != If || stack[len(stack)-1].hasElse {
				ops[i] = Op{}
				continue
			}
			stack[len(stack)-1].hasElse = true
		case EndLoop, EndIf:
			want := Loop
			if ops[i].Code == EndIf {
				want = If
			}
			if len(stack) == 0 || ops[stack[len(stack)-1].idx].Code != want {
				ops[i] = Op{}
				continue
			}
			if want == Loop {
				loops--
			}
			stack = stack[:len(stack)-1]
		}
	}
	for _, o := range stack {
		ops[o.idx] = Op{}
	}
}

// ErrInvalid wraps every validation error.
var ErrInvalid = errors.New("invalid schedule")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Validate checks that v is a well-formed, canonical schedule: counts and
// indices in range, unused fields zero, control ops matched.
func (v *Value) Validate() error {
	if !v.Tgt.Valid() {
		return invalid("unknown target %v", v.Tgt)
	}
	if v.MaxStates > MaxStatesLimit {
		return invalid("field \"max_states\": %d above %d", v.MaxStates, MaxStatesLimit)
	}
	switch {
	case v.NRoles < 1 || v.NRoles > MaxRoles:
		return invalid("%d roles, want 1..%d", v.NRoles, MaxRoles)
	case v.NBuffers > MaxBuffers:
		return invalid("%d buffers, want at most %d", v.NBuffers, MaxBuffers)
	case v.NBarriers > MaxBarriers:
		return invalid("%d mbarriers, want at most %d", v.NBarriers, MaxBarriers)
	case v.NRings > MaxRings:
		return invalid("%d rings, want at most %d", v.NRings, MaxRings)
	case v.NTensorMaps > MaxTensorMaps:
		return invalid("%d tensor maps, want at most %d", v.NTensorMaps, MaxTensorMaps)
	}
	for i, s := range v.Buffers {
		if (i >= int(v.NBuffers) && s != 0) || s > Tmem {
			return invalid("buffer %d: bad space %d", i, s)
		}
	}
	for i, b := range v.Barriers {
		if i >= int(v.NBarriers) && b != (Barrier{}) {
			return invalid("mbarrier %d beyond the count is set", i)
		}
		if !b.Preinit && b.Count != 0 {
			return invalid("mbarrier %d: count %d without preinit (its mbarrier.init gives the count)", i, b.Count)
		}
		if b.Count > MaxCount {
			return invalid("mbarrier %d: count %d above %d", i, b.Count, MaxCount)
		}
	}
	for i, s := range v.Rings {
		if i < int(v.NRings) && (s < 1 || s > MaxStages) {
			return invalid("ring %d: %d stages, want 1..%d", i, s, MaxStages)
		}
		if i >= int(v.NRings) && s != 0 {
			return invalid("ring %d beyond the count is set", i)
		}
	}
	for i := range v.Roles {
		if err := v.validateRole(i); err != nil {
			return err
		}
	}
	return nil
}

func (v *Value) validateRole(i int) error {
	role := &v.Roles[i]
	if i >= int(v.NRoles) {
		if *role != (Role{}) {
			return invalid("role %d beyond the count is set", i)
		}
		return nil
	}
	if role.Kind >= numRoleKinds {
		return invalid("role %d: bad kind %d", i, role.Kind)
	}
	if role.NOps > MaxOps {
		return invalid("role %d: %d ops, want at most %d", i, role.NOps, MaxOps)
	}
	for j, o := range role.Ops {
		if j >= int(role.NOps) {
			if o != (Op{}) {
				return invalid("role %d: op %d beyond the count is set", i, j)
			}
			continue
		}
		if err := v.validateOp(o); err != nil {
			return fmt.Errorf("role %d op %d: %w", i, j, err)
		}
	}
	if err := checkControl(role.Program()); err != nil {
		return fmt.Errorf("role %d: %w", i, err)
	}
	return nil
}

// validateOp checks one op; its repaired form must equal it.
func (v *Value) validateOp(o Op) error {
	if o.Code >= numCodes {
		return invalid("bad op code %d", o.Code)
	}
	if o.Code == Call && o.Effect() > EffectAsync {
		return invalid("bad call effect %d", o.Effect())
	}
	if o.Code == Nop && o != (Op{}) {
		return invalid("nop with fields set")
	}
	if err := v.checkRefs(o); err != nil {
		return err
	}
	if r := v.repairOp(o); r != o {
		return invalid("%s: fields out of range or set without use (want %s)", OpString(o), OpString(r))
	}
	if o.Code != Nop && v.repairOp(o).Code == Nop {
		return invalid("%s: names a buffer, mbarrier, tensor map or ring that does not exist", o.Code)
	}
	return nil
}

// checkRefs names the first ref of o that points past the declared objects.
func (v *Value) checkRefs(o Op) error {
	f := o.Code.Fields()
	check := func(field, what string, ref Ref, n int) error {
		if int(ref.Ring) > int(v.NRings) {
			return invalid("field %q: ring r%d, the schedule has %d rings", field, ref.Ring-1, v.NRings)
		}
		last := int(ref.Base)
		if ref.Ring != 0 {
			last += int(v.Rings[ref.Ring-1]) - 1
		}
		if last >= n {
			return invalid("field %q: %s names %s %d, which does not exist (%d declared)", field, RefString(ref), what, last, n)
		}
		return nil
	}
	var errs []error
	if f&FA != 0 && (o.Code != Call || o.SmemArg() || o.Effect() != EffectNone) {
		errs = append(errs, check("a", "buffer", o.A, int(v.NBuffers)))
	}
	if f&FB != 0 {
		errs = append(errs, check("b", "buffer", o.B, int(v.NBuffers)))
	}
	if f&FC != 0 {
		errs = append(errs, check("d", "buffer", o.C, int(v.NBuffers)))
	}
	if f&FBar != 0 && o.Code != BarSync {
		errs = append(errs, check("bar", "mbarrier", o.Bar, int(v.NBarriers)))
	}
	if f&FTMap != 0 && int(o.TMap) >= int(v.NTensorMaps) {
		errs = append(errs, invalid("field \"tmap\": tensor map %d does not exist (%d declared)", o.TMap, v.NTensorMaps))
	}
	if o.Code == RingAdvance && int(o.N) >= int(v.NRings) {
		errs = append(errs, invalid("field \"ring\": ring %d does not exist (%d declared)", o.N, v.NRings))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkControl checks that loops, ifs and elses match and that loops nest at
// most MaxLoopDepth deep.
func checkControl(ops []Op) error {
	var stack []Code
	loops := 0
	for j, o := range ops {
		switch o.Code {
		case Loop:
			loops++
			if loops > MaxLoopDepth {
				return invalid("op %d: loops nest deeper than %d", j, MaxLoopDepth)
			}
			stack = append(stack, Loop)
		case If:
			stack = append(stack, If)
		case Else:
			if len(stack) == 0 || stack[len(stack)-1] != If {
				return invalid("op %d: else outside an if (or a second else)", j)
			}
			stack[len(stack)-1] = Else
		case EndLoop:
			if len(stack) == 0 || stack[len(stack)-1] != Loop {
				return invalid("op %d: endloop without its loop", j)
			}
			loops--
			stack = stack[:len(stack)-1]
		case EndIf:
			if len(stack) == 0 || (stack[len(stack)-1] != If && stack[len(stack)-1] != Else) {
				return invalid("op %d: endif without its if", j)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return invalid("%s left open", stack[len(stack)-1])
	}
	return nil
}
