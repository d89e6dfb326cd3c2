package desc

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Given says which fields a JSON input gave, and how many entries each
// given array had: what Derive and Check decide defaults and rules by.
type Given struct {
	m       map[string]json.RawMessage
	lens    map[string]int
	spelled map[string]string
}

// Spelled is the alias an enumeration field was written as (the value's
// Alias method took it), or "".
func (g Given) Spelled(field string) string { return g.spelled[field] }

// Has reports whether the input gave the field (not null).
func (g Given) Has(field string) bool { _, ok := g.m[field]; return ok }

// Raw is the JSON a key was given as, and whether it was given.
func (g Given) Raw(key string) (json.RawMessage, bool) { r, ok := g.m[key]; return r, ok }

// Len is the number of entries of a given array field; 0 when absent.
func (g Given) Len(field string) int { return g.lens[field] }

// JSON writes the fields of v in struct order, a target as its "target"
// and "ptx", an array as the entries v carries; it leaves out the fields v
// has no use for.
func (t *Table[V]) JSON(v V) ([]byte, error) {
	p := unsafe.Pointer(&v)
	b := make([]byte, 0, 256)
	b = append(b, '{')
	for i := range t.fields {
		f := &t.fields[i]
		if f.NoKey || t.unused && any(&v).(unuser).Unused(f.Name) != "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		if f.Kind == Target {
			tj := f.tgt(p).ToJSON()
			b = strconv.AppendQuote(append(b, `"target":`...), tj.Target)
			b = strconv.AppendQuote(append(b, `,"ptx":`...), tj.PTX)
			continue
		}
		b = append(strconv.AppendQuote(b, f.Name), ':')
		if f.Len == 0 {
			b = f.appendEntry(b, p, 0)
			continue
		}
		b = append(b, '[')
		for j := range t.count(&v, f) {
			if j > 0 {
				b = append(b, ',')
			}
			b = f.appendEntry(b, p, j)
		}
		b = append(b, ']')
	}
	for _, k := range t.extra {
		if x := any(&v).(speller).Spell(k); x != nil {
			js, err := json.Marshal(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", t.domain, k, err)
			}
			b = append(append(strconv.AppendQuote(append(b, ','), k), ':'), js...)
		}
	}
	return append(b, '}'), nil
}

// Extra reads the value of another spelling's key (Spellings) as T: ok is
// false when the key is absent; the error names the key.
func Extra[T any](given Given, key string) (x T, ok bool, err error) {
	raw, ok := given.m[key]
	if !ok {
		return x, false, nil
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return x, true, typeErr(key, fmt.Sprintf("%T", x), err)
	}
	return x, true, nil
}

// appendEntry writes entry i of a field as JSON.
func (f *Field) appendEntry(b []byte, p unsafe.Pointer, i int) []byte {
	n := f.getAt(p, i)
	switch {
	case f.Names != nil:
		return strconv.AppendQuote(b, f.Names.Name(int(n)))
	case f.Kind == Bool:
		return strconv.AppendBool(b, n != 0)
	case f.goKind == reflect.Uint64:
		return strconv.AppendUint(b, uint64(n), 10)
	}
	return strconv.AppendInt(b, n, 10)
}

// Parse parses the strict JSON form: an absent (or null) field takes its
// default, a static one from its tag or a derived one from the value's
// Derive method; an unknown field, a value of the wrong JSON type, one out
// of range or one the value has no use for is an error naming the field.
// Errors start with the domain's name, so a log line says who refused.
func (t *Table[V]) Parse(data []byte) (domain.Value, error) {
	v, err := t.parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.domain, err)
	}
	return v, nil
}

func (t *Table[V]) parse(data []byte) (V, error) {
	var v V
	m, err := t.object(data)
	if err != nil {
		return v, err
	}
	p := unsafe.Pointer(&v)
	for i := range t.fields { // the target first, as the hand-written forms did
		if f := &t.fields[i]; f.Kind == Target {
			if *f.tgt(p), err = parseTarget(m, f.defArch); err != nil {
				return v, err
			}
		}
	}
	given := Given{m: m, lens: map[string]int{}, spelled: map[string]string{}}
	for i := range t.fields {
		f := &t.fields[i]
		if f.Kind == Target {
			continue
		}
		raw, ok := m[f.Name]
		switch {
		case !ok:
			for j := range f.entries() {
				f.setAt(p, j, f.def)
			}
		case f.Len > 0:
			if given.lens[f.Name], err = f.parseArray(p, raw); err != nil {
				return v, err
			}
		default:
			n, err := t.parseScalar(f, raw, given)
			if err != nil {
				return v, err
			}
			f.set(p, n)
		}
	}
	if t.derives {
		any(&v).(deriver).Derive(given)
	}
	if err := t.refuseUnused(&v, given); err != nil {
		return v, err
	}
	if err := t.checkCounts(&v, given); err != nil {
		return v, err
	}
	if t.checks {
		if err := any(&v).(checker).Check(given); err != nil {
			return v, err
		}
	}
	return v, nil
}

