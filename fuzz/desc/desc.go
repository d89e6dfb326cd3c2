// Package desc states a domain's fields once and derives the rest from them.
//
// A domain's value type tags each field with its facts: the JSON name, the
// range, the static default, since which codec version it exists. Compile
// reads the tags once per type into a Table, and the Table is the domain's
// canonical byte codec, its strict JSON form, the ranges mutation draws from
// and the field table of docs/domains.md. Before this package each of those
// restated the fields by hand (wgmma's ranges stood twice, as `& MaxDim` in
// the decoder and `0..MaxDim` in the JSON parser), and a field added to one
// place and not the others went unnoticed.
//
// The tag is `field:"NAME[,OPTION]..."` with the options
//
//	range=LO..HI   the integer range (default: the Go type's whole range)
//	default=X      the static default of the JSON form (default: zero)
//	derived        the default depends on other fields: the value's Derive
//	               method sets it
//	names=A|B      the two JSON names of a bool (false|true)
//	since=N        the codec version that added the field (default 0)
//	pow2           (with range=LO..HI) the value is a power of two: the
//	               bytes hold its exponent in one byte, the JSON form
//	               refuses other numbers
//	nokey          (with derived) the JSON form has no key for it: other
//	               keys imply it (a shape's rank is its length, an
//	               operand's presence that of its value), and Derive sets it
//	zip            (an array) its elements alternate in the bytes with
//	               those of the array field before it
//	clamp          (with range=LO..HI) the bytes hold the number itself
//	               and the decoder clamps them into the range, instead of
//	               storing value-LO and reducing modulo the range's size
//	               (umma's shapes: the hand-written decoder read 0 as 1)
//
// and nothing else: what depends on several fields stays Go. A field may be
// an array of numbers or enumerations: its range and default are each
// entry's. A field may also be a struct, or an array of structs, whose own
// fields are tagged the same way (umma's layout modes): in the bytes its
// fields follow each other in place, in JSON it is an object (an array of
// objects), and its type's methods below apply to it as to the value; its
// fields are all of version 0, and errors name them by path
// ("modes[1].stride"). A value type may implement
//
//	Derive(given Given)                    (on the pointer) the defaults of
//	                                       the fields tagged derived
//	Unused(field string) string            why a field has no meaning in this
//	                                       value ("" when it has): the decoder
//	                                       zeroes it, the JSON form refuses it
//	                                       when it is not zero
//	Count(field string) int                (on the pointer) how many entries
//	                                       of an array field the value
//	                                       carries: the decoder zeroes the
//	                                       rest, the JSON form writes and
//	                                       wants exactly that many
//	Check(given Given) error               (on the pointer) a rule between
//	                                       fields the JSON input must keep; the
//	                                       error names the field
//	Alias(field, name string)              (on the pointer) another JSON
//	  (string, bool)                       spelling of an enumeration's name:
//	                                       the name it stands for; Derive
//	                                       reads what was written from
//	                                       Given.Spelled
//	Spellings() []string                   (on the pointer) JSON keys that
//	Spell(key string) any                  spell fields another way (a size in
//	                                       bytes beside a count): the form
//	                                       accepts them, Derive and Check read
//	                                       them with Extra, and the output
//	                                       writes Spell's value (nil: none)
//	Canonical()                            (on the pointer) sets what other
//	                                       fields determine, after decoding
//
// An enumeration is a uint8 type with an `Enum() domain.Enum` method; its
// names are its JSON spelling and its size its range. A bool type with such
// a method names its two values (false, true), as names= does.
//
// The byte codec is positional, field after field in struct order: a number
// in its type's width (stored as value-LO; the decoder reduces any bytes into
// the range, so every input decodes), an enumeration as one byte, the bools
// of one version as bits of flag bytes (eight a byte, each byte where its
// first bool stands), a target.Target as its two bytes, an array entry by
// entry (alternating with the entries of the arrays zipped to it). Version 0 is the
// layout the hand-written codecs had, so case IDs, which hash the canonical
// bytes, and stored corpora stay valid. A field added later carries since=N:
// a value whose later fields are all zero encodes as before; otherwise the
// version-0 bytes are followed by the version byte N and the fields of
// versions 1..N. Old bytes have no trailer and decode with the new fields
// zero, and only values that use a new field get new IDs.
package desc

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Kind is how a field is coded.
type Kind uint8

