package desc

import (
	"reflect"
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

// get reads an integer, enumeration or bool field as an int64.
func (f *Field) get(p unsafe.Pointer) int64 {
	q := f.at(p)
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
	}
	return 0
}

// set writes an int64 into an integer, enumeration or bool field,
// truncating to its width.
func (f *Field) set(p unsafe.Pointer, n int64) {
	q := f.at(p)
	switch f.goKind {
	case reflect.Bool:
		*(*bool)(q) = n != 0
	case reflect.Int8, reflect.Uint8:
		*(*uint8)(q) = uint8(n)
	case reflect.Int16, reflect.Uint16:
		*(*uint16)(q) = uint16(n)
	case reflect.Int32, reflect.Uint32:
		*(*uint32)(q) = uint32(n)
	case reflect.Int64:
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
	return f.get(p) == 0
}

// clear sets the field to its type's zero value.
func (f *Field) clear(p unsafe.Pointer) {
	if f.Kind == Target {
		*f.tgt(p) = target.Target{}
		return
	}
	f.set(p, 0)
}
