package reports

import (
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/reports/reportstest"
)

// TestHTMLInChromium renders the page in a real headless Chromium and checks
// the DOM the browser built: the buckets table with its reproducers, both
// matrices and the four plots.
func TestHTMLInChromium(t *testing.T) {
	r := newFixture(t).load(t)
	paths, err := WriteFiles(t.TempDir(), r, []string{"html"})
	if err != nil {
		t.Fatal(err)
	}
	dom := reportstest.DumpDOM(t, paths[0])
	if !strings.Contains(dom, "<title>legalfuzz report: c-new</title>") {
		t.Fatalf("the browser's DOM is not the report:\n%.2000s", dom)
	}

	buckets := reportstest.Between(t, dom, `<table id="buckets-table"`, "</table>\n</section>")
	if n := strings.Count(buckets, `<tr class="bucket `); n != 3 {
		t.Errorf("buckets table has %d bucket rows, want 3", n)
	}
	if n := strings.Count(buckets, `<details class="reproducer"`); n != 3 {
		t.Errorf("buckets table has %d reproducers, want 3", n)
	}
	if !strings.Contains(buckets, `class="case-json"`) || !strings.Contains(buckets, "&lt;script&gt;alert") {
		t.Error("reproducers lack the case JSON or the escaped tool diagnostic")
	}

	// The buckets come first, one badge for a bucket new tonight (it had
	// two alike), with what to do about each.
	if strings.Index(dom, `<section id="buckets"`) > strings.Index(dom, `<section id="tonight"`) ||
		strings.Index(dom, `<section id="buckets"`) > strings.Index(dom, `<section id="plots"`) {
		t.Error("the buckets table is not the first section after the summary")
	}
	fresh := reportstest.Between(t, buckets, `data-status="new"`, "</tr>")
	if n := strings.Count(fresh, `class="badge b-new"`); n != 1 {
		t.Errorf("the new bucket's row has %d \"new\" badges, want 1:\n%s", n, fresh)
	}
	if !strings.Contains(fresh, `<td class="filing f-file">file upstream: NVIDIA</td>`) {
		t.Errorf("the new ptxas bucket's row does not say to file it with NVIDIA:\n%s", fresh)
	}
	campaign := reportstest.Between(t, dom, `<tr class="campaign pair">`, "</tr>")
	for _, cell := range []string{`<td class="generation">1m2s of 1m0s</td>`, `<td class="draining">1m30s</td>`, `<td class="wall">6m30s</td>`} {
		if !strings.Contains(campaign, cell) {
			t.Errorf("the campaign's row lacks %s:\n%s", cell, campaign)
		}
	}
	if !strings.Contains(dom, `<details id="claims-fold"><summary>`) ||
		strings.Index(dom, `<details id="claims-fold">`) > strings.Index(dom, `<table id="claims-matrix"`) {
		t.Error("the claims matrix is not folded")
	}

	tonight := reportstest.Between(t, dom, `<section id="tonight"`, "</section>")
	if r.Tonight.New != 2 || !strings.Contains(tonight, `id="tonight-new">2<`) || strings.Count(tonight, `data-tonight="new"`) != 2 {
		t.Errorf("tonight section: want the 2 buckets of c-new new (JSON says %+v)", r.Tonight)
	}

	claims := reportstest.Between(t, dom, `<table id="claims-matrix"`, "</table>\n</details>\n</section>")
	if n := strings.Count(claims, `<tr id="claim-`); n != seedRows() {
		t.Errorf("claims matrix has %d rows, want %d", n, seedRows())
	}
	for _, v := range []tally.ClaimVerdict{tally.Confirmed, tally.Unverified} {
		if !strings.Contains(claims, `data-verdict="`+string(v)+`"`) {
			t.Errorf("claims matrix has no %s row", v)
		}
	}
	if !strings.Contains(claims, `class="doubt"`) {
		t.Error("claims matrix shows no recorded doubt")
	}

	agreement := reportstest.Between(t, dom, `<table id="agreement-matrix"`, "</table>\n</div>\n</section>")
	if n := strings.Count(agreement, `<tr class="matrix-row"`); n != len(r.Matrix.Rows) {
		t.Errorf("agreement matrix has %d rows, want %d", n, len(r.Matrix.Rows))
	}

	for _, plot := range []struct{ id, mark string }{
		{"plot-cases", `<path class="series"`}, {"plot-buckets", `<path class="series"`}, {"plot-features", `<path class="series"`},
		{"plot-throughput", `<rect class="bar"`}, {"plot-coverage", `<rect class="bar"`},
	} {
		svg := reportstest.Between(t, dom, `<svg id="`+plot.id+`"`, "</svg>")
		if !strings.Contains(svg, plot.mark) {
			t.Errorf("plot %s has no %s: %.400s", plot.id, plot.mark, svg)
		}
	}
}
