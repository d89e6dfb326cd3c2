package opsurface

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Records is a TableGen JSON dump (llvm-tblgen --dump-json): every record
// by name, and "!instanceof", the records of each class. A record's fields
// are decoded when asked for, so reading the ops of one dialect touches a
// few thousand of the dump's records.
type Records struct {
	raw        map[string]json.RawMessage
	instanceOf map[string][]string
	cache      map[string]record
}

// record is one record's fields, undecoded.
type record map[string]json.RawMessage

// ref is how the dump writes a reference to another record (a "def" value).
type ref struct {
	Kind string `json:"kind"`
	Def  string `json:"def"`
}

// dagArg is one argument of a dag value: [value, "name"].
type dagArg struct {
	Value json.RawMessage
	Name  string
}

// ErrNotDump says the input is not a TableGen JSON dump.
var ErrNotDump = errors.New("not a TableGen JSON dump (llvm-tblgen --dump-json)")

// ReadRecords parses a TableGen JSON dump. Input that is not one is an
// error, never a panic.
func ReadRecords(data []byte) (*Records, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotDump, err)
	}
	io, ok := raw["!instanceof"]
	if !ok {
		return nil, fmt.Errorf("%w: no !instanceof", ErrNotDump)
	}
	rs := &Records{raw: raw, cache: map[string]record{}}
	if err := json.Unmarshal(io, &rs.instanceOf); err != nil {
		return nil, fmt.Errorf("%w: !instanceof: %w", ErrNotDump, err)
	}
	delete(raw, "!instanceof")
	delete(raw, "!tablegen_json_version")
	return rs, nil
}

// get returns the named record's fields.
func (rs *Records) get(name string) (record, error) {
	if r, ok := rs.cache[name]; ok {
		return r, nil
	}
	data, ok := rs.raw[name]
	if !ok {
		return nil, fmt.Errorf("record %s: not in the dump", name)
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("record %s: %w", name, err)
	}
	rs.cache[name] = r
	return r, nil
}

// InstancesOf lists the records of a class.
func (rs *Records) InstancesOf(class string) []string { return rs.instanceOf[class] }

// isA reports whether the record is of the class.
func (r record) isA(class string) bool { return slices.Contains(r.strings("!superclasses"), class) }

// str is a string field ("" when absent, null or of another kind).
func (r record) str(field string) string {
	var s string
	if json.Unmarshal(r[field], &s) != nil {
		return ""
	}
	return s
}

// num is an integer field (bits and ints alike).
func (r record) num(field string) (int64, bool) {
	var n json.Number
	if json.Unmarshal(r[field], &n) != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil
}

// strings is a list-of-strings field.
func (r record) strings(field string) []string {
	var s []string
	if json.Unmarshal(r[field], &s) != nil {
		return nil
	}
	return s
}

// def is the record a field refers to ("" when it refers to none).
func (r record) def(field string) string { return defOf(r[field]) }

// defs lists the records a list field refers to.
func (r record) defs(field string) []string {
	var list []json.RawMessage
	if json.Unmarshal(r[field], &list) != nil {
		return nil
	}
	var out []string
	for _, v := range list {
		if d := defOf(v); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// dag is the arguments of a dag field ((ins I32:$a, ...)).
func (r record) dag(field string) ([]dagArg, error) {
	if len(r[field]) == 0 || string(r[field]) == "null" {
		return nil, nil
	}
	var d struct {
		Kind string              `json:"kind"`
		Args [][]json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(r[field], &d); err != nil || d.Kind != "dag" {
		return nil, fmt.Errorf("field %s: not a dag", field)
	}
	out := make([]dagArg, 0, len(d.Args))
	for _, a := range d.Args {
		if len(a) != 2 {
			return nil, fmt.Errorf("field %s: a dag argument of %d parts", field, len(a))
		}
		var name string
		_ = json.Unmarshal(a[1], &name) // an unnamed argument stays ""
		out = append(out, dagArg{Value: a[0], Name: name})
	}
	return out, nil
}

func defOf(v json.RawMessage) string {
	var x ref
	if json.Unmarshal(v, &x) != nil || x.Kind != "def" {
		return ""
	}
	return x.Def
}
