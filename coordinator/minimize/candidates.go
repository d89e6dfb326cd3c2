package minimize

import (
	"reflect"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// walk visits the exported fields of a domain value, depth first, with
// their paths: a target as a whole, every other struct and array before
// its elements.
func walk(root reflect.Value, visit func(path []int, f reflect.Value)) {
	var rec func(path []int, f reflect.Value)
	rec = func(path []int, f reflect.Value) {
		visit(path, f)
		if _, ok := f.Interface().(target.Target); ok {
			return
		}
		switch f.Kind() {
		case reflect.Array:
			for i := range f.Len() {
				rec(append(append([]int{}, path...), i), f.Index(i))
			}
		case reflect.Struct:
			for i := range f.NumField() {
				if f.Type().Field(i).IsExported() {
					rec(append(append([]int{}, path...), i), f.Field(i))
				}
			}
		}
	}
	rec(nil, root)
}

// fieldCandidates lists one-change variants of v: whole arrays and nested
// structs zeroed first, then each number shrunk toward 0, 1 and half its
// value, and each set bool cleared. A target is replaced by each known target
// at its first PTX version (smaller ones win by the size order).
func fieldCandidates(v domain.Value) []domain.Value {
	root := reflect.ValueOf(v)
	var out []domain.Value
	walk(root, func(path []int, f reflect.Value) {
		if t, ok := f.Interface().(target.Target); ok {
			for _, k := range target.Known() {
				if k != t {
					out = append(out, with(root, path, reflect.ValueOf(k)))
				}
			}
			return
		}
		switch f.Kind() {
		case reflect.Array, reflect.Struct:
			if !f.IsZero() && len(path) > 0 {
				out = append(out, with(root, path, reflect.Zero(f.Type())))
			}
		default:
			for _, s := range shrinks(f) {
				out = append(out, with(root, path, s))
			}
		}
	})
	return out
}

// legalValues are, for each field path, the values the field takes in the
// domain's seeds that rank zero (break no rule): the values a field of a
// case can move to on its way to legality, when they are not smaller than
// its own (an enum's legal member, a count's legal size).
type legalValues map[string][]reflect.Value

func legalValuesOf(d domain.Domain, rank func(domain.Value) int) legalValues {
	out := legalValues{}
	seen := map[string]map[any]bool{}
	if d.Seeds == nil {
		return out
	}
	for _, s := range d.Seeds() {
		if rank(s) != 0 {
			continue
		}
		walk(reflect.ValueOf(s), func(path []int, f reflect.Value) {
			if len(path) == 0 || !f.Type().Comparable() {
				return
			}
			k := pathKey(path)
			if seen[k] == nil {
				seen[k] = map[any]bool{}
			}
			if x := f.Interface(); !seen[k][x] {
				seen[k][x] = true
				out[k] = append(out[k], f)
			}
		})
	}
	return out
}

// candidates lists v with one field set to each legal value it does not
// have.
func (lv legalValues) candidates(v domain.Value) []domain.Value {
	root := reflect.ValueOf(v)
	var out []domain.Value
	walk(root, func(path []int, f reflect.Value) {
		if len(path) == 0 || !f.Type().Comparable() {
			return
		}
		for _, x := range lv[pathKey(path)] {
			if x.Type() == f.Type() && x.Interface() != f.Interface() {
				out = append(out, with(root, path, x))
			}
		}
	})
	return out
}

func pathKey(path []int) string {
	var b strings.Builder
	for _, i := range path {
		b.WriteByte(byte(i))
	}
	return b.String()
}

// shrinks are the smaller values to try for one scalar field.
func shrinks(f reflect.Value) []reflect.Value {
	mk := func(set func(reflect.Value)) reflect.Value {
		n := reflect.New(f.Type()).Elem()
		set(n)
		return n
	}
	switch f.Kind() {
	case reflect.Bool:
		if f.Bool() {
			return []reflect.Value{reflect.Zero(f.Type())}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var out []reflect.Value
		for _, c := range intShrinks(f.Int()) {
			out = append(out, mk(func(n reflect.Value) { n.SetInt(c) }))
		}
		return out
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var out []reflect.Value
		for _, c := range intShrinks(int64(f.Uint())) {
			if c >= 0 {
				out = append(out, mk(func(n reflect.Value) { n.SetUint(uint64(c)) }))
			}
		}
		return out
	}
	return nil
}

// intShrinks lists 0, 1 (or -1), half, and one step toward zero.
func intShrinks(x int64) []int64 {
	if x == 0 {
		return nil
	}
	sign := int64(1)
	if x < 0 {
		sign = -1
	}
	cands := []int64{0, sign, x / 2, x - sign}
	var out []int64
	seen := map[int64]bool{x: true}
	for _, c := range cands {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// with returns a copy of root (a struct value) with the field at path set to x.
func with(root reflect.Value, path []int, x reflect.Value) domain.Value {
	cp := reflect.New(root.Type()).Elem()
	cp.Set(root)
	f := cp
	for _, i := range path {
		if f.Kind() == reflect.Struct {
			f = f.Field(i)
		} else {
			f = f.Index(i)
		}
	}
	f.Set(x)
	return cp.Interface().(domain.Value)
}
