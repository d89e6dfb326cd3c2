package reports

import (
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

	tonight := reportstest.Between(t, dom, `<section id="tonight"`, "</section>")
	if r.Tonight.New != 2 || !strings.Contains(tonight, `id="tonight-new">2<`) || strings.Count(tonight, `data-tonight="new"`) != 2 {
		t.Errorf("tonight section: want the 2 buckets of c-new new (JSON says %+v)", r.Tonight)
	}

	claims := reportstest.Between(t, dom, `<table id="claims-matrix"`, "</table>\n</section>")
	if n := strings.Count(claims, `<tr id="claim-`); n != seedRows() {
		t.Errorf("claims matrix has %d rows, want %d", n, seedRows())
	}
	for _, v := range []ClaimVerdict{Confirmed, Unverified} {
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
