package mutate

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Op names one mutation; a generated case's source records the ops that
// made it ("gen:boundary+splice"), so a report can say which ones find.
type Op string

// The mutation ops.
const (
	// Boundary sets a field to a value some seed gives it, or a neighbour of
	// one: every rule's thresholds and the values either side of them.
	Boundary Op = "boundary"
	// Neighbour moves a field one step up or down (a boolean flips).
	Neighbour Op = "neighbour"
	// Random sets a field to a random value within the range the seeds span.
	Random Op = "random"
	// Wide sets a field outside that range: zero, the type's maximum, a power
	// of two, an enumeration index past its names, any value of the width.
	Wide Op = "wide"
	// Splice copies a field, or a whole top-level field, from another value.
	Splice Op = "splice"
	// Target changes the target: another known architecture, a neighbouring
	// PTX ISA version, or any pair the decoder accepts.
	Target Op = "target"
)

// maxTries bounds the attempts at a mutation that changes the value; most
// misses are array elements past a count, which the decoder zeroes.
const maxTries = 16

// opWeights is how often each op is drawn, in percent.
var opWeights = []struct {
	op Op
	w  int
}{{Boundary, 30}, {Neighbour, 15}, {Random, 15}, {Wide, 10}, {Splice, 15}, {Target, 15}}

// Mutate applies a stack of one to three ops to v, normalizes the result by
// the domain's decoder and returns it with the ops applied. The result
// differs from v and round trips (Decode(Encode(r)) equals r). donors are
// other values of the domain for Splice; any of another type is skipped.
func (f *Fields) Mutate(v domain.Value, donors []domain.Value, rnd *rand.Rand) (domain.Value, []Op, error) {
	if reflect.TypeOf(v) != f.typ {
		return nil, nil, fmt.Errorf("mutate: %s value of type %T, want %s", f.dom.Name, v, f.typ)
	}
	orig := v.Encode()
	for range maxTries {
		p := reflect.New(f.typ).Elem()
		p.Set(reflect.ValueOf(v))
		ops := make([]Op, 0, 3)
		for range stackDepth(rnd) {
			ops = append(ops, f.apply(p, donors, rnd))
		}
		out, canon, ok := f.normalize(p.Interface().(domain.Value))
		if ok && !bytes.Equal(canon, orig) {
			return out, ops, nil
		}
	}
	return nil, nil, errNoChange
}

// Generate makes a new value: a random seed (or, one time in ten, the
// decoding of random bytes) mutated one to three times.
func (f *Fields) Generate(rnd *rand.Rand) (domain.Value, []Op, error) {
	v := f.seeds[rnd.IntN(len(f.seeds))]
	if rnd.IntN(10) == 0 {
		if d, err := f.dom.Decode(randomBytes(rnd)); err == nil && reflect.TypeOf(d) == f.typ {
			v = d
		}
	}
	var ops []Op
	for range 1 + rnd.IntN(3) {
		next, more, err := f.Mutate(v, f.seeds, rnd)
		if err != nil {
			break // keep what the earlier rounds made
		}
		v, ops = next, append(ops, more...)
	}
	if len(ops) == 0 {
		return nil, nil, errNoChange
	}
	return v, ops, nil
}

// Domain is the domain f describes.
func (f *Fields) Domain() domain.Domain { return f.dom }

// stackDepth draws 1 (half the time), 2 or 3.
func stackDepth(rnd *rand.Rand) int {
	switch r := rnd.IntN(10); {
	case r < 5:
		return 1
	case r < 8:
		return 2
	}
	return 3
}

func randomBytes(rnd *rand.Rand) []byte {
	b := make([]byte, 8+rnd.IntN(120))
	for i := range b {
		b[i] = byte(rnd.Uint32())
	}
	return b
}

// normalize maps a mutated value to the domain value its bytes decode to,
// and checks that it round trips; it returns the value and its canonical
// bytes.
func (f *Fields) normalize(v domain.Value) (domain.Value, []byte, bool) {
	raw := v.Encode()
	out, err := f.dom.Decode(raw)
	if err != nil {
		return nil, nil, false
	}
	canon, err := domain.RoundTrip(f.dom, out)
	if err != nil {
		return nil, nil, false
	}
	return out, canon, true
}

// apply draws one op and applies it to the addressable struct p.
func (f *Fields) apply(p reflect.Value, donors []domain.Value, rnd *rand.Rand) Op {
	op := drawOp(rnd)
	switch {
	case op == Target && f.targetLeaf() != nil:
		l := f.targetLeaf()
		l.at(p).Set(reflect.ValueOf(f.newTarget(l.at(p).Interface().(target.Target), rnd)))
		return Target
	case op == Splice && len(donors) > 0:
		if d := reflect.ValueOf(donors[rnd.IntN(len(donors))]); d.Type() == f.typ {
			f.splice(p, d, rnd)
			return Splice
		}
	}
	if len(f.groups) == 0 {
		l := f.targetLeaf() // Describe keeps only values with one or the other
		l.at(p).Set(reflect.ValueOf(f.newTarget(l.at(p).Interface().(target.Target), rnd)))
		return Target
	}
	if op == Target || op == Splice {
		op = Boundary // nothing to splice from, or no target: still change a field
	}
	l := f.pickLeaf(rnd)
	l.set(l.at(p), f.value(l, op, l.get(l.at(p)), rnd))
	return op
}