// The field kinds.
const (
	Int    Kind = iota // a signed or unsigned integer in [Lo, Hi]
	Enum               // an enumeration: one of Names
	Bool               // a bool, spelled true/false or by Names
	Target             // a target.Target, spelled "target" and "ptx" in JSON
	Struct             // a struct of described fields, an object in JSON
)

// Field is the facts of one field.
type Field struct {
	Name    string      // the JSON name
	GoName  string      // the struct field's name
	Kind    Kind        // how it is coded
	Lo, Hi  int64       // its range; 0..len(Names)-1 for an enumeration, 0..1 for a bool
	Names   domain.Enum // an enumeration's names, or a bool's (false, true); nil otherwise
	Default string      // the static default as tagged; "" is the zero value
	Derived bool        // the default comes from the value's Derive method
	Since   int         // the codec version that added the field
	Len     int         // the entries of an array field; 0 for a scalar
	Zip     bool        // an array whose entries alternate with the previous field's
	Pow2    bool        // a power of two in [Lo, Hi], coded as its exponent
	NoKey   bool        // no JSON key: Derive sets it from the keys that imply it
	Clamp   bool        // the bytes hold the number, clamped into [Lo, Hi] on decoding
	// Sub is a struct field's own description; nil for other kinds.
	Sub *Record
	// Index is the struct field's index, for reflection.
	Index int

	off      uintptr      // the field's offset in the struct
	elem     uintptr      // an array entry's size in bytes
	goKind   reflect.Kind // the field's (an array's entry's) Go kind
	width    int          // bytes of a number
	signed   bool         // a signed Go type
	fullBits bool         // the range is the type's whole width: raw bits, no reduction
	def      int64        // the parsed Default of a number, enumeration or bool
	defArch  target.Arch
}

// Described is the type-erased view of a Table, for what handles values of
// any domain by reflection (mutation, docs).
type Described interface {
	// FieldList returns the fields in struct order.
	FieldList() []Field
	// Markdown is the field table of docs/domains.md.
	Markdown() string
}

// registry holds the compiled table of each value type.
var registry sync.Map // reflect.Type -> Described

// Lookup returns the table compiled for the value type t, if any.
func Lookup(t reflect.Type) (Described, bool) {
	d, ok := registry.Load(t)
	if !ok {
		return nil, false
	}
	return d.(Described), true
}

// enumer is a type that names its values.
type enumer interface{ Enum() domain.Enum }

var (
	enumerType = reflect.TypeFor[enumer]()
	targetType = reflect.TypeFor[target.Target]()
)

// parseTag reads one struct field's tag into a Field.
func parseTag(sf reflect.StructField) (Field, error) {
	parts := strings.Split(sf.Tag.Get("field"), ",")
	f := Field{Name: parts[0], GoName: sf.Name, Index: sf.Index[0], off: sf.Offset}
	if f.Name == "" {
		return f, fmt.Errorf("field %s: no `field:\"name\"` tag", sf.Name)
	}
	t := sf.Type
	if t.Kind() == reflect.Array {
		f.Len, f.elem, t = t.Len(), t.Elem().Size(), t.Elem()
	}
	f.goKind = t.Kind()
	if t.Kind() == reflect.Struct && t != targetType {
		return f, f.structKind(sf, t, parts[1:])
	}
	if err := f.kind(t); err != nil {
		return f, fmt.Errorf("field %s: %w", sf.Name, err)
	}
	for _, opt := range parts[1:] {
		if err := f.option(opt); err != nil {
			return f, fmt.Errorf("field %s: %w", sf.Name, err)
		}
	}
	if err := f.parseDefault(); err != nil {
		return f, fmt.Errorf("field %s: %w", sf.Name, err)
	}
	if f.Len > 0 && (f.Kind == Bool || f.Kind == Target) {
		return f, fmt.Errorf("field %s: an array of %s has no coding (want numbers or an enumeration)", sf.Name, t)
	}
	if f.Pow2 && (f.Kind != Int || f.fullBits || !isPow2(f.Lo) || !isPow2(f.Hi)) {
		return f, fmt.Errorf("field %s: pow2 wants range=LO..HI of powers of two", sf.Name)
	}
	if f.Pow2 {
		f.width = 1 // the exponent
	}
	if f.NoKey && !f.Derived {
		return f, fmt.Errorf("field %s: nokey wants derived (Derive sets it)", sf.Name)
	}
	if f.Zip && f.Len == 0 {
		return f, fmt.Errorf("field %s: zip is for an array", sf.Name)
	}
	if f.Clamp && (f.Kind != Int || f.fullBits || f.Pow2) {
		return f, fmt.Errorf("field %s: clamp wants range=LO..HI of a number", sf.Name)
	}
	return f, nil
}

