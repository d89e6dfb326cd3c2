package ptx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Span is the lines one entry occupies in a module, 1-based and inclusive.
type Span struct {
	// Entry is the entry's index in the slice given to Module.
	Entry       int
	First, Last int
}

// LineTable maps the lines of a module back to its entries. Lines up to
// HeaderLast are the module header (.version, .target, .address_size): an
// error there concerns every entry.
type LineTable struct {
	HeaderLast int
	Spans      []Span
}

// Entry returns the index of the entry that holds line, or ok false for a
// header line or a line outside every entry.
func (t LineTable) Entry(line int) (entry int, ok bool) {
	i := sort.Search(len(t.Spans), func(i int) bool { return t.Spans[i].Last >= line })
	if i < len(t.Spans) && t.Spans[i].First <= line {
		return t.Spans[i].Entry, true
	}
	return 0, false
}

// Header is the module header for t: PTX version, target and 64-bit
// addressing.
func Header(t target.Target) string {
	return fmt.Sprintf(".version %s\n.target %s\n.address_size 64\n", t.PTX, t.Arch)
}

// Module assembles entries that share one target into a module, one entry
// after another, and returns the text with its line table. Entries of
// another target are an error: the header fixes the target for all.
func Module(entries []Entry) (string, LineTable, error) {
	if len(entries) == 0 {
		return "", LineTable{}, fmt.Errorf("ptx: module with no entries")
	}
	t := entries[0].Target
	var b strings.Builder
	b.WriteString(Header(t))
	line := strings.Count(b.String(), "\n")
	table := LineTable{HeaderLast: line, Spans: make([]Span, 0, len(entries))}
	for i, e := range entries {
		if e.Target != t {
			return "", LineTable{}, fmt.Errorf("ptx: entry %s is for %s, the module for %s", e.Name, e.Target, t)
		}
		b.WriteString("\n")
		line++
		n := strings.Count(e.Text, "\n")
		table.Spans = append(table.Spans, Span{Entry: i, First: line + 1, Last: line + n})
		b.WriteString(e.Text)
		line += n
	}
	return b.String(), table, nil
}
