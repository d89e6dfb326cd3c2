package tally

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Cell counts one oracle's verdict kinds on the cases a rule decided.
type Cell map[oracles.Kind]int

// Row is one spec rule: how many cases it decided, and what every other
// oracle said about those cases.
type Row struct {
	Rule  string          `json:"rule"`
	Cases int             `json:"cases"`
	Cells map[string]Cell `json:"oracles"`
}

// Matrix is the rule-agreement matrix: spec rule × oracle verdict counts.
type Matrix struct {
	Oracles []string `json:"oracle_columns"`
	Rows    []Row    `json:"rows"`
}

// isSpec reports whether a verdict comes from one of legalfuzz's rule sets.
func isSpec(v oracles.Verdict) bool { return strings.HasPrefix(v.Oracle, "spec/") }

// BuildMatrix tallies verdicts by case: for each spec verdict (its rule is the
// row), every other oracle's verdict on the same case is counted in its column.
func BuildMatrix(byCase map[string][]oracles.Verdict) Matrix {
	var b MatrixBuilder
	for _, vs := range byCase {
		b.Add(vs)
	}
	return b.Matrix()
}

// MatrixBuilder builds the matrix one case at a time, so a report can stream
// a store's cases through it. The zero value is ready to use.
// Its state (Rows) is part of a stored tally.
type MatrixBuilder struct {
	Rows map[string]*Row `json:"rows,omitempty"`
}

// Add tallies one case's verdicts.
func (b *MatrixBuilder) Add(vs []oracles.Verdict) {
	for _, s := range vs {
		if !isSpec(s) {
			continue
		}
		row := b.row(s.Rule)
		row.Cases++
		for _, v := range vs {
			if v.Oracle != s.Oracle {
				row.cell(v.Oracle)[v.Kind]++
			}
		}
	}
}

// Merge adds o's tallies to b.
func (b *MatrixBuilder) Merge(o *MatrixBuilder) {
	for rule, or := range o.Rows {
		row := b.row(rule)
		row.Cases += or.Cases
		for oracle, c := range or.Cells {
			cell := row.cell(oracle)
			for k, n := range c {
				cell[k] += n
			}
		}
	}
}

func (b *MatrixBuilder) row(rule string) *Row {
	return entry(&b.Rows, rule, func() *Row { return &Row{Rule: rule, Cells: map[string]Cell{}} })
}

func (r *Row) cell(oracle string) Cell {
	if r.Cells == nil {
		r.Cells = map[string]Cell{}
	}
	if r.Cells[oracle] == nil {
		r.Cells[oracle] = Cell{}
	}
	return r.Cells[oracle]
}

// Matrix returns the tallies so far, rows by rule ID and columns by oracle.
func (b *MatrixBuilder) Matrix() Matrix {
	m := Matrix{Oracles: []string{}, Rows: []Row{}}
	cols := map[string]bool{}
	for _, r := range b.Rows {
		m.Rows = append(m.Rows, *r)
		for c := range r.Cells {
			cols[c] = true
		}
	}
	for c := range cols {
		m.Oracles = append(m.Oracles, c)
	}
	slices.Sort(m.Oracles)
	slices.SortFunc(m.Rows, func(a, b Row) int { return strings.Compare(a.Rule, b.Rule) })
	return m
}

// cellKinds is the order of counts in a text cell: accept/reject/unsupported/error+timeout.
var cellKinds = []oracles.Kind{oracles.Accept, oracles.Reject, oracles.Unsupported}

func (c Cell) String() string {
	if len(c) == 0 {
		return "-"
	}
	parts := make([]string, 0, 4)
	for _, k := range cellKinds {
		parts = append(parts, fmt.Sprint(c[k]))
	}
	s := strings.Join(parts, "/")
	if n := c[oracles.Error] + c[oracles.Timeout]; n > 0 {
		s += fmt.Sprintf(" !%d", n)
	}
	return s
}

// WriteText prints the matrix as an aligned table; each cell is
// accept/reject/unsupported, with "!N" for N errors or timeouts.
func (m Matrix) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "RULE\tCASES\t%s\n", strings.Join(m.Oracles, "\t"))
	for _, r := range m.Rows {
		cells := make([]string, len(m.Oracles))
		for i, o := range m.Oracles {
			cells[i] = r.Cells[o].String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", r.Rule, r.Cases, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "cells: accept/reject/unsupported by the column's oracle on the cases the row's rule decided; !N = errors+timeouts")
	return err
}
