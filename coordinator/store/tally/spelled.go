package tally

import (
	"cmp"
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
	Reasons []ReasonCount `json:"reasons,omitempty"`
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

// Spelled tallies render coverage one case at a time: per oracle and
// domain (keyed "ORACLE DOMAIN"), the cell, and its reasons by rule. Its
// size grows with the oracles, domains and reasons seen, not the cases.
type Spelled struct {
	Cells map[string]*RenderCoverage         `json:"cells,omitempty"`
	Why   map[string]map[string]*ReasonCount `json:"why,omitempty"`
	// Tools are the cells of tools asked through more than one entry point
	// (oracles.Tool: MLIR's nvgpu and nvvm ops), keyed "TOOL DOMAIN": a
	// case counts as judged when any entry point judged it.
	Tools map[string]*RenderCoverage `json:"tools,omitempty"`
}

// Add counts one case's verdicts by the tools (spec rule sets judge every
// case and are left out).
func (b *Spelled) Add(vs []oracles.Verdict) {
	for _, v := range vs {
		if isSpec(v) {
			continue
		}
		c, why := b.cell(v.Oracle, v.Domain)
		c.Cases++
		if v.Kind != oracles.Unsupported {
			c.Judged++
			continue
		}
		entry(&why, v.Rule, func() *ReasonCount { return reasonCount(v) }).Cases++
	}
	b.addTools(vs)
}

// addTools counts one case in the cells of the tools it was asked through
// more than one entry point of.
func (b *Spelled) addTools(vs []oracles.Verdict) {
	judged := map[string]bool{}
	for _, v := range vs {
		if t := oracles.Tool(v.Oracle); t != v.Oracle {
			judged[t] = false
		}
	}
	for _, v := range vs {
		if t := oracles.Tool(v.Oracle); v.Kind != oracles.Unsupported {
			if _, ok := judged[t]; ok {
				judged[t] = true
			}
		}
	}
	for t, ok := range judged {
		dom := vs[0].Domain
		c := entry(&b.Tools, t+" "+dom, func() *RenderCoverage { return &RenderCoverage{Oracle: t, Domain: dom} })
		c.Cases++
		if ok {
			c.Judged++
		}
	}
}

// cell returns the oracle's cell of the domain and its reasons, made empty
// when new.
func (b *Spelled) cell(oracle, domain string) (*RenderCoverage, map[string]*ReasonCount) {
	key := oracle + " " + domain
	c := entry(&b.Cells, key, func() *RenderCoverage { return &RenderCoverage{Oracle: oracle, Domain: domain} })
	if b.Why == nil {
		b.Why = map[string]map[string]*ReasonCount{}
	}
	if b.Why[key] == nil {
		b.Why[key] = map[string]*ReasonCount{}
	}
	return c, b.Why[key]
}

// Merge adds o's counts to b.
func (b *Spelled) Merge(o *Spelled) {
	for key, oc := range o.Tools {
		c := entry(&b.Tools, key, func() *RenderCoverage { return &RenderCoverage{Oracle: oc.Oracle, Domain: oc.Domain} })
		c.Cases += oc.Cases
		c.Judged += oc.Judged
	}
	for key, oc := range o.Cells {
		c, why := b.cell(oc.Oracle, oc.Domain)
		c.Cases += oc.Cases
		c.Judged += oc.Judged
		for rule, orc := range o.Why[key] {
			if rc := why[rule]; rc != nil {
				rc.Cases += orc.Cases
				continue
			}
			rc := *orc
			why[rule] = &rc
		}
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

// Coverage returns the cells, by oracle then domain, reasons most first.
func (b *Spelled) Coverage() []RenderCoverage {
	out := make([]RenderCoverage, 0, len(b.Cells))
	for key, cell := range b.Cells {
		c := *cell
		rs := make([]ReasonCount, 0, len(b.Why[key]))
		for _, rc := range b.Why[key] {
			rs = append(rs, *rc)
		}
		slices.SortFunc(rs, func(x, y ReasonCount) int { return cmp.Or(y.Cases-x.Cases, strings.Compare(x.Rule, y.Rule)) })
		c.Reasons = rs
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y RenderCoverage) int {
		return cmp.Or(strings.Compare(x.Oracle, y.Oracle), strings.Compare(x.Domain, y.Domain))
	})
	return out
}

// ToolCoverage returns the cells of the tools asked through several entry
// points, by tool then domain.
func (b *Spelled) ToolCoverage() []RenderCoverage {
	out := make([]RenderCoverage, 0, len(b.Tools))
	for _, c := range b.Tools {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y RenderCoverage) int {
		return cmp.Or(strings.Compare(x.Oracle, y.Oracle), strings.Compare(x.Domain, y.Domain))
	})
	return out
}
