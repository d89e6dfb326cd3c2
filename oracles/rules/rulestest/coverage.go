package rulestest

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Count is how often one rule fired and how often it was checked and held.
type Count struct {
	Fired  int `json:"fired"`
	Passed int `json:"passed"`
}

// Coverage counts, per rule ID, judgments that fired or passed it.
type Coverage map[string]*Count

// Record adds one judgment's rules.
func (c Coverage) Record(j rules.Judgment) {
	for _, r := range j.Passed {
		c.count(r.ID).Passed++
	}
	if j.Rule != nil {
		c.count(j.Rule.ID).Fired++
	}
}

func (c Coverage) count(id string) *Count {
	n, ok := c[id]
	if !ok {
		n = &Count{}
		c[id] = n
	}
	return n
}

// Write prints one line per known rule, in ID order, and a summary of the
// rules never fired or never passed, which are blind spots of the corpus.
func (c Coverage) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fired\tpassed\t  rule")
	var neverFired, neverPassed int
	all := rules.Rules()
	for _, r := range all {
		n := c[r.ID]
		if n == nil {
			n = &Count{}
		}
		if n.Fired == 0 {
			neverFired++
		}
		if n.Passed == 0 {
			neverPassed++
		}
		fmt.Fprintf(tw, "%d\t%d\t  %s\n", n.Fired, n.Passed, r.ID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d rules: %d never fired, %d never passed\n", len(all), neverFired, neverPassed)
	return err
}