func drawOp(rnd *rand.Rand) Op {
	r := rnd.IntN(100)
	for _, o := range opWeights {
		if r < o.w {
			return o.op
		}
		r -= o.w
	}
	return Boundary
}

// targetLeaf returns the value's target leaf, nil when it has none (the
// domain judges for one fixed target).
func (f *Fields) targetLeaf() *leaf {
	for i := range f.leaves {
		if f.leaves[i].kind == targetLeaf {
			return &f.leaves[i]
		}
	}
	return nil
}

// pickLeaf draws a number or boolean leaf: a field uniformly, then one of
// its array elements with a bias toward the first ones, which counts make
// live more often than the last ones.
func (f *Fields) pickLeaf(rnd *rand.Rand) leaf {
	same := f.groups[rnd.IntN(len(f.groups))]
	return same[min(rnd.IntN(len(same)), rnd.IntN(len(same)))]
}

// value draws the new raw bits of leaf l, now x, for a number op.
func (f *Fields) value(l leaf, op Op, x uint64, rnd *rand.Rand) uint64 {
	pool := f.pools[l.key]
	switch {
	case op == Neighbour && l.kind == boolLeaf:
		return x ^ 1
	case op == Neighbour && rnd.IntN(2) == 0:
		return l.wrap(x + 1)
	case op == Neighbour:
		return l.wrap(x - 1)
	case l.enum > 0 && op != Wide:
		return uint64(rnd.IntN(l.enum))
	case op == Boundary && len(pool) > 0:
		return pool[rnd.IntN(len(pool))]
	case op == Random && l.ranged:
		return l.wrap(uint64(l.lo) + between(0, uint64(l.hi-l.lo), rnd))
	case op == Random && len(pool) > 0:
		return between(pool[0], pool[len(pool)-1], rnd)
	}
	return f.wide(l, pool, rnd)
}

// between draws uniformly from [lo, hi].
func between(lo, hi uint64, rnd *rand.Rand) uint64 {
	if hi-lo == math.MaxUint64 {
		return rnd.Uint64()
	}
	return lo + rnd.Uint64N(hi-lo+1)
}

// wide draws a value off the seeds' range: a type extreme, a power of two
// (or one less), a seed value shifted by a power of two, an enumeration
// index past its names, or any value of the width.
func (f *Fields) wide(l leaf, pool []uint64, rnd *rand.Rand) uint64 {
	k := rnd.IntN(max(l.bits, 1))
	switch r := rnd.IntN(7); {
	case r == 0:
		return 0
	case r == 1:
		return l.mask()
	case r == 2 && l.kind == intLeaf:
		return l.mask() >> 1 // the signed maximum; its +1 is the minimum
	case r == 3:
		return l.wrap(1 << k)
	case r == 4:
		return l.wrap(1<<k - 1)
	case r == 5 && len(pool) > 0:
		return l.wrap(pool[rnd.IntN(len(pool))] + 1<<k)
	case l.enum > 0 && uint64(l.enum) <= l.mask():
		return between(uint64(l.enum), l.mask(), rnd)
	}
	return l.wrap(rnd.Uint64())
}

// splice copies into p, from the donor d, one leaf or the whole top-level
// field holding it.
func (f *Fields) splice(p, d reflect.Value, rnd *rand.Rand) {
	l := f.leaves[rnd.IntN(len(f.leaves))]
	if rnd.IntN(2) == 0 {
		p.Field(l.path[0]).Set(d.Field(l.path[0]))
		return
	}
	l.at(p).Set(l.at(d))
}

// newTarget draws a target other than t where it can: a known or seen one
// (five times in eight), a neighbouring PTX ISA version of the same
// architecture (two), or any pair of the canonical encoding (one). Most
// pairs name a PTX ISA version below the architecture's first, which only
// spec/ptxisa and ptxas judge (every LLVM refuses or rewrites it): drawn
// one time in three, they were 9-17% of a seed's mutations and a fifth of
// every domain's cases in a campaign.
func (f *Fields) newTarget(t target.Target, rnd *rand.Rand) target.Target {
	enc := t.Encode(nil)
	switch r := rnd.IntN(8); {
	case r < 5:
		return f.targets[rnd.IntN(len(f.targets))]
	case r < 7:
		if enc[1] > 0 && rnd.IntN(2) == 0 {
			return target.Decode(enc[0], enc[1]-1)
		}
		return target.Decode(enc[0], enc[1]+1) // the last version wraps to the first
	}
	return target.Decode(byte(rnd.Uint32()), byte(rnd.Uint32()))
}
