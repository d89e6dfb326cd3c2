package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

func TestLoad(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	if r.Campaign != f.newCamp {
		t.Fatalf("reported campaign %q, want the latest, %q", r.Campaign, f.newCamp)
	}
	// The minimized case adds one case and its two verdicts (spec/ptxisa, ptxas).
	want := Totals{Cases: f.cases + 1, Generated: f.cases, Minimized: 1, Verdicts: 3*f.cases + 2, Buckets: 3, New: 1, Known: 1, Suppressed: 1}
	if r.Totals != want {
		t.Fatalf("totals %+v, want %+v", r.Totals, want)
	}
	// "elapsed 1m2s" was all a 6.5-minute run said of its time.
	if c := r.Campaigns[0]; c.ID != f.newCamp || c.Elapsed != "1m2s" || c.Duration != "1m0s" || c.Draining != "1m30s" || c.Wall != "6m30s" {
		t.Fatalf("campaign %+v; want generation 1m2s of 1m0s, 1m30s judging after, 6m30s wall clock", c)
	}
	for _, b := range r.Buckets {
		if b.Filing != FileUpstream+": NVIDIA" {
			t.Errorf("bucket %s (a ptxas bug no replay found fixed): filing %q, want %q", b.Key, b.Filing, FileUpstream+": NVIDIA")
		}
	}
	status := map[string]string{}
	for _, b := range r.Buckets {
		status[b.Key] = b.Status
	}
	if status[f.fresh] != triage.StatusNew || status[f.known] != triage.StatusKnown || status[f.suppressed] != triage.StatusSuppressed {
		t.Fatalf("statuses %v; want %s new, %s known, %s suppressed", status, f.fresh, f.known, f.suppressed)
	}
	if r.Buckets[0].Key != f.fresh {
		t.Fatalf("first bucket %s, want the new one first", r.Buckets[0].Key)
	}
	rep := r.Buckets[0].Reproducer
	var value map[string]any
	if err := json.Unmarshal(rep.Value, &value); err != nil || value["op"] == nil {
		t.Fatalf("reproducer value %s: %v; want the ldsm case's JSON form", rep.Value, err)
	}
	if !slices.Equal(rep.Disagreeing, []string{"spec/ptxisa", "ptxas"}) || len(rep.Verdicts) != 3 ||
		rep.Verdicts[0].Oracle != "spec/ptxisa" || rep.Verdicts[1].Oracle != "ptxas" || rep.Verdicts[1].Diagnostic != evilDiag {
		t.Fatalf("reproducer %+v; want spec/ptxisa then ptxas (the pair) first", rep)
	}
	if suppressed := r.Buckets[2]; suppressed.Key != f.suppressed || suppressed.SuppressionReason != "known ptxas quirk" {
		t.Fatalf("last bucket %+v, want the one suppressed in the db, with its reason", suppressed)
	}
	known := r.Buckets[1].Reproducer
	if !known.Minimized || known.Case == known.Example || known.ReChecks != 2 || known.Reliable != 2 || len(known.Verdicts) != 2 ||
		!strings.HasPrefix(known.Source, "minimized:") {
		t.Fatalf("known bucket's reproducer %+v; want the minimized case, reliable 2 of 2, with the pair's verdicts", known)
	}
	if n := len(r.Claims); n != seedRows() {
		t.Fatalf("%d claims, want %d (seed rules and accept paths)", n, seedRows())
	}
	if len(r.Timeline.Cases) == 0 || r.Timeline.Cases[len(r.Timeline.Cases)-1].Count != f.cases || len(r.Timeline.Buckets) != 3 {
		t.Fatalf("timeline %+v; want %d cases (the minimized one left out) and 3 buckets", r.Timeline, f.cases)
	}
	features, corpus := f.signal(t, r.Campaign)
	if n := len(r.Timeline.Features); features == 0 || n == 0 || r.Timeline.Features[n-1].Count != features {
		t.Fatalf("features timeline %+v; want it to end at the campaign's %d features", r.Timeline.Features, features)
	}
	if n := len(r.Timeline.Corpus); corpus == 0 || n == 0 || r.Timeline.Corpus[n-1].Count != corpus {
		t.Fatalf("corpus timeline %+v; want it to end at the campaign's %d corpus entries", r.Timeline.Corpus, corpus)
	}
	var ptxas Throughput
	for _, tp := range r.Throughput {
		if tp.Oracle == "ptxas" {
			ptxas = tp
		}
	}
	if ptxas.Judged != f.cases || ptxas.Seconds != 4 || ptxas.PerSecond != float64(f.cases)/4 {
		t.Fatalf("ptxas throughput %+v; want %d verdicts in 4s", ptxas, f.cases)
	}
	if len(r.Matrix.Rows) == 0 || !slices.Contains(r.Matrix.Oracles, "ptxas") {
		t.Fatalf("agreement matrix %+v lacks rows or the ptxas column", r.Matrix)
	}
	if len(r.Coverage) != len(rules.Rules()) {
		t.Fatalf("coverage has %d rules, want every spec rule (%d)", len(r.Coverage), len(rules.Rules()))
	}
}

