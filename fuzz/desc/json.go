package desc

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// JSON writes every field of v, in struct order, a target as its
// "target" and "ptx".
func (t *Table[V]) JSON(v V) ([]byte, error) {
	p := unsafe.Pointer(&v)
	b := make([]byte, 0, 256)
	b = append(b, '{')
	for i := range t.fields {
		f := &t.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		if f.Kind == Target {
			tj := f.tgt(p).ToJSON()
			b = strconv.AppendQuote(append(b, `"target":`...), tj.Target)
			b = strconv.AppendQuote(append(b, `,"ptx":`...), tj.PTX)
			continue
		}
		b = append(strconv.AppendQuote(b, f.Name), ':')
		n := f.get(p)
		switch {
		case f.Names != nil:
			b = strconv.AppendQuote(b, f.Names.Name(int(n)))
		case f.Kind == Bool:
			b = strconv.AppendBool(b, n != 0)
		default:
			b = strconv.AppendInt(b, n, 10)
		}
	}
	return append(b, '}'), nil
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
	for i := range t.fields {
		f := &t.fields[i]
		if f.Kind == Target {
			continue
		}
		n := f.def
		if raw, ok := m[f.Name]; ok {
			if n, err = f.parseJSON(raw); err != nil {
				return v, err
			}
		}
		f.set(p, n)
	}
	given := func(name string) bool { _, ok := m[name]; return ok }
	if t.derives {
		any(&v).(deriver).Derive(given)
	}
	if t.checks {
		if err := any(&v).(checker).Check(given); err != nil {
			return v, err
		}
	}
	return v, t.refuseUnused(&v, m)
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
		if _, ok := t.byName[k]; !ok && !t.targetKey(k) {
			return nil, fmt.Errorf("field %q: unknown field (want one of %q)", k, names(t.fields))
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
// given non-zero.
func (t *Table[V]) refuseUnused(v *V, m map[string]json.RawMessage) error {
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
		if _, given := m[f.Name]; given && !f.isZero(p) {
			return fmt.Errorf("field %q: %s, but %s", f.Name, m[f.Name], why)
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
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, typeErr(f.Name, "int", err)
	}
	return n, checkRange(f, n)
}

// checkRange is domain.Range for a field.
func checkRange(f *Field, n int64) error {
	if n < f.Lo || n > f.Hi {
		return fmt.Errorf("field %q: %d out of range [%d, %d]", f.Name, n, f.Lo, f.Hi)
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
