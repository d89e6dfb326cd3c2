package schedule

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// The JSON form, e.g.
//
//	{"target":"sm_90a","buffers":["smem"],"barriers":[{"count":1}],"rings":[2],
//	 "roles":[{"kind":"load","ops":[{"op":"mbarrier.try_wait.parity","bar":"0+r0","parity":1}]}]}
//
// A ref (a, b, d, bar, tile) is a number, or "BASE+rK" for BASE plus the
// role's position in ring K. Ops carry only the fields they use; a field an
// op does not use is an error. Defaults: target sm_90a, ptx the target's
// first PTX ISA version, max_states 0 (the model's default bound), barrier
// preinit true with count 1, refs/tmap/parity/n 0, arrive count 1, loop
// trips 1, if cond "any", fence space "" (plain), call effect "none", flags
// false; the output leaves defaulted tiles and flags out.
type jsonForm struct {
	target.JSON
	MaxStates  *int64        `json:"max_states,omitempty"`
	Buffers    []string      `json:"buffers"`
	Barriers   []jsonBarrier `json:"barriers"`
	Rings      []int         `json:"rings"`
	TensorMaps *int          `json:"tensormaps,omitempty"`
	Roles      []jsonRole    `json:"roles"`
}

type jsonBarrier struct {
	Preinit *bool  `json:"preinit,omitempty"`
	Count   *int64 `json:"count,omitempty"`
}

type jsonRole struct {
	Kind string   `json:"kind"`
	Ops  []jsonOp `json:"ops"`
}

type jsonOp struct {
	Op         string  `json:"op"`
	A          *Ref    `json:"a,omitempty"`
	B          *Ref    `json:"b,omitempty"`
	D          *Ref    `json:"d,omitempty"`
	Bar        *Ref    `json:"bar,omitempty"`
	ID         *int    `json:"id,omitempty"`
	TMap       *int    `json:"tmap,omitempty"`
	Tile       *Ref    `json:"tile,omitempty"`
	Parity     *int    `json:"parity,omitempty"`
	N          *int64  `json:"n,omitempty"`
	Bytes      *int64  `json:"bytes,omitempty"`
	Count      *int64  `json:"count,omitempty"`
	Trips      *int64  `json:"trips,omitempty"`
	Cond       *string `json:"cond,omitempty"`
	Ring       *int64  `json:"ring,omitempty"`
	NoComplete *bool   `json:"no_complete,omitempty"`
	Read       *bool   `json:"read,omitempty"`
	Space      *string `json:"space,omitempty"`
	SmemArg    *bool   `json:"smem_arg,omitempty"`
	Effect     *string `json:"effect,omitempty"`
}

// MarshalJSON spells a ref as a number or "BASE+rK".
func (r Ref) MarshalJSON() ([]byte, error) {
	if r.Ring == 0 {
		return []byte(strconv.Itoa(int(r.Base))), nil
	}
	return json.Marshal(RefString(r))
}

// UnmarshalJSON parses a number or "BASE+rK".
func (r *Ref) UnmarshalJSON(data []byte) error {
	var n int
	if err := json.Unmarshal(data, &n); err == nil {
		if n < 0 || n > 15 {
			return fmt.Errorf("ref %d out of range [0, 15]", n)
		}
		*r = Ref{Base: uint8(n)}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("ref %s: want a number or \"BASE+rK\"", data)
	}
	base, ring, ok := strings.Cut(s, "+r")
	b, err1 := strconv.Atoi(base)
	k, err2 := strconv.Atoi(ring)
	if !ok || err1 != nil || err2 != nil || b < 0 || b > 15 || k < 0 || k >= MaxRings {
		return fmt.Errorf("ref %q: want a number or \"BASE+rK\" with BASE 0..15 and K 0..%d", s, MaxRings-1)
	}
	*r = Ref{Base: uint8(b), Ring: uint8(k + 1)}
	return nil
}

