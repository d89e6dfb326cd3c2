package desc

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Table is the compiled description of the value type V of one domain.
type Table[V domain.Value] struct {
	domain string
	*Record
}

// Record is the compiled description of one struct type: a domain's value
// type, or the type of a struct field inside it (*T below).
type Record struct {
	typ     reflect.Type
	fields  []Field
	steps   [][]step // steps[v] is version v's layout
	byName  map[string]int
	derives bool     // *T has a Derive method
	unused  bool     // *T has an Unused method
	checks  bool     // *T has a Check method
	canon   bool     // *T has a Canonical method
	counts  bool     // *T has a Count method
	aliases bool     // *T has an Alias method
	extra   []string // the keys of *T's Spellings
	// finish says decoding calls finish: the type has a Count, Unused or
	// Canonical method, or a struct field of one.
	finish bool
}

// deriver sets the defaults of the fields tagged derived.
type deriver interface{ Derive(given Given) }

// aliaser gives the name another spelling of an enumeration's name stands for.
type aliaser interface {
	Alias(field, name string) (string, bool)
}

// speller spells fields under other JSON keys.
type speller interface {
	Spellings() []string
	Spell(key string) any
}

// counter says how many entries of an array field a value carries.
type counter interface{ Count(field string) int }

// unuser says why a field has no meaning in a value.
type unuser interface{ Unused(field string) string }

// checker refuses JSON input that breaks a rule between fields.
type checker interface{ Check(given Given) error }

// canonicaler sets the fields that other fields determine, after decoding.
type canonicaler interface{ Canonical() }

// Compile reads V's tags. It fails on a field without a tag or coding, a
// bad option, a default out of range, or a derived field without Derive.
func Compile[V domain.Value](domainName string) (*Table[V], error) {
	typ := reflect.TypeFor[V]()
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("desc: %s: value type %s is not a struct", domainName, typ)
	}
	r, err := compile(typ)
	if err != nil {
		return nil, fmt.Errorf("desc: %s: %w", domainName, err)
	}
	t := &Table[V]{domain: domainName, Record: r}
	registry.Store(typ, Described(t))
	return t, nil
}

// compile reads the tags of the struct type typ.
func compile(typ reflect.Type) (*Record, error) {
	r := &Record{typ: typ, byName: map[string]int{}}
	ptr := reflect.New(typ).Interface()
	_, r.derives = ptr.(deriver)
	_, r.unused = ptr.(unuser)
	_, r.checks = ptr.(checker)
	_, r.canon = ptr.(canonicaler)
	_, r.counts = ptr.(counter)
	_, r.aliases = ptr.(aliaser)
	if sp, ok := ptr.(speller); ok {
		r.extra = sp.Spellings()
	}
	r.finish = r.unused || r.canon || r.counts
	for i := range typ.NumField() {
		sf := typ.Field(i)
		if !sf.IsExported() {
			continue
		}
		f, err := parseTag(sf)
		if err != nil {
			return nil, err
		}
		if f.Derived && !r.derives {
			return nil, fmt.Errorf("field %s is derived, but *%s has no Derive method", sf.Name, typ)
		}
		if prev := len(r.fields) - 1; f.Zip && (prev < 0 || r.fields[prev].Len != f.Len || r.fields[prev].Since != f.Since ||
			r.fields[prev].Kind == Struct) {
			return nil, fmt.Errorf("field %s is zipped, but the field before it is no array of %d numbers of its version",
				sf.Name, f.Len)
		}
		if _, dup := r.byName[f.Name]; dup {
			return nil, fmt.Errorf("two fields named %q", f.Name)
		}
		r.finish = r.finish || f.Kind == Struct && f.Sub.finish
		r.byName[f.Name] = len(r.fields)
		r.fields = append(r.fields, f)
	}
	r.steps = layout(r.fields)
	return r, nil
}

// at is the value of type *T whose struct lies at p, for calling its
// methods.
func (r *Record) at(p unsafe.Pointer) any { return reflect.NewAt(r.typ, p).Interface() }

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
func (r *Record) FieldList() []Field { return r.fields }

// Encode returns v's canonical bytes.
func (t *Table[V]) Encode(v V) []byte {
	p := unsafe.Pointer(&v)
	w := domain.Writer{Bytes: make([]byte, 0, 32)}
	t.write(&w, p, 0)
	if ver := t.version(p); ver > 0 {
		w.U8(uint8(ver))
		for i := 1; i <= ver; i++ {
			t.write(&w, p, i)
		}
	}
	return w.Bytes
}

// version is the highest version of a non-zero field of the value at p.
func (t *Record) version(p unsafe.Pointer) int {
	ver := 0
	for i := range t.fields {
		if f := &t.fields[i]; f.Since > ver && !f.isZero(p) {
			ver = f.Since
		}
	}
	return ver
}