// structKind compiles a struct field's (an array of structs') own fields;
// its only option is derived (its Derive method's parent sets it).
func (f *Field) structKind(sf reflect.StructField, t reflect.Type, opts []string) error {
	for _, opt := range opts {
		if opt != "derived" {
			return fmt.Errorf("field %s: option %q of a struct (want only derived)", sf.Name, opt)
		}
		f.Derived = true
	}
	sub, err := compile(t)
	if err != nil {
		return fmt.Errorf("field %s: %w", sf.Name, err)
	}
	for _, sf := range sub.fields {
		if sf.Since != 0 {
			return fmt.Errorf("field %s: its field %s has since=%d; a struct's fields are all of version 0", f.GoName, sf.GoName, sf.Since)
		}
	}
	f.Kind, f.Sub, f.elem = Struct, sub, t.Size()
	return nil
}

// kind sets the field's kind, width and natural range from its Go type.
func (f *Field) kind(t reflect.Type) error {
	switch {
	case t == targetType:
		f.Kind, f.width = Target, 2
	case t.Kind() == reflect.Bool:
		f.Kind, f.Lo, f.Hi = Bool, 0, 1
		if t.Implements(enumerType) { // a bool type naming its two values
			if f.Names = reflect.Zero(t).Interface().(enumer).Enum(); len(f.Names) != 2 {
				return fmt.Errorf("bool type %s names %d values, want 2", t, len(f.Names))
			}
		}
	case t.Kind() == reflect.Uint8 && t.Implements(enumerType):
		f.Names = reflect.Zero(t).Interface().(enumer).Enum()
		if len(f.Names) == 0 || len(f.Names) > 256 {
			return fmt.Errorf("enumeration %s has %d names", t, len(f.Names))
		}
		f.Kind, f.width, f.Lo, f.Hi = Enum, 1, 0, int64(len(f.Names)-1)
	case t.Kind() >= reflect.Int8 && t.Kind() <= reflect.Int64 && t.Kind() != reflect.Int:
		f.Kind, f.width, f.signed, f.fullBits = Int, t.Bits()/8, true, true
		f.Lo, f.Hi = -1<<(t.Bits()-1), 1<<(t.Bits()-1)-1
	case t.Kind() >= reflect.Uint8 && t.Kind() <= reflect.Uint32:
		f.Kind, f.width, f.fullBits = Int, t.Bits()/8, true
		f.Lo, f.Hi = 0, 1<<t.Bits()-1
	case t.Kind() == reflect.Uint64:
		// Its bits are an int64's: Hi is the int64 maximum, but the codec
		// and the JSON form take the whole unsigned range.
		f.Kind, f.width, f.fullBits = Int, 8, true
		f.Lo, f.Hi = 0, math.MaxInt64
	default:
		return fmt.Errorf("type %s has no coding (want a sized integer, a bool, an enumeration or target.Target)", t)
	}
	return nil
}

