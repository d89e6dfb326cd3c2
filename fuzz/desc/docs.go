package desc

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Markdown is the field table of docs/domains.md: each field's JSON name,
// the values it accepts and its default, as the table states them, so the
// page cannot disagree with the parser.
func (t *Table[V]) Markdown() string {
	var b strings.Builder
	b.WriteString("| field | values | default |\n|---|---|---|\n")
	t.rows(&b, "")
	return b.String()
}

// rows writes one row per field, a struct's fields after its own row with
// its name as their prefix ("modes[].shape").
func (t *Record) rows(b *strings.Builder, prefix string) {
	for _, f := range t.fields {
		if f.NoKey {
			continue // implied by other keys; the form's doc says how
		}
		if f.Kind == Target {
			fmt.Fprintf(b, "| `target` | an architecture, `sm_90a` | `%s` |\n", f.defArch)
			b.WriteString("| `ptx` | a PTX ISA version, `8.0` | the target's first |\n")
			continue
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", prefix+f.Name, f.values(), f.defaultText())
		if f.Kind == Struct {
			name := prefix + f.Name
			if f.Len > 0 {
				name += "[]"
			}
			f.Sub.rows(b, name+".")
		}
	}
}

// values spells what a field accepts.
func (f *Field) values() string {
	if f.Len > 0 {
		return fmt.Sprintf("up to %d entries of %s", f.Len, f.entryValues())
	}
	return f.entryValues()
}

// entryValues spells what a scalar or one array entry accepts.
func (f *Field) entryValues() string {
	switch {
	case f.Kind == Struct:
		return "an object of the fields below"
	case f.Names != nil:
		return "`" + strings.Join(f.Names, "`, `") + "`"
	case f.Kind == Bool:
		return "`false`, `true`"
	case f.goKind == reflect.Uint64:
		return fmt.Sprintf("0..%d", uint64(math.MaxUint64))
	case f.Pow2:
		return fmt.Sprintf("a power of two in %d..%d", f.Lo, f.Hi)
	}
	return fmt.Sprintf("%d..%d", f.Lo, f.Hi)
}

// defaultText spells a field's default.
func (f *Field) defaultText() string {
	switch {
	case f.Derived:
		return "derived (see above)"
	case f.Names != nil:
		return "`" + f.Names.Name(int(f.def)) + "`"
	case f.Kind == Bool:
		return fmt.Sprintf("`%v`", f.def != 0)
	case f.Default != "":
		return "`" + f.Default + "`" // as the tag spells it: an address in hex
	}
	return "`0`"
}
