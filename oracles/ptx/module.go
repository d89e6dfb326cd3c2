package ptx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
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

// Reproduction is the replay input every PTX tool reads: the case as a
// one-entry module in oracles.PTXFile, or a note that PTX cannot spell it.
func Reproduction(c domain.Case) oracles.Reproduction {
	text, err := caseModule(c)
	if err != nil {
		return oracles.NotWritten(oracles.PTXFile, err.Error())
	}
	return oracles.Reproduction{Files: []oracles.ReproFile{{Name: oracles.PTXFile, Text: text}}, Input: oracles.PTXFile}
}

// caseModule renders the case as a one-entry PTX module for its target.
func caseModule(c domain.Case) (string, error) {
	if !Renders(c.Domain) {
		return "", fmt.Errorf("no PTX renderer for domain %s", c.Domain)
	}
	e, err := Render(c)
	if err != nil {
		return "", err
	}
	text, _, err := Module([]Entry{e})
	return text, err
}

// Subject is the opcode, with its qualifiers, of the first instruction of
// the bundle's PTX module that starts with prefix: what an issue about a
// PTX tool names.
func Subject(read func(string) string, _, prefix string) string {
	if prefix == "" {
		return ""
	}
	for _, line := range strings.Split(read(oracles.PTXFile), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 1 && strings.HasPrefix(fields[0], "@") { // a guard predicate
			fields = fields[1:]
		}
		if len(fields) > 0 && strings.Contains(fields[0], prefix) && !strings.HasPrefix(fields[0], ".") {
			return strings.TrimSuffix(fields[0], ";")
		}
	}
	return ""
}
