package reports

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromiumFlags run Chromium headless on a machine with no network, no
// display and no sandbox support (containers, CI runners as root).
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync"}

// findChromium returns the browser binary: $LEGALFUZZ_CHROMIUM, else the
// first of Debian's and other distributions' names on PATH; it skips the
// test when there is none.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LEGALFUZZ_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed: run scripts/install-chromium.sh (as root) or set LEGALFUZZ_CHROMIUM to a Chromium binary")
	return ""
}

// between returns the part of s from the first start to the next end.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("DOM lacks %q", start)
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		t.Fatalf("DOM: %q is never closed by %q", start, end)
	}
	return s[i : i+j]
}

// TestHTMLInChromium renders the page in a real headless Chromium and checks
// the DOM the browser built: the buckets table with its reproducers, both
// matrices and the four plots.
func TestHTMLInChromium(t *testing.T) {
	bin := findChromium(t)
	r := newFixture(t).load(t)
	dir := t.TempDir()
	paths, err := WriteFiles(dir, r, []string{"html"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+paths[0])
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	dom := stdout.String()
	if !strings.Contains(dom, "<title>legalfuzz report: c-new</title>") {
		t.Fatalf("the browser's DOM is not the report:\n%.2000s", dom)
	}

	buckets := between(t, dom, `<table id="buckets-table"`, "</table>\n</section>")
	if n := strings.Count(buckets, `<tr class="bucket `); n != 3 {
		t.Errorf("buckets table has %d bucket rows, want 3", n)
	}
	if n := strings.Count(buckets, `<details class="reproducer"`); n != 3 {
		t.Errorf("buckets table has %d reproducers, want 3", n)
	}
	if !strings.Contains(buckets, `class="case-json"`) || !strings.Contains(buckets, "&lt;script&gt;alert") {
		t.Error("reproducers lack the case JSON or the escaped tool diagnostic")
	}

	claims := between(t, dom, `<table id="claims-matrix"`, "</table>\n</section>")
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

	agreement := between(t, dom, `<table id="agreement-matrix"`, "</table>\n</div>\n</section>")
	if n := strings.Count(agreement, `<tr class="matrix-row"`); n != len(r.Matrix.Rows) {
		t.Errorf("agreement matrix has %d rows, want %d", n, len(r.Matrix.Rows))
	}

	for _, plot := range []struct{ id, mark string }{
		{"plot-cases", `<path class="series"`}, {"plot-buckets", `<path class="series"`},
		{"plot-throughput", `<rect class="bar"`}, {"plot-coverage", `<rect class="bar"`},
	} {
		svg := between(t, dom, `<svg id="`+plot.id+`"`, "</svg>")
		if !strings.Contains(svg, plot.mark) {
			t.Errorf("plot %s has no %s: %.400s", plot.id, plot.mark, svg)
		}
	}
}
