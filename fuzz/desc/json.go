package desc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/internal/clip"
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

// HasAny reports whether the input gave any of the fields: whether a value
// written both as a packed word and as its fields was given the fields.
func (g Given) HasAny(fields []string) bool { return slices.ContainsFunc(fields, g.Has) }

// Raw is the JSON a key was given as, and whether it was given.
func (g Given) Raw(key string) (json.RawMessage, bool) { r, ok := g.m[key]; return r, ok }

// Len is the number of entries of a given array field; 0 when absent.
func (g Given) Len(field string) int { return g.lens[field] }

// JSON writes the fields of v in struct order, a target as its "target"
// and "ptx", an array as the entries v carries; it leaves out the fields v
// has no use for.
func (t *Table[V]) JSON(v V) ([]byte, error) {
	b, err := t.appendObject(make([]byte, 0, 256), unsafe.Pointer(&v), any(&v))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.domain, err)
	}
	return b, nil
}

// appendObject writes the struct at p (obj, its pointer) as a JSON object.
func (t *Record) appendObject(b []byte, p unsafe.Pointer, obj any) ([]byte, error) {
	b = append(b, '{')
	start := len(b)
	for i := range t.fields {
		f := &t.fields[i]
		if f.NoKey || t.unused && obj.(unuser).Unused(f.Name) != "" {
			continue
		}
		if len(b) > start {
			b = append(b, ',')
		}
		if f.Kind == Target {
			tj := f.tgt(p).ToJSON()
			b = strconv.AppendQuote(append(b, `"target":`...), tj.Target)
			b = strconv.AppendQuote(append(b, `,"ptx":`...), tj.PTX)
			continue
		}
		b = append(strconv.AppendQuote(b, f.Name), ':')
		var err error
		if f.Len == 0 {
			if b, err = f.appendEntry(b, p, 0); err != nil {
				return nil, err
			}
			continue
		}
		b = append(b, '[')
		for j := range t.count(obj, f) {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = f.appendEntry(b, p, j); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	for _, k := range t.extra {
		if x := obj.(speller).Spell(k); x != nil {
			js, err := json.Marshal(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
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
func (f *Field) appendEntry(b []byte, p unsafe.Pointer, i int) ([]byte, error) {
	if f.Kind == Struct {
		q := f.entry(p, i)
		return f.Sub.appendObject(b, q, f.Sub.at(q))
	}
	n := f.getAt(p, i)
	switch {
	case f.Names != nil:
		return strconv.AppendQuote(b, f.Names.Name(int(n))), nil
	case f.Kind == Bool:
		return strconv.AppendBool(b, n != 0), nil
	case f.goKind == reflect.Uint64:
		return strconv.AppendUint(b, uint64(n), 10), nil
	}
	return strconv.AppendInt(b, n, 10), nil
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
	return v, t.parseInto(m, unsafe.Pointer(&v), any(&v))
}

// parseInto sets the struct at p (obj, its pointer) from the fields of a
// JSON object, m.
func (t *Record) parseInto(m map[string]json.RawMessage, p unsafe.Pointer, obj any) error {
	var err error
	for i := range t.fields { // the target first, as the hand-written forms did
		if f := &t.fields[i]; f.Kind == Target {
			if *f.tgt(p), err = parseTarget(m, f.defArch); err != nil {
				return err
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
		case !ok && f.Kind == Struct: // zero, or as Derive sets it
		case !ok:
			for j := range f.entries() {
				f.setAt(p, j, f.def)
			}
		case f.Kind == Struct:
			if given.lens[f.Name], err = f.parseStructs(p, raw); err != nil {
				return err
			}
		case f.Len > 0:
			if given.lens[f.Name], err = f.parseArray(p, raw); err != nil {
				return err
			}
		default:
			n, err := t.parseScalar(f, raw, given, obj)
			if err != nil {
				return err
			}
			f.set(p, n)
		}
	}
	if t.derives {
		obj.(deriver).Derive(given)
	}
	if err := t.refuseUnused(p, obj, given); err != nil {
		return err
	}
	if err := t.checkCounts(p, obj, given); err != nil {
		return err
	}
	if t.checks {
		if err := obj.(checker).Check(given); err != nil {
			return err
		}
	}
	return t.checkDerived(p, given)
}

// parseStructs reads a struct field's object (an array's objects, at most
// its length, returning how many there were); errors name the field's
// path ("modes[1].stride").
func (f *Field) parseStructs(p unsafe.Pointer, raw json.RawMessage) (int, error) {
	entries := []json.RawMessage{raw}
	if f.Len > 0 {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return 0, typeErr(f.Name, "array", err)
		}
		if len(entries) > f.Len {
			return 0, Errorf(f.Name, "%d entries, at most %d", len(entries), f.Len)
		}
	}
	for j, e := range entries {
		name := f.Name
		if f.Len > 0 {
			name = fmt.Sprintf("%s[%d]", f.Name, j)
		}
		m, err := f.Sub.object(e)
		if err == nil {
			q := f.entry(p, j)
			err = f.Sub.parseInto(m, q, f.Sub.at(q))
		}
		if err != nil {
			return 0, within(name, err)
		}
	}
	return len(entries), nil
}

// FieldError is an error about one field of a JSON input. Field is its
// path: a struct field's errors are prefixed with the struct's name.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }

func (e *FieldError) Unwrap() error { return e.Err }

// Errorf is an error about the field of a JSON input, for the Check and
// Derive methods of a struct inside a value: its path gets the struct's
// name.
func Errorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// within puts the error of a struct's field under the struct's name.
func within(name string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		fe.Field = name + "." + fe.Field
		return err
	}
	return &FieldError{Field: name, Err: err}
}

// parseScalar reads one scalar field's raw JSON value, or an alias of an
// enumeration's name, which it records in given.
func (t *Record) parseScalar(f *Field, raw json.RawMessage, given Given, obj any) (int64, error) {
	n, err := f.parseJSON(raw)
	if err == nil || f.Kind != Enum || !t.aliases {
		return n, err
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return n, err
	}
	name, ok := obj.(aliaser).Alias(f.Name, s)
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
		return 0, Errorf(f.Name, "%d entries, at most %d", len(entries), f.Len)
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
func (t *Record) checkCounts(p unsafe.Pointer, obj any, given Given) error {
	for i := range t.fields {
		f := &t.fields[i]
		if f.Len == 0 {
			continue
		}
		n := t.count(obj, f)
		if given.Has(f.Name) && given.Len(f.Name) != n {
			return Errorf(f.Name, "%d entries, want %d for this value", given.Len(f.Name), n)
		}
		f.clearFrom(p, n)
	}
	return nil
}

// object decodes data into its fields' raw values, refusing unknown names
// and dropping nulls (an absent field).
func (t *Record) object(data []byte) (map[string]json.RawMessage, error) {
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
			return nil, Errorf(clip.To(k, 256), "unknown field %q (want one of %q)", clip.To(k, 256), append(names(t.fields), t.extra...))
		}
	}
	return m, nil
}

// targetKey reports whether k is "target" or "ptx" of a value with a target.
func (t *Record) targetKey(k string) bool {
	if k != "target" && k != "ptx" {
		return false
	}
	return slices.ContainsFunc(t.fields, func(f Field) bool { return f.Kind == Target })
}

// refuseUnused zeroes the fields the value has no use for, and refuses one
// given non-zero (an array given with entries).
func (t *Record) refuseUnused(p unsafe.Pointer, obj any, given Given) error {
	if !t.unused {
		return nil
	}
	u := obj.(unuser)
	for i := range t.fields {
		f := &t.fields[i]
		why := u.Unused(f.Name)
		if why == "" {
			continue
		}
		if given.Has(f.Name) && (!f.isZero(p) || given.Len(f.Name) > 0) {
			return Errorf(f.Name, "%s, but %s", given.m[f.Name], why)
		}
		f.clear(p)
	}
	return nil
}

// checkDerived refuses a value whose derivation left a number its field
// cannot hold (wgmma's K of a sparse .b1 is 512, past its 0..511): the
// codec would store another number, and the case judged would not be the
// value parsed.
func (t *Record) checkDerived(p unsafe.Pointer, given Given) error {
	for i := range t.fields {
		f := &t.fields[i]
		if !f.Derived || f.Kind != Int || f.fullBits || given.Has(f.Name) {
			continue
		}
		for j := range f.entries() {
			if n := f.getAt(p, j); n < f.Lo || n > f.Hi {
				return Errorf(f.Name, "derived %d, out of range [%d, %d]", n, f.Lo, f.Hi)
			}
		}
	}
	return nil
}

// parseJSON reads one field's raw JSON value.
func (f *Field) parseJSON(raw json.RawMessage) (int64, error) {
	switch {
	case f.Names != nil:
		s, ok := plainString(raw)
		if !ok {
			if err := json.Unmarshal(raw, &s); err != nil {
				return 0, typeErr(f.Name, "string", err)
			}
		}
		i, err := f.Names.Parse(f.Name, s)
		return int64(i), err
	case f.Kind == Bool:
		switch string(raw) {
		case "true":
			return 1, nil
		case "false":
			return 0, nil
		}
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
		u, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			if err := json.Unmarshal(raw, &u); err != nil {
				return 0, typeErr(f.Name, "uint64", err)
			}
		}
		return int64(u), nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		if err := json.Unmarshal(raw, &n); err != nil {
			return 0, typeErr(f.Name, "int", err)
		}
	}
	return n, checkRange(f, n)
}

// plainString reads a JSON string with no escapes, as the writer spells
// every name, without encoding/json: parsing runs in every fuzz iteration's
// round trip. Any other string (or non-string) is json.Unmarshal's to read
// and to word the error. raw is valid JSON (it was split from a parsed
// object), so such a string holds no quote and no control character.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

// checkRange is domain.Range for a field, and refuses a pow2 field's
// other numbers.
func checkRange(f *Field, n int64) error {
	if n < f.Lo || n > f.Hi {
		return Errorf(f.Name, "%d out of range [%d, %d]", n, f.Lo, f.Hi)
	}
	if f.Pow2 && !isPow2(n) {
		return Errorf(f.Name, "%d is not a power of two", n)
	}
	return nil
}

// typeErr names the field whose JSON value has the wrong type.
func typeErr(field, want string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return Errorf(field, "want %s, got JSON %s", want, te.Value)
	}
	return Errorf(field, "%w", err)
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
