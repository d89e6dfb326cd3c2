package desc

import (
	"fmt"
	"reflect"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Table is the compiled description of the value type V of one domain.
type Table[V domain.Value] struct {
	domain  string
	typ     reflect.Type
	fields  []Field
	steps   [][]step // steps[v] is version v's layout
	byName  map[string]int
	derives bool // *V has a Derive method
	unused  bool // *V has an Unused method
}

// deriver sets the defaults of the fields tagged derived.
type deriver interface {
	Derive(given func(field string) bool)
}

// unuser says why a field has no meaning in a value.
type unuser interface{ Unused(field string) string }

// Compile reads V's tags. It fails on a field without a tag or coding, a
// bad option, a default out of range, or a derived field without Derive.
func Compile[V domain.Value](domainName string) (*Table[V], error) {
	typ := reflect.TypeFor[V]()
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("desc: %s: value type %s is not a struct", domainName, typ)
	}
	t := &Table[V]{domain: domainName, typ: typ, byName: map[string]int{}}
	_, t.derives = any(new(V)).(deriver)
	_, t.unused = any(new(V)).(unuser)
	for i := range typ.NumField() {
		sf := typ.Field(i)
		if !sf.IsExported() {
			continue
		}
		f, err := parseTag(sf)
		if err != nil {
			return nil, fmt.Errorf("desc: %s: %w", domainName, err)
		}
		if f.Derived && !t.derives {
			return nil, fmt.Errorf("desc: %s: field %s is derived, but *%s has no Derive method", domainName, sf.Name, typ)
		}
		if _, dup := t.byName[f.Name]; dup {
			return nil, fmt.Errorf("desc: %s: two fields named %q", domainName, f.Name)
		}
		t.byName[f.Name] = len(t.fields)
		t.fields = append(t.fields, f)
	}
	t.steps = layout(t.fields)
	registry.Store(typ, Described(t))
	return t, nil
}

// MustCompile is Compile for a package-level table: a bad tag is a bug of
// the domain's own code, found by its first test.
func MustCompile[V domain.Value](domainName string) *Table[V] {
	t, err := Compile[V](domainName)
	if err != nil {
		panic(err)
	}
	return t
}

// FieldList implements Described.
func (t *Table[V]) FieldList() []Field { return t.fields }

// Encode returns v's canonical bytes.
func (t *Table[V]) Encode(v V) []byte {
	rv := reflect.ValueOf(&v).Elem()
	w := domain.Writer{Bytes: make([]byte, 0, 32)}
	t.write(&w, rv, 0)
	if ver := t.version(rv); ver > 0 {
		w.U8(uint8(ver))
		for i := 1; i <= ver; i++ {
			t.write(&w, rv, i)
		}
	}
	return w.Bytes
}

// version is the highest version of a non-zero field of rv.
func (t *Table[V]) version(rv reflect.Value) int {
	ver := 0
	for _, f := range t.fields {
		if f.Since > ver && !rv.Field(f.Index).IsZero() {
			ver = f.Since
		}
	}
	return ver
}

// write appends the fields of one version.
func (t *Table[V]) write(w *domain.Writer, rv reflect.Value, ver int) {
	for _, s := range t.steps[ver] {
		if s.field < 0 {
			var b uint8
			for i, fi := range s.bits {
				if rv.Field(t.fields[fi].Index).Bool() {
					b |= 1 << i
				}
			}
			w.U8(b)
			continue
		}
		f := &t.fields[s.field]
		fv := rv.Field(f.Index)
		if f.Kind == Target {
			w.Bytes = fv.Interface().(target.Target).Encode(w.Bytes)
			continue
		}
		raw := uint64(get(fv) - f.Lo)
		if f.fullBits {
			raw = uint64(get(fv))
		}
		writeWidth(w, f.width, raw)
	}
}

// Decode maps arbitrary bytes to a value, as a domain.Decode does; every
// input decodes.
func (t *Table[V]) Decode(data []byte) (domain.Value, error) { return t.decode(data), nil }

// decode maps arbitrary bytes to a value. Fields that the value's Unused
// method names are zeroed, in field order.
func (t *Table[V]) decode(data []byte) V {
	var v V
	rv := reflect.ValueOf(&v).Elem()
	r := domain.NewReader(data)
	t.read(r, rv, 0)
	if last := len(t.steps) - 1; last > 0 && r.Len() > 0 {
		ver := int(r.U8()) % (last + 1)
		for i := 1; i <= ver; i++ {
			t.read(r, rv, i)
		}
	}
	if t.unused {
		u := any(&v).(unuser)
		for _, f := range t.fields {
			if u.Unused(f.Name) != "" {
				rv.Field(f.Index).SetZero()
			}
		}
	}
	return v
}

// read reads the fields of one version.
func (t *Table[V]) read(r *domain.Reader, rv reflect.Value, ver int) {
	for _, s := range t.steps[ver] {
		if s.field < 0 {
			b := r.U8()
			for i, fi := range s.bits {
				rv.Field(t.fields[fi].Index).SetBool(b>>i&1 != 0)
			}
			continue
		}
		f := &t.fields[s.field]
		fv := rv.Field(f.Index)
		if f.Kind == Target {
			fv.Set(reflect.ValueOf(target.Decode(r.U8(), r.U8())))
			continue
		}
		raw := readWidth(r, f.width)
		switch {
		case f.fullBits && f.signed:
			shift := 64 - 8*f.width
			fv.SetInt(int64(raw<<shift) >> shift)
		case f.fullBits:
			fv.SetUint(raw)
		default:
			set(fv, f.Lo+int64(raw%uint64(f.Hi-f.Lo+1)))
		}
	}
}

func writeWidth(w *domain.Writer, width int, raw uint64) {
	switch width {
	case 1:
		w.U8(uint8(raw))
	case 2:
		w.U16(uint16(raw))
	case 4:
		w.U32(uint32(raw))
	default:
		w.U64(raw)
	}
}

func readWidth(r *domain.Reader, width int) uint64 {
	switch width {
	case 1:
		return uint64(r.U8())
	case 2:
		return uint64(r.U16())
	case 4:
		return uint64(r.U32())
	}
	return r.U64()
}

// get reads an integer, enumeration or bool field as an int64.
func get(fv reflect.Value) int64 {
	switch fv.Kind() {
	case reflect.Bool:
		if fv.Bool() {
			return 1
		}
		return 0
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fv.Int()
	}
	return int64(fv.Uint())
}

// set writes an int64 into an integer, enumeration or bool field.
func set(fv reflect.Value, n int64) {
	switch fv.Kind() {
	case reflect.Bool:
		fv.SetBool(n != 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fv.SetInt(n)
	default:
		fv.SetUint(uint64(n))
	}
}