// MarshalJSON writes the full form: every declaration, and each op with the
// fields it uses.
func (v Value) MarshalJSON() ([]byte, error) {
	f := jsonForm{JSON: v.Tgt.ToJSON(), Buffers: []string{}, Barriers: []jsonBarrier{}, Rings: []int{}}
	if v.MaxStates != 0 {
		n := int64(v.MaxStates)
		f.MaxStates = &n
	}
	if v.NTensorMaps != 0 {
		n := int(v.NTensorMaps)
		f.TensorMaps = &n
	}
	for _, s := range v.Buffers[:v.NBuffers] {
		f.Buffers = append(f.Buffers, BufSpaces.Name(int(s)))
	}
	for _, b := range v.Barriers[:v.NBarriers] {
		if b.Preinit {
			n := int64(b.Count)
			f.Barriers = append(f.Barriers, jsonBarrier{Count: &n})
		} else {
			no := false
			f.Barriers = append(f.Barriers, jsonBarrier{Preinit: &no})
		}
	}
	for _, s := range v.Rings[:v.NRings] {
		f.Rings = append(f.Rings, int(s))
	}
	for _, role := range v.RoleList() {
		jr := jsonRole{Kind: role.Kind.String(), Ops: []jsonOp{}}
		for _, o := range role.Program() {
			jr.Ops = append(jr.Ops, opJSON(o))
		}
		f.Roles = append(f.Roles, jr)
	}
	return json.Marshal(f)
}

func opJSON(o Op) jsonOp {
	j := jsonOp{Op: o.Code.String()}
	fl := o.Code.Fields()
	ref := func(r Ref) *Ref { return &r }
	num := func(n uint32) *int64 { x := int64(n); return &x }
	if fl&FA != 0 && (o.Code != Call || o.SmemArg() || o.Effect() != EffectNone) {
		j.A = ref(o.A)
	}
	if fl&FB != 0 {
		j.B = ref(o.B)
	}
	if fl&FC != 0 {
		j.D = ref(o.C)
	}
	if fl&FBar != 0 {
		if o.Code == BarSync {
			id := int(o.Bar.Base)
			j.ID = &id
		} else {
			j.Bar = ref(o.Bar)
		}
	}
	if fl&FTMap != 0 {
		t := int(o.TMap)
		j.TMap = &t
	}
	if fl&FTile != 0 {
		j.Tile = ref(o.Tile)
	}
	if fl&FParity != 0 {
		p := int(o.Parity)
		j.Parity = &p
	}
	switch o.Code.N() {
	case NWait:
		j.N = num(o.N)
	case NBytes:
		j.Bytes = num(o.N)
	case NCount, NRoles:
		j.Count = num(o.N)
	case NTrips:
		j.Trips = num(o.N)
	case NCond:
		c := Conds.Name(int(o.N))
		j.Cond = &c
	case NRing:
		j.Ring = num(o.N)
	}
	// Flags are written only when set: absent means false, "" or "none".
	b := func(x bool) *bool {
		if !x {
			return nil
		}
		return &x
	}
	s := func(x string) *string {
		if x == "" || x == "none" {
			return nil
		}
		return &x
	}
	j.NoComplete, j.Read, j.SmemArg = b(o.NoComplete()), b(o.Read()), b(o.SmemArg())
	j.Space, j.Effect = s(Spaces.Name(int(o.Space()))), s(Effects.Name(int(o.Effect())))
	if o.Tile == (Ref{}) {
		j.Tile = nil
	}
	return j
}

// ParseJSON parses the strict JSON form (see jsonForm for defaults).
func ParseJSON(data []byte) (domain.Value, error) {
	return domain.ParseTargetForm("schedule", data, DefaultArch, jsonForm.value)
}

