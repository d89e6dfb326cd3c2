package reports

import (
	"fmt"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"html"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"
)

// Plots are inline SVG written by hand: no scripts, no fonts, no network, and
// every label escaped here, which is why the result may be template.HTML.

const (
	plotWidth  = 620
	plotTop    = 38
	plotLeft   = 58
	plotRight  = 18
	plotBottom = 44
	colorA     = "#2563eb"
	colorB     = "#16a34a"
	colorMuted = "#94a3b8"
)

func esc(s string) string { return html.EscapeString(s) }

// svgOpen starts a plot with its title.
func svgOpen(b *strings.Builder, id, title string, height int) {
	fmt.Fprintf(b, `<svg id="%s" class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		esc(id), plotWidth, height, plotWidth, height, esc(title))
	fmt.Fprintf(b, `<title>%s</title><rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`, esc(title), plotWidth, height)
	fmt.Fprintf(b, `<text x="12" y="22" font-size="14" font-weight="600" fill="#0f172a">%s</text>`, esc(title))
}

func svgEmpty(b *strings.Builder, height int, msg string) {
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="13" fill="%s" text-anchor="middle">%s</text>`, plotWidth/2, height/2+10, colorMuted, esc(msg))
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// stepChart plots a cumulative count over time as a step line.
func stepChart(id, title, unit, color string, pts []TimePoint) template.HTML {
	const height = 260
	var b strings.Builder
	svgOpen(&b, id, title, height)
	if len(pts) == 0 {
		svgEmpty(&b, height, "no data")
		b.WriteString(`</svg>`)
		return template.HTML(b.String())
	}
	t0, t1 := pts[0].Time, pts[len(pts)-1].Time
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Second
	}
	ymax := niceCeil(float64(pts[len(pts)-1].Count))
	x0, x1 := float64(plotLeft), float64(plotWidth-plotRight)
	y0, y1 := float64(height-plotBottom), float64(plotTop)
	xOf := func(t time.Time) float64 { return x0 + (x1-x0)*float64(t.Sub(t0))/float64(span) }
	yOf := func(n float64) float64 { return y0 - (y0-y1)*n/ymax }
	ticks := yTicks(ymax)
	for i := 0; i <= ticks; i++ {
		v := ymax * float64(i) / float64(ticks)
		y := yOf(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e2e8f0"/>`, x0, y, x1, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" fill="#475569" text-anchor="end">%s</text>`, x0-6, y+4, esc(fmtCount(v)))
	}
	layout := "15:04:05"
	if span < 20*time.Second {
		layout = "15:04:05.0"
	}
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	}
	for i := 0; i <= 4; i++ {
		t := t0.Add(time.Duration(float64(span) * float64(i) / 4))
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case 4:
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" fill="#475569" text-anchor="%s">%s</text>`, xOf(t), y0+16, anchor, esc(t.UTC().Format(layout)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" fill="#64748b" text-anchor="middle">time (UTC, from %s)</text>`,
		(x0+x1)/2, height-8, esc(t0.UTC().Format("2006-01-02 15:04:05")))
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#334155"/>`, x0, y0, x1, y0)
	var path strings.Builder
	fmt.Fprintf(&path, "M%.1f %.1f", x0, y0)
	for _, p := range pts {
		fmt.Fprintf(&path, " H%.1f V%.1f", xOf(p.Time), yOf(float64(p.Count)))
	}
	fmt.Fprintf(&path, " H%.1f", x1)
	fmt.Fprintf(&b, `<path class="series" d="%s" fill="none" stroke="%s" stroke-width="2"/>`, path.String(), color)
	last := pts[len(pts)-1]
	fmt.Fprintf(&b, `<text x="%.1f" y="22" font-size="12" fill="%s" text-anchor="end">%d %s</text>`, x1, color, last.Count, esc(unit))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// yTicks picks how many intervals divide [0, ymax] (a niceCeil value) so
// that every tick is a whole number.
func yTicks(ymax float64) int {
	if ymax <= 5 {
		return int(ymax)
	}
	lead := ymax / math.Pow(10, math.Floor(math.Log10(ymax)))
	if lead == 2 {
		return 4
	}
	return 5
}

func fmtSeconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.3gms", s*1000)
	}
	return fmt.Sprintf("%.3gs", s)
}

func fmtCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.4g", v)
}

// hbar is one bar: its length as a fraction of the plot (0..1), colour and label.
type hbar struct {
	Frac  float64
	Color string
	Text  string
}

