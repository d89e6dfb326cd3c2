// Package lattice sweeps a domain's lattice: the interesting values of each
// of its fields, combined so that every pair of values of two fields is in
// some case (a covering array of strength two). Random mutation reaches a
// given pair of enum values only by luck, and a bug behind one type × shape
// pair or one count one off its legal values waited for that luck; a sweep
// judges every pair within a known number of cases.
//
// The lattice is built from a domain's JSON form, so that fields which
// depend on others are derived the one way the domain declares (its Derive
// method, through desc): a row names the values of its axes and omits the
// rest, and ParseJSON fills them in consistently. A pair no row can hold
// (the domain's JSON form refuses every row with it) is unrealizable, and
// counted apart from the pairs to cover.
package lattice

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// maxValues caps the values of a numeric or composite axis (an enumeration
// keeps all its names): the seeds' own values come first, so the cap drops
// the neighbours and powers of two of the fields with the most seed values.
const maxValues = 16

// Axis is one JSON key of the domain and the values the sweep gives it. A
// nil value omits the key, so the domain's default (or derivation) applies.
type Axis struct {
	Key    string
	Values []json.RawMessage
	// Derived is set for a field whose default the domain derives from
	// others (register counts from a matrix count, B's type from A's): its
	// first value is nil, and the rows that sweep the other axes' pairs
	// leave it to the derivation, so they stay consistent.
	Derived bool
}

// Lattice is a domain's sweep: its axes and the rows that cover their pairs.
type Lattice struct {
	Domain string
	Axes   []Axis
	// Fingerprint names the lattice: it changes when an axis or a value
	// does (a seed added, a field described anew), so a sweep resumed on a
	// store restarts rather than skipping rows of another lattice.
	Fingerprint string
	// Pairs counts the pairs of values of two axes that some row holds.
	Pairs int
	// Unrealizable counts the pairs no row the domain parses can hold.
	Unrealizable int

	rows    []domain.Value
	covered []int // covered[i]: pairs held by rows[:i+1]
}

// Len is the number of rows.
func (l *Lattice) Len() int { return len(l.rows) }

// Row is the i-th row's value.
func (l *Lattice) Row(i int) domain.Value { return l.rows[i] }

// Covered is the number of pairs the first n rows hold.
func (l *Lattice) Covered(n int) int {
	if n <= 0 || len(l.covered) == 0 {
		return 0
	}
	return l.covered[min(n, len(l.covered))-1]
}

// built holds each domain's lattice: a sweep is a pure function of the
// domain, and tmadesc's takes seconds on a loaded machine.
var built sync.Map // domain name -> func() (*Lattice, error)

// For is the lattice of d (computed once per process): see Build.
func For(d domain.Domain) (*Lattice, error) {
	f, _ := built.LoadOrStore(d.Name, sync.OnceValues(func() (*Lattice, error) { return Build(d) }))
	return f.(func() (*Lattice, error))()
}

// Build computes the lattice of d from its seeds and, when the domain is
// described (package desc), from its fields' names and ranges.
func Build(d domain.Domain) (*Lattice, error) {
	axes, err := axesOf(d)
	if err != nil {
		return nil, fmt.Errorf("lattice %s: %w", d.Name, err)
	}
	l := &Lattice{Domain: d.Name, Axes: axes, Fingerprint: fingerprint(d.Name, axes)}
	newSweep(d, axes).run(l)
	return l, nil
}

// method names the way rows are built: a change to it changes the rows of
// the same axes, so it is part of every fingerprint.
const method = "greedy, rows counted as parsed"

