package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// writeJSON writes v as indented JSON: the --json form of every listing.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newTable starts a tab-aligned table under its header row (columns
// separated by tabs): the plain form of every listing. The caller writes
// the rows and flushes.
func newTable(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	return tw
}

// screenWidth is what the listings people read at a terminal fit in
// (oracles, triage list): fixed rather than the terminal's, so the same
// store lists the same way in a terminal, a log and a test. --wide lifts it.
const screenWidth = 120

// fitTable is a table whose flexible columns (titles, notes, paths) are
// cut, each cell ending in "…", so that no line is wider than the width it
// is written at: the other columns are short and kept whole.
type fitTable struct {
	rows [][]string
	flex map[int]bool
}

// newFitTable starts a fitTable under its header; flex are the indexes of
// the columns that may be cut.
func newFitTable(header []string, flex ...int) *fitTable {
	t := &fitTable{rows: [][]string{header}, flex: map[int]bool{}}
	for _, c := range flex {
		t.flex[c] = true
	}
	return t
}

// row adds a row of cells.
func (t *fitTable) row(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the table, columns two spaces apart, cutting the widest
// flexible column one rune at a time until the lines fit width (0: no
// limit). A flexible column keeps at least its header's width.
func (t *fitTable) write(w io.Writer, width int) error {
	widths := make([]int, len(t.rows[0]))
	for _, r := range t.rows {
		for c, cell := range r {
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	total := 2 * (len(widths) - 1)
	for _, n := range widths {
		total += n
	}
	for width > 0 && total > width {
		widest := -1
		for c, n := range widths {
			if t.flex[c] && n > utf8.RuneCountInString(t.rows[0][c]) && (widest < 0 || n > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break // nothing left to cut: the fixed columns alone are wider
		}
		widths[widest]--
		total--
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		for c, cell := range r {
			cell = fitWidth(cell, widths[c])
			b.WriteString(cell)
			if c < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell)+2))
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}
