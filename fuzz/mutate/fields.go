// Package mutate generates and mutates the values of any domain from one
// description of its fields, derived by reflection over the domain's value
// type and its seed values, instead of one hand-written mutator per domain
// (syzkaller's syscall descriptions drive its generator the same way).
//
// A value's leaves are its exported integer and boolean fields, the elements
// of its arrays and nested structs, and its target.Target as one unit. The
// interesting values of a leaf are those its field takes across the domain's
// seeds (the seeds hold every rule's boundary values), their neighbours, and
// the type's special values. A value whose other fields are names and
// spellings (nvvmop: an op as its installation spells it) is mutated in
// its target alone, and generated also from the decoding of random bytes.
// An enumeration's size is its Enum method's; a
// domain described by package desc gives its fields' ranges too. Every
// produced value is normalized by the domain's own decoder, so mutation
// never needs to know a domain's rules.
package mutate

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// leafKind says how a leaf's bits are read and written.
type leafKind uint8

const (
	uintLeaf leafKind = iota
	intLeaf
	boolLeaf
	targetLeaf
)

// leaf is one mutable place in a value.
type leaf struct {
	// key is the path with array indices dropped ("Roles[].Ops[].Code"):
	// leaves with one key share their interesting values, so a threshold seen
	// in one array element is tried in every element.
	key  string
	path []int // field or element index per level
	kind leafKind
	bits int
	// enum is the number of names of an enumeration type; zero for plain
	// numbers.
	enum int
	// ranged says lo..hi is the field's range as its domain describes it
	// (package desc); Random draws from it rather than the seeds' span.
	ranged bool
	lo, hi int64
}

// Fields describes one domain's value type for generation and mutation.
type Fields struct {
	dom    domain.Domain
	typ    reflect.Type
	seeds  []domain.Value
	leaves []leaf
	// groups holds the number and boolean leaves, one group per key.
	groups [][]leaf
	// pools holds, per leaf key, the values the seeds give the field and their
	// ±1 neighbours, as raw bits.
	pools   map[string][]uint64
	targets []target.Target
}

var targetType = reflect.TypeFor[target.Target]()

// enumer is an enumeration type: it names its values.
type enumer interface{ Enum() domain.Enum }

// Describe derives the field description of d from its value type and seeds.
// It fails when d has no seeds or its values are not structs.
func Describe(d domain.Domain) (*Fields, error) {
	seeds := d.Seeds()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("mutate: domain %s has no seeds to describe", d.Name)
	}
	typ := reflect.TypeOf(seeds[0])
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("mutate: domain %s: value type %s is not a struct", d.Name, typ)
	}
	f := &Fields{dom: d, typ: typ, seeds: seeds, pools: map[string][]uint64{}}
	f.walk(typ, "", nil)
	f.describe()
	f.group()
	if len(f.groups) == 0 && f.targetLeaf() == nil {
		return nil, fmt.Errorf("mutate: domain %s: value type %s has no number, boolean or target fields", d.Name, typ)
	}
	for _, s := range seeds {
		if reflect.TypeOf(s) != typ {
			return nil, fmt.Errorf("mutate: domain %s: seeds of types %s and %T", d.Name, typ, s)
		}
		f.learn(reflect.ValueOf(s))
	}
	for k, p := range f.pools {
		slices.Sort(p)
		f.pools[k] = slices.Compact(p)
	}
	f.targets = append(f.targets, target.Known()...)
	return f, nil
}

// walk appends the leaves of t, found under key and path.
func (f *Fields) walk(t reflect.Type, key string, path []int) {
	at := func(i int) []int { return append(slices.Clone(path), i) }
	switch {
	case t == targetType:
		f.leaves = append(f.leaves, leaf{key: key, path: path, kind: targetLeaf})
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() {
				f.walk(sf.Type, strings.TrimPrefix(key+"."+sf.Name, "."), at(i))
			}
		}
	case t.Kind() == reflect.Array:
		for i := range t.Len() {
			f.walk(t.Elem(), key+"[]", at(i))
		}
	case t.Kind() == reflect.Bool:
		f.leaves = append(f.leaves, leaf{key: key, path: path, kind: boolLeaf, bits: 1})
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		f.leaves = append(f.leaves, leaf{key: key, path: path, kind: intLeaf, bits: t.Bits()})
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		f.leaves = append(f.leaves, leaf{key: key, path: path, kind: uintLeaf, bits: t.Bits(), enum: enumSize(t)})
	}
	// Other kinds (strings, slices, maps) hold nothing the fuzz bytes decode
	// into; they are left as the parent value has them.
}