// write appends the fields of one version.
func (t *Record) write(w *domain.Writer, p unsafe.Pointer, ver int) {
	for _, s := range t.steps[ver] {
		if s.field < 0 {
			var b uint8
			for i, fi := range s.bits {
				if t.fields[fi].get(p) != 0 {
					b |= 1 << i
				}
			}
			w.U8(b)
			continue
		}
		f := &t.fields[s.field]
		if f.Kind == Target {
			w.Bytes = f.tgt(p).Encode(w.Bytes)
			continue
		}
		for i := range f.entries() {
			if f.Kind == Struct {
				f.Sub.write(w, f.entry(p, i), 0)
				continue
			}
			f.writeEntry(w, p, i)
			for _, z := range s.zip {
				t.fields[z].writeEntry(w, p, i)
			}
		}
	}
}

// writeEntry appends entry i of a number or enumeration field.
func (f *Field) writeEntry(w *domain.Writer, p unsafe.Pointer, i int) {
	if f.Pow2 {
		w.U8(uint8(max(exp(f.getAt(p, i))-exp(f.Lo), 0)))
		return
	}
	// A number below its range is a cleared field (an entry past its
	// count, say): it writes as the range's low end.
	raw := uint64(max(f.getAt(p, i)-f.Lo, 0))
	if f.fullBits || f.Clamp {
		raw = uint64(f.getAt(p, i))
	}
	writeWidth(w, f.width, raw)
}

// Decode maps arbitrary bytes to a value, as a domain.Decode does; every
// input decodes.
func (t *Table[V]) Decode(data []byte) (domain.Value, error) { return t.decode(data), nil }

// decode maps arbitrary bytes to a value. Fields that the value's Unused
// method names are zeroed, in field order, and then its Canonical method
// sets what other fields determine.
func (t *Table[V]) decode(data []byte) V {
	var v V
	p := unsafe.Pointer(&v)
	r := domain.NewReader(data)
	t.read(r, p, 0)
	if last := len(t.steps) - 1; last > 0 && r.Len() > 0 {
		ver := int(r.U8()) % (last + 1)
		for i := 1; i <= ver; i++ {
			t.read(r, p, i)
		}
	}
	if t.finish {
		t.finishAt(p, any(&v))
	}
	return v
}

// finishAt zeroes what the decoded struct at p (obj, its pointer) does not
// carry, and sets what other fields determine: its struct fields' first,
// then its own.
func (t *Record) finishAt(p unsafe.Pointer, obj any) {
	for i := range t.fields {
		if f := &t.fields[i]; f.Kind == Struct && f.Sub.finish {
			for j := range f.entries() {
				q := f.entry(p, j)
				f.Sub.finishAt(q, f.Sub.at(q))
			}
		}
	}
	if t.counts {
		for i := range t.fields {
			if f := &t.fields[i]; f.Len > 0 {
				f.clearFrom(p, t.count(obj, f))
			}
		}
	}
	if t.unused {
		u := obj.(unuser)
		for i := range t.fields {
			if f := &t.fields[i]; !f.isZero(p) && u.Unused(f.Name) != "" {
				f.clear(p)
			}
		}
	}
	if t.canon {
		obj.(canonicaler).Canonical()
	}
}

// read reads the fields of one version.
func (t *Record) read(r *domain.Reader, p unsafe.Pointer, ver int) {
	for _, s := range t.steps[ver] {
		if s.field < 0 {
			b := r.U8()
			for i, fi := range s.bits {
				t.fields[fi].set(p, int64(b>>i&1))
			}
			continue
		}
		f := &t.fields[s.field]
		if f.Kind == Target {
			*f.tgt(p) = target.Decode(r.U8(), r.U8())
			continue
		}
		for i := range f.entries() {
			if f.Kind == Struct {
				f.Sub.read(r, f.entry(p, i), 0)
				continue
			}
			f.readEntry(r, p, i)
			for _, z := range s.zip {
				t.fields[z].readEntry(r, p, i)
			}
		}
	}
}

// readEntry reads entry i of a number or enumeration field, reducing the
// bytes into its range.
func (f *Field) readEntry(r *domain.Reader, p unsafe.Pointer, i int) {
	raw := readWidth(r, f.width)
	if f.Pow2 {
		f.setAt(p, i, f.Lo<<(raw%uint64(exp(f.Hi)-exp(f.Lo)+1)))
		return
	}
	if f.fullBits {
		f.setAt(p, i, int64(raw)) // setAt truncates to the width: two's complement for signed types
		return
	}
	if f.Clamp {
		f.setAt(p, i, min(max(f.signedRaw(raw), f.Lo), f.Hi))
		return
	}
	f.setAt(p, i, f.Lo+int64(raw%uint64(f.Hi-f.Lo+1)))
}

// signedRaw reads raw bytes of the field's width as its Go type does.
func (f *Field) signedRaw(raw uint64) int64 {
	if !f.signed {
		return int64(raw)
	}
	shift := 64 - 8*f.width
	return int64(raw<<shift) >> shift
}

// count is how many entries of the array field f the struct obj (a
// pointer) carries.
func (t *Record) count(obj any, f *Field) int {
	if !t.counts {
		return f.Len
	}
	return min(max(obj.(counter).Count(f.Name), 0), f.Len)
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

// Normalize returns the value v's canonical bytes decode to: entries past
// their count and fields v has no use for zeroed. A value built by hand
// (a seed, a test's variation of one) is normalized so it encodes
// canonically.
func (t *Table[V]) Normalize(v V) V { return t.decode(t.Encode(v)) }