// TestSuppressionsOption: suppressions given to Load (a file's) apply on top
// of the store's, by predicate as well as by key.
func TestSuppressionsOption(t *testing.T) {
	f := newFixture(t)
	s, err := store.OpenStoreReadOnly(f.path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := Load(s, Options{Suppressions: []store.Suppression{{Domain: "ldsm", Oracle: "ptxas", Reason: "ptxas is under review"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Suppressed != 3 || r.Totals.New != 0 {
		t.Fatalf("totals %+v, want all 3 buckets suppressed", r.Totals)
	}
}

func seedRows() int {
	n := len(rules.Domains(rules.Seed))
	for _, r := range rules.Rules() {
		if r.Set == rules.Seed {
			n++
		}
	}
	return n
}

// TestJSONFields pins the JSON report's documented field names.
func TestJSONFields(t *testing.T) {
	r := newFixture(t).load(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(top))
	want := []string{"agreement_matrix", "buckets", "campaign", "campaigns", "claim_counts", "claims", "dead_letters",
		"generated", "lattice_sweeps", "render_coverage", "rule_coverage", "schema", "store", "throughput", "timeline", "tonight", "totals"}
	if !slices.Equal(keys, want) {
		t.Fatalf("top-level fields %v, want %v", keys, want)
	}
	var schema string
	if err := json.Unmarshal(top["schema"], &schema); err != nil || schema != Schema {
		t.Fatalf("schema %s, want %q", top["schema"], Schema)
	}
	var claims []map[string]any
	if err := json.Unmarshal(top["claims"], &claims); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rule", "domain", "accept_path", "message", "source", "verdict", "decided", "judged",
		"confirming", "contradicting", "tools", "ptxisa_agree", "ptxisa_differ"} {
		if _, ok := claims[0][k]; !ok {
			t.Errorf("claim lacks field %q: %v", k, claims[0])
		}
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Totals != r.Totals || len(back.Claims) != len(r.Claims) {
		t.Fatalf("JSON does not read back: %v", err)
	}
}

func TestJUnit(t *testing.T) {
	f := newFixture(t)
	var b bytes.Buffer
	if err := WriteJUnit(&b, f.load(t)); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, b.String())
	}
	if doc.Tests != 3 || doc.Fails != 1 || doc.Skipped != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 3 {
		t.Fatalf("JUnit: %d tests, %d failures, %d skipped; want 3, 1 (new), 1 (suppressed)", doc.Tests, doc.Fails, doc.Skipped)
	}
	for _, c := range doc.Suites[0].Cases {
		key, _, _ := strings.Cut(c.Name, " ")
		switch key {
		case f.fresh:
			if c.Failure == nil || !strings.Contains(c.Failure.Text, `"op":`) || !strings.Contains(c.Failure.Text, evilDiag) ||
				!strings.Contains(c.Failure.Text, "legalfuzz check --domain ldsm") {
				t.Errorf("new bucket's failure %+v lacks the reproducer", c.Failure)
			}
		case f.suppressed:
			if c.Skipped == nil || !strings.Contains(c.Skipped.Message, "known ptxas quirk") {
				t.Errorf("suppressed bucket %+v, want skipped with the reason", c)
			}
		case f.known:
			if c.Failure != nil || c.Skipped != nil {
				t.Errorf("known bucket %+v, want a pass", c)
			}
		default:
			t.Errorf("test case %q names no bucket", c.Name)
		}
	}
}

func TestMarkdown(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"campaign `c-new`", "(**1 new**, 1 known, 1 suppressed)", f.fresh, "### Seed claims",
		"&lt;script>"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, notWant := range []string{f.known, f.suppressed, "<script>"} {
		if strings.Contains(md, notWant) {
			t.Errorf("markdown holds %q:\n%s", notWant, md)
		}
	}
	if lines := strings.Count(md, "\n"); lines > 60 {
		t.Errorf("markdown has %d lines; a CI comment should stay short", lines)
	}
}

// TestHTMLSelfContained: the page loads nothing and escapes tool output.
func TestHTMLSelfContained(t *testing.T) {
	r := newFixture(t).load(t)
	r.Throughput = append(r.Throughput, Throughput{Oracle: `exec:<b>x</b>`, Judged: 1, Seconds: 1, PerSecond: 1})
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<link", " src=", "url(", "@import", "<b>x</b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	withoutNS := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	if strings.Contains(withoutNS, "http://") || strings.Contains(withoutNS, "https://") {
		t.Error("page names a network address")
	}
	for _, want := range []string{`id="buckets-table"`, `id="claims-matrix"`, `id="agreement-matrix"`, `id="plot-cases"`,
		`id="plot-buckets"`, `id="plot-features"`, `id="plot-throughput"`, `id="plot-coverage"`, "&lt;script&gt;alert", "exec:&lt;b&gt;x&lt;/b&gt;",
		`id="claims-definition"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	r := newFixture(t).load(t)
	if _, err := ParseFormats([]string{"html", "pdf"}); err == nil {
		t.Fatal("format pdf accepted")
	}
	formats, err := ParseFormats([]string{"JSON", "junit", "json"})
	if err != nil || !slices.Equal(formats, []string{"json", "junit"}) {
		t.Fatalf("ParseFormats = %v, %v", formats, err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	paths, err := WriteFiles(dir, r, formats)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(paths) != 2 || !slices.Equal(names, []string{"report.json", "report.junit.xml"}) {
		t.Fatalf("wrote %v (folder holds %v); want report.json and report.junit.xml only", paths, names)
	}
}

// TestSweepsReported: each domain's lattice sweep is in the report, in
// JSON and Markdown, with the pairs covered of its total and the night that
// completed it; 100% only when done.
func TestSweepsReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	for _, w := range []store.Sweep{
		{Domain: "mma", Fingerprint: "f1", Next: 590, Rows: 590, Pairs: 6019, Covered: 6019, Started: "c1", CompletedIn: "c2"},
		{Domain: "ldsm", Fingerprint: "f2", Next: 10, Rows: 572, Pairs: 8022, Covered: 7999, Unrealizable: 35, Started: "c2"},
	} {
		if err := s.PutSweep(w); err != nil {
			t.Fatal(err)
		}
	}
	storetest.Close(t, s)
	ro, err := store.OpenStoreReadOnly(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r, err := Load(ro, Options{StorePath: path})
	if err != nil {
		t.Fatal(err)
	}
	want := []Sweep{
		{Domain: "ldsm", Covered: 7999, Pairs: 8022, Percent: 99, Rows: 572, Unrealizable: 35},
		{Domain: "mma", Covered: 6019, Pairs: 6019, Percent: 100, Rows: 590, CompletedIn: "c2"},
	}
	if !slices.Equal(r.Sweeps, want) {
		t.Fatalf("sweeps %+v, want %+v", r.Sweeps, want)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"| ldsm | 7999 of 8022 (99%) | 572 | 35 | - |", "| mma | 6019 of 6019 (100%) | 590 | 0 | c2 |"} {
		if !strings.Contains(md.String(), line) {
			t.Errorf("the Markdown report lacks %q:\n%s", line, md.String())
		}
	}
}
