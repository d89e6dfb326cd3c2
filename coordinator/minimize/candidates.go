package minimize

import (
	"reflect"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// fieldCandidates lists one-change variants of v: whole arrays and nested
// structs zeroed first, then each number shrunk toward 0, 1 and half its
// value, and each set bool cleared. A target is replaced by each known target
// at its first PTX version (smaller ones win by the size order).
func fieldCandidates(v domain.Value) []domain.Value {
	root := reflect.ValueOf(v)
	var out []domain.Value
	var walk func(path []int, f reflect.Value)
	walk = func(path []int, f reflect.Value) {
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
			n := f.Len
			get := f.Index
			if f.Kind() == reflect.Struct {
				n, get = f.NumField, f.Field
			}
			for i := range n() {
				if f.Kind() == reflect.Struct && !f.Type().Field(i).IsExported() {
					continue
				}
				walk(append(append([]int{}, path...), i), get(i))
			}
		default:
			for _, s := range shrinks(f) {
				out = append(out, with(root, path, s))
			}
		}
	}
	walk(nil, root)
	return out
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
