package reports

import (
	"bytes"
	"embed"
	"encoding/json"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/oracles"
)

//go:embed templates/report.html.tmpl
var templateFS embed.FS

var pageTemplate = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"fmtTime": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"join":       func(s []string) string { return strings.Join(s, ", ") },
	"indentJSON": indentJSON,
	"inPair":     func(pair []string, oracle string) bool { return slices.Contains(pair, oracle) },
	"hasErr":     func(c tally.Cell) bool { return c[oracles.Error]+c[oracles.Timeout] > 0 },
	"tally":      tallyText,
	"cases":      tally.Cases,
	// filingClass styles a filing cell by what it asks of the reader.
	"filingClass": func(f string) string {
		switch {
		case f == Ours:
			return "f-ours"
		case f == FixedUpstream:
			return "f-fixed"
		case f == Limitation:
			return "f-limitation"
		}
		return "f-file"
	},
	// tonightOrder lists the tonight section's rows: news first.
	"tonightOrder": func() []string {
		return []string{triage.TonightRegressed, triage.TonightNew, triage.TonightFixed, triage.TonightStill}
	},
	"isNotRun": func(h tally.ToolHint) bool { return h.Why == tally.HintNotRun },
	"notRun": func(hs []tally.ToolHint) []tally.ToolHint {
		var out []tally.ToolHint
		for _, h := range hs {
			if h.Why == tally.HintNotRun {
				out = append(out, h)
			}
		}
		return out
	},
}).ParseFS(templateFS, "templates/report.html.tmpl"))

// claimGroup is one domain's rows of the claims matrix.
type claimGroup struct {
	Domain string
	Claims []tally.Claim
}

// page is what the HTML template renders.
type page struct {
	R                                                                  *Report
	Definition                                                         string
	ClaimGroups                                                        []claimGroup
	Contradicted                                                       []tally.Claim
	CasesPlot, BucketsPlot, FeaturesPlot, ThroughputPlot, CoveragePlot template.HTML
}

// WriteHTML writes the report as one self-contained page: inline CSS and
// SVG, no scripts, fonts or other network resources. Elements tests and users
// can find: #summary, #campaigns-table, #tonight (cards #tonight-new,
// #tonight-still, #tonight-regressed, #tonight-fixed; #tonight-versions;
// #tonight-table with tr.tonight-row rows, data-tonight), #plots with svg#plot-cases,
// #plot-buckets, #plot-features, #plot-throughput and #plot-coverage, #buckets-table with
// tr.bucket rows (details.reproducer inside), #claims-matrix with tr.claim
// rows (data-rule, data-verdict), #agreement-matrix with tr.matrix-row rows.
func WriteHTML(w io.Writer, r *Report) error {
	p := page{R: r, Definition: tally.ClaimsDefinition,
		CasesPlot:      stepChart("plot-cases", "Cases over time (cumulative)", "cases", colorA, r.Timeline.Cases),
		BucketsPlot:    stepChart("plot-buckets", "Buckets over time (cumulative, by first sighting)", "buckets", "#c2410c", r.Timeline.Buckets),
		FeaturesPlot:   stepChart("plot-features", "Features over time (the campaign's distinct verdict features)", "features", "#15803d", r.Timeline.Features),
		ThroughputPlot: throughputChart(r.Throughput),
		CoveragePlot:   coverageChart(r.Coverage),
	}
	for _, c := range r.Claims {
		if n := len(p.ClaimGroups); n == 0 || p.ClaimGroups[n-1].Domain != c.Domain {
			p.ClaimGroups = append(p.ClaimGroups, claimGroup{Domain: c.Domain})
		}
		g := &p.ClaimGroups[len(p.ClaimGroups)-1]
		g.Claims = append(g.Claims, c)
		if c.Verdict == tally.Contradicted {
			p.Contradicted = append(p.Contradicted, c)
		}
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// indentJSON pretty-prints a JSON form for display.
func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