// parseScalar reads one scalar field's raw JSON value, or an alias of an
// enumeration's name, which it records in given.
func (t *Table[V]) parseScalar(f *Field, raw json.RawMessage, given Given) (int64, error) {
	n, err := f.parseJSON(raw)
	if err == nil || f.Kind != Enum || !t.aliases {
		return n, err
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return n, err
	}
	name, ok := any(new(V)).(aliaser).Alias(f.Name, s)
	if !ok {
		return n, err
	}
	i, perr := f.Names.Parse(f.Name, name)
	given.spelled[f.Name] = s
	return int64(i), perr
}

// parseArray reads a given array's entries into the field (at most its
// length) and returns how many there were.
func (f *Field) parseArray(p unsafe.Pointer, raw json.RawMessage) (int, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return 0, typeErr(f.Name, "array", err)
	}
	if len(entries) > f.Len {
		return 0, fmt.Errorf("field %q: %d entries, at most %d", f.Name, len(entries), f.Len)
	}
	for j, e := range entries {
		n, err := f.parseJSON(e)
		if err != nil {
			return 0, err
		}
		f.setAt(p, j, n)
	}
	return len(entries), nil
}

// checkCounts refuses a given array with another number of entries than
// the value carries, and zeroes the entries past that number (defaults
// fill every entry).
func (t *Table[V]) checkCounts(v *V, given Given) error {
	p := unsafe.Pointer(v)
	for i := range t.fields {
		f := &t.fields[i]
		if f.Len == 0 {
			continue
		}
		n := t.count(v, f)
		if given.Has(f.Name) && given.Len(f.Name) != n {
			return fmt.Errorf("field %q: %d entries, want %d for this value", f.Name, given.Len(f.Name), n)
		}
		f.clearFrom(p, n)
	}
	return nil
}

// object decodes data into its fields' raw values, refusing unknown names
// and dropping nulls (an absent field).
func (t *Table[V]) object(data []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("bad JSON: %w", err)
		}
		return nil, fmt.Errorf("bad JSON: want an object: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if string(m[k]) == "null" {
			delete(m, k)
			continue
		}
		if i, ok := t.byName[k]; (!ok || t.fields[i].NoKey) && !t.targetKey(k) && !slices.Contains(t.extra, k) {
			return nil, fmt.Errorf("field %q: unknown field %q (want one of %q)", k, k, append(names(t.fields), t.extra...))
		}
	}
	return m, nil
}

// targetKey reports whether k is "target" or "ptx" of a value with a target.
func (t *Table[V]) targetKey(k string) bool {
	if k != "target" && k != "ptx" {
		return false
	}
	return slices.ContainsFunc(t.fields, func(f Field) bool { return f.Kind == Target })
}

// refuseUnused zeroes the fields the value has no use for, and refuses one
// given non-zero (an array given with entries).
func (t *Table[V]) refuseUnused(v *V, given Given) error {
	if !t.unused {
		return nil
	}
	u, p := any(v).(unuser), unsafe.Pointer(v)
	for i := range t.fields {
		f := &t.fields[i]
		why := u.Unused(f.Name)
		if why == "" {
			continue
		}
		if given.Has(f.Name) && (!f.isZero(p) || given.Len(f.Name) > 0) {
			return fmt.Errorf("field %q: %s, but %s", f.Name, given.m[f.Name], why)
		}
		f.clear(p)
	}
	return nil
}

// parseJSON reads one field's raw JSON value.
func (f *Field) parseJSON(raw json.RawMessage) (int64, error) {
	switch {
	case f.Names != nil:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, typeErr(f.Name, "string", err)
		}
		i, err := f.Names.Parse(f.Name, s)
		return int64(i), err
	case f.Kind == Bool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return 0, typeErr(f.Name, "bool", err)
		}
		if b {
			return 1, nil
		}
		return 0, nil
	}
	if f.goKind == reflect.Uint64 {
		var u uint64
		if err := json.Unmarshal(raw, &u); err != nil {
			return 0, typeErr(f.Name, "uint64", err)
		}
		return int64(u), nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, typeErr(f.Name, "int", err)
	}
	return n, checkRange(f, n)
}

// checkRange is domain.Range for a field, and refuses a pow2 field's
// other numbers.
func checkRange(f *Field, n int64) error {
	if n < f.Lo || n > f.Hi {
		return fmt.Errorf("field %q: %d out of range [%d, %d]", f.Name, n, f.Lo, f.Hi)
	}
	if f.Pow2 && !isPow2(n) {
		return fmt.Errorf("field %q: %d is not a power of two", f.Name, n)
	}
	return nil
}

// typeErr names the field whose JSON value has the wrong type.
func typeErr(field, want string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q: want %s, got JSON %s", field, want, te.Value)
	}
	return fmt.Errorf("field %q: %w", field, err)
}

// parseTarget reads "target" (def when absent) and "ptx".
func parseTarget(m map[string]json.RawMessage, def target.Arch) (target.Target, error) {
	var tj target.JSON
	for _, p := range []struct {
		name string
		dst  *string
	}{{"target", &tj.Target}, {"ptx", &tj.PTX}} {
		if raw, ok := m[p.name]; ok {
			if err := json.Unmarshal(raw, p.dst); err != nil {
				return target.Target{}, typeErr(p.name, "string", err)
			}
		}
	}
	return tj.FromJSON(def)
}
