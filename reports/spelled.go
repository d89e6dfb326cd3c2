package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// RenderCoverage is one oracle's render coverage of one domain: how many of
// the domain's cases it judged, and, by reason, why it judged none of the
// others (an Unsupported verdict names its reason, oracles.Reason). A
// fuzzer finds what it can express: this is what reached each tool.
type RenderCoverage struct {
	Oracle string `json:"oracle"`
	Domain string `json:"domain"`
	Cases  int    `json:"cases"`
	Judged int    `json:"judged"`
	// Reasons are the Unsupported verdicts by reason, most cases first.
	Reasons []ReasonCount `json:"reasons"`
}

// ReasonCount is how many cases one reason left unjudged. Gap is the
// reason's (tool, ours, deferred), or "undeclared" for a verdict whose
// Rule names none (an older store, an oracle outside this build);
// Example is one verdict's diagnostic.
type ReasonCount struct {
	Rule    string `json:"rule"`
	Gap     string `json:"gap"`
	Field   string `json:"field"`
	Class   string `json:"class"`
	Cases   int    `json:"cases"`
	Example string `json:"example"`
}

// JudgedShare is the share of the cases judged, 0 to 1.
func (c RenderCoverage) JudgedShare() float64 {
	if c.Cases == 0 {
		return 0
	}
	return float64(c.Judged) / float64(c.Cases)
}

// coverageBuilder tallies render coverage one case at a time.
type coverageBuilder struct {
	cells map[[2]string]*RenderCoverage
	why   map[[2]string]map[string]*ReasonCount
}

func newCoverageBuilder() *coverageBuilder {
	return &coverageBuilder{cells: map[[2]string]*RenderCoverage{}, why: map[[2]string]map[string]*ReasonCount{}}
}

// add counts one case's verdicts by the tools (spec rule sets judge every
// case and are left out).
func (b *coverageBuilder) add(vs []oracles.Verdict) {
	for _, v := range vs {
		if isSpec(v) {
			continue
		}
		key := [2]string{v.Oracle, v.Domain}
		c := b.cells[key]
		if c == nil {
			c = &RenderCoverage{Oracle: v.Oracle, Domain: v.Domain}
			b.cells[key], b.why[key] = c, map[string]*ReasonCount{}
		}
		c.Cases++
		if v.Kind != oracles.Unsupported {
			c.Judged++
			continue
		}
		rc := b.why[key][v.Rule]
		if rc == nil {
			rc = reasonCount(v)
			b.why[key][v.Rule] = rc
		}
		rc.Cases++
	}
}

// reasonCount starts the count of a verdict's reason.
func reasonCount(v oracles.Verdict) *ReasonCount {
	rc := &ReasonCount{Rule: v.Rule, Gap: "undeclared", Example: v.Diagnostic}
	if r, ok := oracles.ParseReason(v.Rule); ok {
		rc.Gap, rc.Field, rc.Class = string(r.Gap), r.Field, r.Class
	}
	return rc
}

// coverage returns the tallies, by oracle then domain, reasons most first.
func (b *coverageBuilder) coverage() []RenderCoverage {
	out := make([]RenderCoverage, 0, len(b.cells))
	for key, c := range b.cells {
		rs := make([]ReasonCount, 0, len(b.why[key]))
		for _, rc := range b.why[key] {
			rs = append(rs, *rc)
		}
		slices.SortFunc(rs, func(x, y ReasonCount) int { return cmp.Or(y.Cases-x.Cases, strings.Compare(x.Rule, y.Rule)) })
		c.Reasons = rs
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y RenderCoverage) int {
		return cmp.Or(strings.Compare(x.Oracle, y.Oracle), strings.Compare(x.Domain, y.Domain))
	})
	return out
}

// coverageTopReasons is how many reasons a text table names per cell.
const coverageTopReasons = 3

// writeCoverageMarkdown writes the render coverage table: per oracle and
// domain, the share judged and the top reasons for the rest.
func writeCoverageMarkdown(b *strings.Builder, cov []RenderCoverage) {
	if len(cov) == 0 {
		return
	}
	b.WriteString("\n### Render coverage\n\n| oracle | domain | cases | judged | top reasons for the rest |\n|---|---|---:|---:|---|\n")
	for _, c := range cov {
		fmt.Fprintf(b, "| %s | %s | %d | %.0f%% | %s |\n", c.Oracle, c.Domain, c.Cases, 100*c.JudgedShare(), mdCell(topReasons(c)))
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