func (f jsonForm) value(t target.Target) (Value, error) {
	v := Value{Tgt: t}
	if f.MaxStates != nil {
		if err := domain.Range("max_states", *f.MaxStates, 0, MaxStatesLimit); err != nil {
			return v, err
		}
		v.MaxStates = uint32(*f.MaxStates)
	}
	if err := f.declarations(&v); err != nil {
		return v, err
	}
	if len(f.Roles) < 1 || len(f.Roles) > MaxRoles {
		return v, fmt.Errorf("field \"roles\": %d roles, want 1..%d", len(f.Roles), MaxRoles)
	}
	v.NRoles = uint8(len(f.Roles))
	for i, jr := range f.Roles {
		if err := v.parseRole(i, jr); err != nil {
			return v, err
		}
	}
	return v, v.Validate()
}

func (f jsonForm) declarations(v *Value) error {
	if len(f.Buffers) > MaxBuffers {
		return fmt.Errorf("field \"buffers\": %d buffers, want at most %d", len(f.Buffers), MaxBuffers)
	}
	v.NBuffers = uint8(len(f.Buffers))
	for i, s := range f.Buffers {
		sp, err := BufSpaces.Parse(fmt.Sprintf("buffers[%d]", i), s)
		if err != nil {
			return err
		}
		v.Buffers[i] = BufSpace(sp)
	}
	if len(f.Barriers) > MaxBarriers {
		return fmt.Errorf("field \"barriers\": %d mbarriers, want at most %d", len(f.Barriers), MaxBarriers)
	}
	v.NBarriers = uint8(len(f.Barriers))
	for i, b := range f.Barriers {
		if b.Preinit != nil && !*b.Preinit {
			if b.Count != nil {
				return fmt.Errorf("field \"barriers[%d].count\": an mbarrier without preinit takes its count from mbarrier.init", i)
			}
			continue
		}
		n := int64(1)
		if b.Count != nil {
			n = *b.Count
		}
		if err := domain.Range(fmt.Sprintf("barriers[%d].count", i), n, 0, MaxCount); err != nil {
			return err
		}
		v.Barriers[i] = Barrier{Preinit: true, Count: uint32(n)}
	}
	if len(f.Rings) > MaxRings {
		return fmt.Errorf("field \"rings\": %d rings, want at most %d", len(f.Rings), MaxRings)
	}
	v.NRings = uint8(len(f.Rings))
	for i, s := range f.Rings {
		if err := domain.Range(fmt.Sprintf("rings[%d]", i), int64(s), 1, MaxStages); err != nil {
			return err
		}
		v.Rings[i] = uint8(s)
	}
	if err := domain.OptInt("tensormaps", f.TensorMaps, 0, MaxTensorMaps, &v.NTensorMaps); err != nil {
		return err
	}
	return nil
}

func (v *Value) parseRole(i int, jr jsonRole) error {
	role := &v.Roles[i]
	k, err := RoleKinds.Parse(fmt.Sprintf("roles[%d].kind", i), jr.Kind)
	if err != nil {
		return err
	}
	role.Kind = RoleKind(k)
	if len(jr.Ops) > MaxOps {
		return fmt.Errorf("field \"roles[%d].ops\": %d ops, want at most %d", i, len(jr.Ops), MaxOps)
	}
	role.NOps = uint8(len(jr.Ops))
	for j, jo := range jr.Ops {
		o, err := jo.op()
		if err != nil {
			return fmt.Errorf("roles[%d].ops[%d]: %w", i, j, err)
		}
		if err := v.validateOp(o); err != nil {
			return fmt.Errorf("roles[%d].ops[%d]: %w", i, j, err)
		}
		role.Ops[j] = o
	}
	return nil
}

// op builds an op from its JSON, refusing fields the op does not use.
func (j jsonOp) op() (Op, error) {
	c, ok := ParseCode(j.Op)
	if !ok {
		return Op{}, fmt.Errorf("field \"op\": unknown op %q", j.Op)
	}
	o := Op{Code: c}
	fl := c.Fields()
	p := &opParser{op: &o, fields: fl}
	p.ref("a", j.A, FA, &o.A)
	p.ref("b", j.B, FB, &o.B)
	p.ref("d", j.D, FC, &o.C)
	if c == BarSync {
		p.refuse("bar", j.Bar != nil)
		if j.ID != nil {
			p.check(domain.Range("id", int64(*j.ID), 0, MaxNamedBars-1))
			o.Bar = Ref{Base: uint8(*j.ID)}
		}
	} else {
		p.refuse("id", j.ID != nil)
		p.ref("bar", j.Bar, FBar, &o.Bar)
	}
	p.small("tmap", j.TMap, FTMap, MaxTensorMaps-1, &o.TMap)
	p.ref("tile", j.Tile, FTile, &o.Tile)
	p.small("parity", j.Parity, FParity, 1, &o.Parity)
	p.number(j, c)
	p.flags(j, c)
	return o, p.err
}

