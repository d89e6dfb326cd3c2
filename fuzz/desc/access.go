package desc

import (
	"reflect"
	"slices"
	"unsafe"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// A field is read and written at its offset inside the value, through the
// Go kind its tag was checked against when the table was compiled: the
// decoder runs in the native fuzz loop, and a reflect.Value a field made it
// four times slower than the hand-written decoders it replaces
// (docs/bench.md). Compile only accepts the kinds below, so every access is
// of the field's own type.

func (f *Field) at(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, f.off) }

// entry is the place of an array's entry i (of a scalar when i is 0).
func (f *Field) entry(p unsafe.Pointer, i int) unsafe.Pointer {
	return unsafe.Add(p, f.off+uintptr(i)*f.elem)
}

// entries is how many entries the field has: its length, one for a scalar.
func (f *Field) entries() int { return max(f.Len, 1) }

// get reads an integer, enumeration or bool field (an array's first entry)
// as an int64.
func (f *Field) get(p unsafe.Pointer) int64 { return f.getAt(p, 0) }

// set writes a scalar field (an array's first entry).
func (f *Field) set(p unsafe.Pointer, n int64) { f.setAt(p, 0, n) }

// getAt reads entry i as an int64; a uint64 keeps its bits.
func (f *Field) getAt(p unsafe.Pointer, i int) int64 {
	q := f.entry(p, i)
	switch f.goKind {
	case reflect.Bool:
		if *(*bool)(q) {
			return 1
		}
		return 0
	case reflect.Int8:
		return int64(*(*int8)(q))
	case reflect.Int16:
		return int64(*(*int16)(q))
	case reflect.Int32:
		return int64(*(*int32)(q))
	case reflect.Int64:
		return *(*int64)(q)
	case reflect.Uint8:
		return int64(*(*uint8)(q))
	case reflect.Uint16:
		return int64(*(*uint16)(q))
	case reflect.Uint32:
		return int64(*(*uint32)(q))
	case reflect.Uint64:
		return int64(*(*uint64)(q))
	}
	return 0
}

// setAt writes an int64 into entry i, truncating to its width.
func (f *Field) setAt(p unsafe.Pointer, i int, n int64) {
	q := f.entry(p, i)
	switch f.goKind {
	case reflect.Bool:
		*(*bool)(q) = n != 0
	case reflect.Int8, reflect.Uint8:
		*(*uint8)(q) = uint8(n)
	case reflect.Int16, reflect.Uint16:
		*(*uint16)(q) = uint16(n)
	case reflect.Int32, reflect.Uint32:
		*(*uint32)(q) = uint32(n)
	case reflect.Int64, reflect.Uint64:
		*(*int64)(q) = n
	}
}

// tgt is a target field's place.
func (f *Field) tgt(p unsafe.Pointer) *target.Target { return (*target.Target)(f.at(p)) }

// isZero reports whether the field holds its type's zero value.
func (f *Field) isZero(p unsafe.Pointer) bool {
	if f.Kind == Target {
		return *f.tgt(p) == target.Target{}
	}
	if f.Kind == Struct {
		return !slices.ContainsFunc(f.bytes(p, 0), func(b byte) bool { return b != 0 })
	}
	for i := range f.entries() {
		if f.getAt(p, i) != 0 {
			return false
		}
	}
	return true
}

// clear sets the field to its type's zero value.
func (f *Field) clear(p unsafe.Pointer) { f.clearFrom(p, 0) }

// clearFrom zeroes the entries from i on (a scalar when i is 0).
func (f *Field) clearFrom(p unsafe.Pointer, i int) {
	if f.Kind == Target {
		*f.tgt(p) = target.Target{}
		return
	}
	if f.Kind == Struct {
		clear(f.bytes(p, i))
		return
	}
	for ; i < f.entries(); i++ {
		f.setAt(p, i, 0)
	}
}

// bytes is the memory of a struct field's entries from i on.
func (f *Field) bytes(p unsafe.Pointer, i int) []byte {
	n := f.entries() - i
	if n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(f.entry(p, i)), uintptr(n)*f.elem)
}
