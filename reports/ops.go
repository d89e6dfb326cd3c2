package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
)

// OpCoverage and OpCell are the tally's (package tally).
type (
	OpCoverage = tally.OpCoverage
	OpCell     = tally.OpCell
)

// opListLimit bounds the ops a Markdown table lists per oracle beyond
// those whose mix holds an error or a timeout (all listed).
const opListLimit = 10

// writeOpsMarkdown writes op coverage: per oracle, the ops seen, judged
// at least once and that reached llc; then per op its outcome mix, the
// ops with an error or timeout first, the rest capped with a count.
func writeOpsMarkdown(b *strings.Builder, cov []OpCoverage) {
	if len(cov) == 0 {
		return
	}
	b.WriteString("\n### Op coverage\n\n| oracle | domain | ops seen | judged at least once | reached llc |\n|---|---|---:|---:|---:|\n")
	for _, c := range cov {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", c.Oracle, c.Domain, c.Ops, shareText(c.Judged, c.Ops), shareText(c.ReachedLLC, c.Ops))
	}
	b.WriteString("\nPer op, those with an error or a timeout first (every op in report.json):\n\n| oracle | op | cases | outcomes |\n|---|---|---:|---|\n")
	for _, c := range cov {
		cells := slices.Clone(c.Cells)
		slices.SortStableFunc(cells, func(x, y OpCell) int { return cmp.Compare(refusedFirst(x), refusedFirst(y)) })
		rest := 0
		for _, cell := range cells {
			if !cell.Refused() {
				if rest++; rest > opListLimit {
					continue
				}
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s |\n", c.Oracle, cell.Op, cell.Cases, outcomeMix(cell))
		}
		if rest > opListLimit {
			fmt.Fprintf(b, "| %s | … and %d more ops | | |\n", c.Oracle, rest-opListLimit)
		}
	}
}

// refusedFirst orders the ops whose mix holds an error or timeout first,
// and the cases of no judge's op last.
func refusedFirst(c OpCell) int {
	switch {
	case c.Op == tally.UndefinedOp:
		return 2
	case c.Refused():
		return 0
	}
	return 1
}

// outcomeMix writes an op's outcomes, most cases first.
func outcomeMix(c OpCell) string {
	outs := make([]string, 0, len(c.Outcomes))
	for o := range c.Outcomes {
		outs = append(outs, o)
	}
	slices.SortFunc(outs, func(x, y string) int { return cmp.Or(c.Outcomes[y]-c.Outcomes[x], strings.Compare(x, y)) })
	for i, o := range outs {
		outs[i] = fmt.Sprintf("%s %d", o, c.Outcomes[o])
	}
	return strings.Join(outs, ", ")
}

// shareText writes n of total with its percentage.
func shareText(n, total int) string {
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%d%%)", n, n*100/total)
}