type opParser struct {
	op     *Op
	fields Field
	err    error
}

func (p *opParser) check(err error) {
	if p.err == nil {
		p.err = err
	}
}

func (p *opParser) refuse(name string, given bool) {
	if given {
		p.check(fmt.Errorf("field %q does not apply to %s", name, p.op.Code))
	}
}

func (p *opParser) ref(name string, r *Ref, f Field, dst *Ref) {
	if r == nil {
		return
	}
	if p.fields&f == 0 {
		p.refuse(name, true)
		return
	}
	*dst = *r
}

func (p *opParser) small(name string, x *int, f Field, hi int, dst *uint8) {
	if x == nil {
		return
	}
	if p.fields&f == 0 {
		p.refuse(name, true)
		return
	}
	p.check(domain.Range(name, int64(*x), 0, int64(hi)))
	*dst = uint8(*x)
}

// number reads the op's N from the one field its code names.
func (p *opParser) number(j jsonOp, c Code) {
	given := map[NKind]*int64{NWait: j.N, NBytes: j.Bytes, NCount: j.Count, NTrips: j.Trips, NRing: j.Ring}
	names := map[NKind]string{NWait: "n", NBytes: "bytes", NCount: "count", NTrips: "trips", NRing: "ring"}
	want := c.N()
	if want == NRoles {
		want = NCount
	}
	for k, x := range given {
		if x != nil && k != want {
			p.refuse(names[k], true)
		}
	}
	if c.N() != NCond {
		p.refuse("cond", j.Cond != nil)
	}
	lo, hi := int64(0), int64(MaxCount)
	def := int64(0)
	switch c.N() {
	case NNone:
		return
	case NCond:
		if j.Cond != nil {
			k, err := Conds.Parse("cond", *j.Cond)
			p.check(err)
			p.op.N = uint32(k)
		}
		return
	case NWait:
		hi = MaxWaitN
	case NRoles:
		hi = MaxRoles
	case NTrips:
		lo, hi, def = 1, MaxTrips, 1
	case NRing:
		hi = MaxRings - 1
	case NCount:
		if c == MbarArrive {
			lo, def = 1, 1
		}
	}
	n := def
	if x := given[want]; x != nil {
		n = *x
	}
	p.check(domain.Range(names[want], n, lo, hi))
	p.op.N = uint32(n)
}

func (p *opParser) flags(j jsonOp, c Code) {
	p.refuse("no_complete", j.NoComplete != nil && c != MbarArrive)
	p.refuse("read", j.Read != nil && c != BulkWait)
	p.refuse("space", j.Space != nil && c != FenceProxyAsync)
	p.refuse("smem_arg", j.SmemArg != nil && c != Call)
	p.refuse("effect", j.Effect != nil && c != Call)
	val := func(b *bool) bool { return b != nil && *b }
	space, eff := 0, 0
	var err error
	if j.Space != nil {
		space, err = Spaces.Parse("space", *j.Space)
		p.check(err)
	}
	if j.Effect != nil {
		eff, err = Effects.Parse("effect", *j.Effect)
		p.check(err)
	}
	*p.op = p.op.WithFlags(val(j.NoComplete), val(j.Read), Space(space), val(j.SmemArg), Effect(eff))
	if c == Call && !p.op.SmemArg() && p.op.Effect() == EffectNone && j.A != nil {
		p.check(fmt.Errorf("field \"a\": a call without smem_arg or effect names no buffer"))
	}
}
