package reports

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
)

// RenderCoverage and ReasonCount are the tally's (package tally).
type (
	RenderCoverage = tally.RenderCoverage
	ReasonCount    = tally.ReasonCount
)

// coverageTopReasons is how many reasons a text table names per cell.
const coverageTopReasons = 3

// writeCoverageMarkdown writes the render coverage table: per oracle and
// domain, the share judged and the top reasons for the rest.
func writeCoverageMarkdown(b *strings.Builder, cov, tools []RenderCoverage) {
	if len(cov) == 0 {
		return
	}
	b.WriteString("\n### Render coverage\n\n| oracle | domain | cases | judged | top reasons for the rest |\n|---|---|---:|---:|---|\n")
	for _, c := range cov {
		fmt.Fprintf(b, "| %s | %s | %d | %.0f%% | %s |\n", c.Oracle, c.Domain, c.Cases, 100*c.JudgedShare(), mdCell(topReasons(c)))
	}
	if len(tools) == 0 {
		return
	}
	b.WriteString("\nJudged through any entry point of the tool (MLIR: its nvgpu or its nvvm ops):\n\n| tool | domain | cases | judged |\n|---|---|---:|---:|\n")
	for _, c := range tools {
		fmt.Fprintf(b, "| %s | %s | %d | %.0f%% |\n", c.Oracle, c.Domain, c.Cases, 100*c.JudgedShare())
	}
}

// topReasons names a cell's most frequent reasons with their shares of
// the cell's cases.
func topReasons(c RenderCoverage) string {
	var parts []string
	for i, r := range c.Reasons {
		if i == coverageTopReasons {
			parts = append(parts, fmt.Sprintf("+%d more", len(c.Reasons)-i))
			break
		}
		name := r.Field + "=" + r.Class
		if r.Field == "" {
			name = r.Rule
		}
		parts = append(parts, fmt.Sprintf("%s %s %.0f%%", r.Gap, name, 100*float64(r.Cases)/float64(c.Cases)))
	}
	return strings.Join(parts, "; ")
}
