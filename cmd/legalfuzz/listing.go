package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
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