// hbarRow is one labelled row of one or more bars.
type hbarRow struct {
	Label string
	Bars  []hbar
}

// legendItem is a coloured key.
type legendItem struct{ Color, Text string }

// hbarChart draws labelled rows of horizontal bars.
func hbarChart(id, title, note string, rows []hbarRow, legend []legendItem) template.HTML {
	const labelW, textW, barH, gap = 110, 170, 12, 10
	height := plotTop + 22
	for _, r := range rows {
		height += len(r.Bars)*(barH+2) + gap
	}
	var b strings.Builder
	svgOpen(&b, id, title, max(height, 120))
	if len(rows) == 0 {
		svgEmpty(&b, max(height, 120), "no data")
		b.WriteString(`</svg>`)
		return template.HTML(b.String())
	}
	lx := float64(plotWidth - plotRight)
	for i := len(legend) - 1; i >= 0; i-- {
		l := legend[i]
		w := float64(7*len(l.Text) + 22)
		lx -= w
		fmt.Fprintf(&b, `<rect x="%.1f" y="12" width="10" height="10" fill="%s"/><text x="%.1f" y="21" font-size="11" fill="#334155">%s</text>`,
			lx, l.Color, lx+14, esc(l.Text))
	}
	if note != "" {
		fmt.Fprintf(&b, `<text x="12" y="%d" font-size="11" fill="#64748b">%s</text>`, plotTop+4, esc(note))
	}
	x0 := float64(labelW)
	span := float64(plotWidth - labelW - textW)
	y := plotTop + 18
	for _, r := range rows {
		rowH := len(r.Bars) * (barH + 2)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12" fill="#0f172a" text-anchor="end">%s</text>`, x0-8, y+rowH/2+4, esc(r.Label))
		for _, bar := range r.Bars {
			w := math.Max(0, math.Min(1, bar.Frac)) * span
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="2"/>`, x0, y, math.Max(w, 1), barH, bar.Color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" fill="#334155">%s</text>`, x0+math.Max(w, 1)+6, y+barH-2, esc(bar.Text))
			y += barH + 2
		}
		y += gap
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// throughputChart plots verdicts per second per oracle on a log scale: the
// in-process spec oracles are orders of magnitude faster than the tools.
func throughputChart(ts []Throughput) template.HTML {
	var top float64
	for _, t := range ts {
		top = math.Max(top, t.PerSecond)
	}
	var rows []hbarRow
	for _, t := range ts {
		frac := 0.0
		if top > 0 {
			frac = math.Log10(1+t.PerSecond) / math.Log10(1+top)
		}
		rows = append(rows, hbarRow{Label: t.Oracle, Bars: []hbar{{Frac: frac, Color: colorA,
			Text: fmt.Sprintf("%s/s (%d in %s)", fmtCount(t.PerSecond), t.Judged, fmtSeconds(t.Seconds))}}})
	}
	return hbarChart("plot-throughput", "Per-oracle throughput (verdicts per second)", "log scale; time is each oracle's time on its batches, summed over campaigns", rows, nil)
}

// coverageChart plots, per domain and rule set, the share of rules that
// decided at least one case.
func coverageChart(cov []tally.RuleCoverage) template.HTML {
	type tally struct{ fired, total int }
	by := map[string]map[string]*tally{}
	var domains []string
	for _, c := range cov {
		if by[c.Domain] == nil {
			by[c.Domain] = map[string]*tally{}
			domains = append(domains, c.Domain)
		}
		t := by[c.Domain][c.Set]
		if t == nil {
			t = &tally{}
			by[c.Domain][c.Set] = t
		}
		t.total++
		if c.Fired > 0 {
			t.fired++
		}
	}
	slices.Sort(domains)
	var rows []hbarRow
	for _, d := range domains {
		row := hbarRow{Label: d}
		for _, set := range []struct{ name, color string }{{"seed", colorA}, {"ptxisa", colorB}} {
			if t := by[d][set.name]; t != nil {
				row.Bars = append(row.Bars, hbar{Frac: float64(t.fired) / float64(t.total), Color: set.color,
					Text: fmt.Sprintf("%s %d/%d fired", set.name, t.fired, t.total)})
			}
		}
		rows = append(rows, row)
	}
	return hbarChart("plot-coverage", "Rule coverage (rules that decided a case)", "", rows,
		[]legendItem{{colorA, "seed"}, {colorB, "ptxisa"}})
}