// option applies one tag option.
func (f *Field) option(opt string) error {
	key, val, _ := strings.Cut(opt, "=")
	switch key {
	case "range":
		lo, hi, ok := strings.Cut(val, "..")
		l, err1 := strconv.ParseInt(lo, 10, 64)
		h, err2 := strconv.ParseInt(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || l > h || l < f.Lo || h > f.Hi || f.Kind != Int || f.goKind == reflect.Uint64 {
			return fmt.Errorf("range %q: want LO..HI inside the integer type's range", val)
		}
		f.Lo, f.Hi, f.fullBits = l, h, false
	case "default":
		f.Default = val
	case "derived":
		f.Derived = true
	case "names":
		f.Names = strings.Split(val, "|")
		if f.Kind != Bool || len(f.Names) != 2 {
			return fmt.Errorf("names %q: want two names of a bool", val)
		}
	case "zip":
		f.Zip = true
	case "pow2":
		f.Pow2 = true
	case "nokey":
		f.NoKey = true
	case "clamp":
		f.Clamp = true
	case "since":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 255 {
			return fmt.Errorf("since %q: want a version 0..255", val)
		}
		f.Since = n
	default:
		return fmt.Errorf("unknown tag option %q", opt)
	}
	return nil
}

func isPow2(n int64) bool { return n > 0 && n&(n-1) == 0 }

// exp is the exponent of a power of two, floor(log2(n)); 0 for n < 1.
func exp(n int64) int64 { return max(int64(bits.Len64(uint64(max(n, 1))))-1, 0) }

// parseDefault checks the tagged default against the field's facts.
func (f *Field) parseDefault() error {
	if f.Default == "" && f.Kind == Target {
		return fmt.Errorf("a target needs a default architecture (default=sm_NN)")
	}
	if f.Default == "" {
		return nil
	}
	var err error
	switch f.Kind {
	case Target:
		f.defArch, err = target.ParseArch(f.Default)
	default:
		f.def, err = f.parseText(f.Default)
	}
	if err != nil {
		return fmt.Errorf("default %q: %w", f.Default, err)
	}
	return nil
}

// parseText reads a number, name or bool as the tag spells it.
func (f *Field) parseText(s string) (int64, error) {
	switch {
	case f.Names != nil:
		i, err := f.Names.Parse(f.Name, s)
		return int64(i), err
	case f.Kind == Bool:
		b, err := strconv.ParseBool(s)
		if b {
			return 1, err
		}
		return 0, err
	}
	if f.goKind == reflect.Uint64 {
		n, err := strconv.ParseUint(s, 0, 64)
		return int64(n), err
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, err
	}
	return n, checkRange(f, n)
}

// step is one unit of the byte layout: a field, or a flag byte of bools.
type step struct {
	field int   // index into Table.fields; -1 for a flag byte
	bits  []int // the flag byte's bools, as indices into Table.fields
	zip   []int // the arrays whose entries alternate with the field's
}

// layout lays out the steps of each version.
func layout(fields []Field) [][]step {
	maxV := 0
	for _, f := range fields {
		maxV = max(maxV, f.Since)
	}
	steps := make([][]step, maxV+1)
	for v := range steps {
		var flags []int // the index into steps[v] of each flag byte
		nbool := 0
		for i, f := range fields {
			switch {
			case f.Since != v:
			case f.Zip:
				s := &steps[v][len(steps[v])-1]
				s.zip = append(s.zip, i)
			case f.Kind != Bool:
				steps[v] = append(steps[v], step{field: i})
			default:
				if nbool%8 == 0 {
					flags = append(flags, len(steps[v]))
					steps[v] = append(steps[v], step{field: -1})
				}
				s := &steps[v][flags[len(flags)-1]]
				s.bits = append(s.bits, i)
				nbool++
			}
		}
	}
	return steps
}

// names returns the JSON names of fields, for an error listing the choices.
func names(fields []Field) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		switch {
		case f.NoKey:
		case f.Kind == Target:
			out = append(out, "target", "ptx")
		default:
			out = append(out, f.Name)
		}
	}
	return slices.Clip(out)
}
