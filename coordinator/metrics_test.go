package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// servedCampaign runs a short embedded campaign (kindword, one spec
// worker) and serves its coordinator's Handler, after the run.
func servedCampaign(t *testing.T) *httptest.Server {
	t.Helper()
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := specWorker(t, nc, "w1", nil)
	wctx, stopWorker := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, Seeds: true, WaitWorkers: 10 * time.Second,
		Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: time.Second, Generator: coordinator.GenStructured}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(coord.Handler())
	t.Cleanup(srv.Close)
	if _, err := coord.Run(ctx); err != nil {
		t.Fatal(err)
	}
	stopWorker()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestStatusJSON: /status says durations in seconds and times in RFC
// 3339, never nanoseconds.
func TestStatusJSON(t *testing.T) {
	srv := servedCampaign(t)
	var st map[string]any
	if err := json.Unmarshal([]byte(scrape(t, srv.URL+"/status")), &st); err != nil {
		t.Fatal(err)
	}
	camp, _ := st["campaign"].(map[string]any)
	cfg, _ := camp["config"].(map[string]any)
	if cfg["duration_seconds"] != 1.0 || cfg["fuzz_slice_seconds"] != 15.0 {
		t.Errorf("config %v: want duration_seconds 1 and fuzz_slice_seconds 15", cfg)
	}
	if el, ok := camp["elapsed_seconds"].(float64); !ok || el < 1 || el > 60 {
		t.Errorf("elapsed_seconds %v, want about a second", camp["elapsed_seconds"])
	}
	for _, key := range []string{"created"} {
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(camp[key])); err != nil {
			t.Errorf("campaign %s: %v", key, err)
		}
	}
	if _, ok := st["time_left_seconds"].(float64); !ok {
		t.Errorf("time_left_seconds is %v", st["time_left_seconds"])
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		case float64:
			if v >= 1e9 && !strings.HasSuffix(path, "seed") {
				t.Errorf("%s = %v: a duration in nanoseconds?", path, v)
			}
		}
	}
	walk("", st)
}

// TestMetricsDashboard runs a short embedded campaign, scrapes its
// /metrics, lints the exposition as promtool check metrics would, and
// checks that every series deploy/grafana-dashboard.json queries is
// exported with at least one sample.
func TestMetricsDashboard(t *testing.T) {
	srv := servedCampaign(t)
	body := scrape(t, srv.URL+"/metrics")
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range dashboardSeries(t, "../deploy/grafana-dashboard.json") {
		if !exported(families, name) {
			t.Errorf("the dashboard queries %s; /metrics has no sample of it", name)
		}
	}
	if f := families["legalfuzz_oracle_verdicts_total"]; f == nil || f.GetType() != dto.MetricType_COUNTER {
		t.Errorf("legalfuzz_oracle_verdicts_total is %v, want a counter", f.GetType())
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	return string(body)
}

// seriesName finds the metric names in a PromQL expression: ours, the Go
// runtime's and the process's.
var seriesName = regexp.MustCompile(`\b(?:legalfuzz|go|process)_[a-z0-9_]+\b`)

// dashboardSeries lists the series the dashboard's panels query.
func dashboardSeries(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			names = append(names, seriesName.FindAllString(tg.Expr, -1)...)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) < 10 {
		t.Fatalf("the dashboard names %d series: %v", len(names), names)
	}
	return names
}

// exported reports whether a series name has a sample: a family's name,
// or a histogram's _bucket, _sum or _count.
func exported(families map[string]*dto.MetricFamily, name string) bool {
	if f := families[name]; f != nil {
		return len(f.GetMetric()) > 0
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f := families[base]; f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
				return len(f.GetMetric()) > 0
			}
		}
	}
	return false
}