// describe gives the number leaves the ranges of the domain's
// description, where it has one: a field's, an array entry's, and those of
// the fields of a described struct (umma's mode shapes).
func (f *Fields) describe() {
	d, ok := desc.Lookup(f.typ)
	if !ok {
		return
	}
	for i := range f.leaves {
		l := &f.leaves[i]
		if df, ok := described(d.FieldList(), l.path); ok && df.Kind == desc.Int {
			l.ranged, l.lo, l.hi = true, df.Lo, df.Hi
		}
	}
}

// described is the description of the leaf at path (a field index, an
// entry index when the field is an array, then the same inside a struct).
func described(fields []desc.Field, path []int) (desc.Field, bool) {
	for len(path) > 0 {
		i := slices.IndexFunc(fields, func(df desc.Field) bool { return df.Index == path[0] })
		if i < 0 {
			return desc.Field{}, false
		}
		df := fields[i]
		if path = path[1:]; df.Len > 0 && len(path) > 0 {
			path = path[1:] // the entry
		}
		if df.Kind != desc.Struct {
			return df, len(path) == 0
		}
		fields = df.Sub.FieldList()
	}
	return desc.Field{}, false
}

// group sorts the number and boolean leaves into one group per key, in
// field order.
func (f *Fields) group() {
	index := map[string]int{}
	for _, l := range f.leaves {
		if l.kind == targetLeaf {
			continue
		}
		i, ok := index[l.key]
		if !ok {
			i = len(f.groups)
			index[l.key] = i
			f.groups = append(f.groups, nil)
		}
		f.groups[i] = append(f.groups[i], l)
	}
}

// enumSize is the number of names of an enumeration type (one with an
// Enum method, as every domain's enumerations have), zero for other types.
func enumSize(t reflect.Type) int {
	if e, ok := reflect.Zero(t).Interface().(enumer); ok {
		return len(e.Enum())
	}
	return 0
}

// learn adds the leaf values of one seed, and their neighbours, to the pools.
func (f *Fields) learn(v reflect.Value) {
	for _, l := range f.leaves {
		if l.kind == targetLeaf {
			t := l.at(v).Interface().(target.Target)
			if !slices.Contains(f.targets, t) {
				f.targets = append(f.targets, t)
			}
			continue
		}
		x := l.get(l.at(v))
		f.pools[l.key] = append(f.pools[l.key], x, l.wrap(x+1), l.wrap(x-1))
	}
}

// at returns the leaf's place inside the struct v.
func (l leaf) at(v reflect.Value) reflect.Value {
	for _, i := range l.path {
		if v.Kind() == reflect.Struct {
			v = v.Field(i)
		} else {
			v = v.Index(i)
		}
	}
	return v
}

// mask is the leaf's all-ones bit pattern.
func (l leaf) mask() uint64 {
	if l.bits >= 64 {
		return math.MaxUint64
	}
	return 1<<l.bits - 1
}

// wrap reduces x to the leaf's width, as its type would.
func (l leaf) wrap(x uint64) uint64 { return x & l.mask() }

// get reads a number or boolean leaf as raw bits.
func (l leaf) get(v reflect.Value) uint64 {
	switch l.kind {
	case boolLeaf:
		if v.Bool() {
			return 1
		}
		return 0
	case intLeaf:
		return l.wrap(uint64(v.Int()))
	}
	return v.Uint()
}

// set writes raw bits to a number or boolean leaf, sign-extending for
// signed types.
func (l leaf) set(v reflect.Value, x uint64) {
	x = l.wrap(x)
	switch l.kind {
	case boolLeaf:
		v.SetBool(x&1 != 0)
	case intLeaf:
		shift := 64 - l.bits
		v.SetInt(int64(x<<shift) >> shift)
	default:
		v.SetUint(x)
	}
}

// errNoChange says that no attempt changed the value: every mutation hit a
// field the decoder ignores for this value.
var errNoChange = errors.New("mutate: no mutation changed the value")