func fingerprint(name string, axes []Axis) string {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte(name))
	for _, a := range axes {
		fmt.Fprintf(h, "\x00%s", a.Key)
		for _, v := range a.Values {
			fmt.Fprintf(h, "\x01%s", v)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// axesOf lists the domain's axes: one per JSON key its seeds write (or, for
// a described domain, per field it has a key for), each with the seeds'
// values of it and the values the field's description adds.
func axesOf(d domain.Domain) ([]Axis, error) {
	seeds := d.Seeds()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no seeds")
	}
	seen, order, err := seedValues(seeds)
	if err != nil {
		return nil, err
	}
	fields := describedFields(seeds[0])
	if fields == nil {
		return plainAxes(seen, order, len(seeds)), nil
	}
	var axes []Axis
	for _, f := range fields {
		if f.NoKey {
			continue
		}
		if f.Kind == desc.Target {
			axes = append(axes, targetAxis(seen["target"]), Axis{Key: "ptx", Values: withOmitted(seen["ptx"].values), Derived: true})
			continue
		}
		vals := fieldValues(f, seen[f.Name].values)
		if f.Derived {
			vals = withOmitted(vals)
		}
		axes = append(axes, Axis{Key: f.Name, Values: vals, Derived: f.Derived})
	}
	return axes, nil
}

// seen is what the seeds write for one key.
type seen struct {
	values []json.RawMessage // distinct, in the seeds' order
	count  int               // seeds that write the key
}

// seedValues reads every seed's JSON object: per key, its distinct values.
func seedValues(seeds []domain.Value) (map[string]*seen, []string, error) {
	out := map[string]*seen{}
	var order []string
	for _, s := range seeds {
		js, err := json.Marshal(s)
		if err != nil {
			return nil, nil, fmt.Errorf("seed JSON: %w", err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(js, &obj); err != nil {
			return nil, nil, fmt.Errorf("seed JSON is not an object: %w", err)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := out[k]
			if e == nil {
				e = &seen{}
				out[k] = e
				order = append(order, k)
			}
			e.count++
			e.values = addValue(e.values, compact(obj[k]))
		}
	}
	return out, order, nil
}

// plainAxes are the axes of a domain without a field description: each key
// the seeds write, with the values they give it, and omitted where some
// seed leaves the key out.
func plainAxes(seen map[string]*seen, order []string, seeds int) []Axis {
	axes := make([]Axis, 0, len(order))
	for _, k := range order {
		vals := seen[k].values
		if len(vals) > maxValues {
			vals = vals[:maxValues]
		}
		if seen[k].count < seeds {
			vals = withOmitted(vals)
		}
		axes = append(axes, Axis{Key: k, Values: vals})
	}
	return axes
}

// describedFields is the field list of v's type when package desc describes
// it; nil otherwise.
func describedFields(v domain.Value) []desc.Field {
	t, ok := desc.Lookup(reflect.TypeOf(v))
	if !ok {
		return nil
	}
	return t.FieldList()
}

// targetAxis gives every known architecture: whether a tool gates an
// instruction on the right targets is the question most of its bugs answer.
func targetAxis(s *seen) Axis {
	var vals []json.RawMessage
	for _, name := range target.ArchNames() {
		vals = addValue(vals, quote(name))
	}
	if s != nil {
		for _, v := range s.values {
			vals = addValue(vals, v)
		}
	}
	return Axis{Key: "target", Values: vals}
}

// fieldValues are a field's values: every name of an enumeration or bool;
// for a number the seeds' values, their neighbours, the range's ends and
// the powers of two up to twice the largest seed value; for an array or a
// struct the seeds' values.
func fieldValues(f desc.Field, seeds []json.RawMessage) []json.RawMessage {
	if f.Len > 0 || f.Kind == desc.Struct {
		return capped(seeds)
	}
	switch f.Kind {
	case desc.Enum:
		var vals []json.RawMessage
		for _, n := range f.Names {
			vals = append(vals, quote(n))
		}
		return vals
	case desc.Bool:
		if f.Names != nil {
			return []json.RawMessage{quote(f.Names[0]), quote(f.Names[1])}
		}
		return []json.RawMessage{json.RawMessage("false"), json.RawMessage("true")}
	}
	return capped(numbers(f, seeds))
}

// numbers lists a numeric field's interesting values, most telling first:
// the seeds' (every rule's boundaries), one either side of each (one past a
// limit), the range's ends, and powers of two.
func numbers(f desc.Field, seeds []json.RawMessage) []json.RawMessage {
	var seedNums []int64
	for _, s := range seeds {
		if n, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			seedNums = append(seedNums, n)
		}
	}
	var out []json.RawMessage
	add := func(n int64) {
		if n < f.Lo || n > f.Hi || (f.Pow2 && (n <= 0 || n&(n-1) != 0)) {
			return
		}
		out = addValue(out, json.RawMessage(strconv.FormatInt(n, 10)))
	}
	for _, n := range seedNums {
		add(n)
	}
	for _, n := range seedNums {
		add(n - 1)
		add(n + 1)
	}
	add(f.Lo)
	add(f.Hi)
	top := int64(1)
	for _, n := range seedNums {
		top = max(top, n)
	}
	for p := int64(1); p > 0 && p <= 2*top; p <<= 1 {
		add(p)
	}
	return out
}

func capped(vals []json.RawMessage) []json.RawMessage {
	if len(vals) > maxValues {
		return vals[:maxValues]
	}
	return vals
}

func withOmitted(vals []json.RawMessage) []json.RawMessage {
	return append([]json.RawMessage{nil}, vals...)
}

func addValue(vals []json.RawMessage, v json.RawMessage) []json.RawMessage {
	if slices.ContainsFunc(vals, func(x json.RawMessage) bool { return bytes.Equal(x, v) }) {
		return vals
	}
	return append(vals, v)
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}
