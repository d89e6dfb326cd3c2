// Command distbench measures the distribution layer and writes one JSON file:
// (a) the orchestration overhead of a campaign (embedded NATS, coordinator,
// one in-process worker, bbolt) over judging the same pre-generated cases
// with the same spec oracles directly in process; (b) how judged cases/s
// scale with 1, 2, 4, 8 workers when the oracle is the fixed-latency test
// oracle; (c) NATS messages per judged case. Timings are measurements for
// people to read, never assertions.
//
//	go run ./cmd/distbench -out bench.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/worker"
)

// Report is the JSON written.
type Report struct {
	Command  string    `json:"command"`
	Time     time.Time `json:"time"`
	Machine  Machine   `json:"machine"`
	Overhead Overhead  `json:"overhead"`
	// OverheadTool is the same measurement with ptxas 12.4, a real tool.
	OverheadTool *Overhead `json:"overhead_tool,omitempty"`
	Scaling      Scaling   `json:"scaling"`
}

// Machine says where the numbers come from.
type Machine struct {
	CPUs      int    `json:"cpus"`
	GOMAXPROC int    `json:"gomaxprocs"`
	Go        string `json:"go"`
	OS        string `json:"os"`
}

// Overhead compares a campaign with direct in-process judging.
type Overhead struct {
	Domain    string   `json:"domain"`
	Oracles   []string `json:"oracles"`
	Cases     int      `json:"cases"`
	BatchSize int      `json:"batch_size"`
	Repeats   int      `json:"repeats"`
	// Direct and Campaign are the best of the repeats.
	DirectSeconds       float64   `json:"direct_s"`
	DirectCasesPerSec   float64   `json:"direct_cases_per_s"`
	CampaignSeconds     float64   `json:"campaign_s"`
	CampaignCasesPerSec float64   `json:"campaign_cases_per_s"`
	OverheadPct         float64   `json:"overhead_pct"`
	TargetPct           float64   `json:"target_overhead_pct"`
	AllDirectSeconds    []float64 `json:"all_direct_s"`
	AllCampaignSeconds  []float64 `json:"all_campaign_s"`
	Messages            Messages  `json:"messages"`
}

// Scaling is judged cases/s against the number of workers.
type Scaling struct {
	Oracle      string  `json:"oracle"`
	LatencyMS   float64 `json:"latency_ms_per_batch"`
	BatchSize   int     `json:"batch_size"`
	Runs        []Run   `json:"runs"`
	Ratio8vs1   float64 `json:"ratio_8_vs_1"`
	TargetRatio float64 `json:"target_ratio"`
}

// Run is one campaign of the scaling series.
type Run struct {
	Workers       int      `json:"workers"`
	Cases         int      `json:"cases"`
	Seconds       float64  `json:"seconds"`
	CasesPerSec   float64  `json:"cases_per_s"`
	IdealPerSec   float64  `json:"ideal_cases_per_s"`
	EfficiencyPct float64  `json:"efficiency_pct"`
	Messages      Messages `json:"messages"`
}

// Messages counts what a campaign put on NATS.
type Messages struct {
	Jobs     uint64 `json:"jobs"`
	Results  uint64 `json:"results"` // results and dead letters
	Inputs   uint64 `json:"inputs"`
	Verdicts int    `json:"verdicts"`
	// PerVerdict is (jobs + results + inputs) / verdicts.
	PerVerdict float64 `json:"stream_msgs_per_verdict"`
	// ServerInPerVerdict counts every message clients sent to the server
	// (publishes, acks, pull requests, JetStream API calls, heartbeats).
	ServerInPerVerdict float64 `json:"server_in_msgs_per_verdict"`
}

func main() {
	out := flag.String("out", "bench.json", "JSON file to write")
	n := flag.Int("n", 20000, "cases for the overhead measurement")
	repeats := flag.Int("repeats", 3, "repeats of the overhead measurement (best is reported)")
	perWorker := flag.Int("scale-cases", 2000, "cases per worker in the scaling series")
	latency := flag.Duration("latency", 20*time.Millisecond, "fixed oracle latency per batch")
	batch := flag.Int("batch", 16, "batch size of the scaling series")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run here")
	toolCases := flag.Int("tool-cases", 2000, "cases for the overhead measurement with ptxas (0: skip)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	rep := Report{Command: "go run ./cmd/distbench " + strings.Join(os.Args[1:], " "), Time: time.Now().UTC(),
		Machine: Machine{CPUs: runtime.NumCPU(), GOMAXPROC: runtime.GOMAXPROCS(0), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}}
	var err error
	orcs, sts := spec.All()
	if rep.Overhead, err = overhead("kindword", *n, *repeats, orcs, sts); err != nil {
		fail(err)
	}
	if *toolCases > 0 {
		if rep.OverheadTool, err = toolOverhead(*toolCases, *repeats); err != nil {
			fail(err)
		}
	}
	if rep.Scaling, err = scaling(*perWorker, *latency, *batch); err != nil {
		fail(err)
	}
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%s\n", data)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "distbench:", err)
	os.Exit(2)
}

// toolOverhead is overhead with a real tool: ptxas 12.4 on cpasync cases it
// can judge (not unsupported), so every verdict costs a tool run's share.
func toolOverhead(n, repeats int) (*Overhead, error) {
	o, st := ptxas.Discover(context.Background())
	if o == nil {
		fmt.Fprintln(os.Stderr, "distbench: no ptxas, skipping the tool overhead:", st.Reason)
		return nil, nil
	}
	cases, err := judgedCases(o, "cpasync", n)
	if err != nil {
		return nil, err
	}
	res, err := overheadOn("cpasync", cases, repeats, []oracles.Oracle{o}, []oracles.Status{st})
	return &res, err
}

// judgedCases draws cases until n of them are ones the oracle really judges.
func judgedCases(o oracles.Oracle, dom string, n int) ([]domain.Case, error) {
	var out []domain.Case
	for seed := uint64(1); len(out) < n && seed < 100; seed++ {
		cases, err := reliability.Cases(dom, 4*n, seed)
		if err != nil {
			return nil, err
		}
		vs, err := o.Judge(context.Background(), cases)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			if v.Kind != oracles.Unsupported && len(out) < n {
				out = append(out, cases[i])
			}
		}
	}
	return out, nil
}

// overhead times the oracles on n cases directly and through a campaign.
func overhead(dom string, n, repeats int, orcs []oracles.Oracle, sts []oracles.Status) (Overhead, error) {
	cases, err := reliability.Cases(dom, n, 1)
	if err != nil {
		return Overhead{}, err
	}
	return overheadOn(dom, cases, repeats, orcs, sts)
}

func overheadOn(dom string, cases []domain.Case, repeats int, orcs []oracles.Oracle, sts []oracles.Status) (Overhead, error) {
	const batch = 256
	n := len(cases)
	o := Overhead{Domain: dom, Cases: n, BatchSize: batch, Repeats: repeats, TargetPct: 15}
	for _, or := range orcs {
		o.Oracles = append(o.Oracles, or.Name())
	}
	for range repeats {
		start := time.Now()
		if _, err := (oracles.Local{Oracles: orcs, BatchSize: batch}).Judge(context.Background(), cases, nil); err != nil {
			return o, err
		}
		o.AllDirectSeconds = append(o.AllDirectSeconds, time.Since(start).Seconds())
		res, err := campaign(dom, cases, batch, 1, func(int) ([]oracles.Oracle, []oracles.Status) { return orcs, sts })
		if err != nil {
			return o, err
		}
		o.AllCampaignSeconds = append(o.AllCampaignSeconds, res.seconds)
		if o.Messages.Verdicts == 0 || res.seconds <= o.CampaignSeconds {
			o.Messages = res.messages
		}
		o.CampaignSeconds = best(o.AllCampaignSeconds)
	}
	o.DirectSeconds = best(o.AllDirectSeconds)
	o.DirectCasesPerSec = float64(n) / o.DirectSeconds
	o.CampaignCasesPerSec = float64(n) / o.CampaignSeconds
	o.OverheadPct = 100 * (o.CampaignSeconds/o.DirectSeconds - 1)
	return o, nil
}

func best(xs []float64) float64 {
	b := xs[0]
	for _, x := range xs {
		b = min(b, x)
	}
	return b
}

// scaling runs the fixed-latency oracle with 1, 2, 4, 8 workers.
func scaling(perWorker int, latency time.Duration, batch int) (Scaling, error) {
	s := Scaling{Oracle: "testoracle fixed latency per batch", LatencyMS: latency.Seconds() * 1000, BatchSize: batch, TargetRatio: 7}
	for _, w := range []int{1, 2, 4, 8} {
		cases, err := reliability.Cases("kindword", perWorker*w, uint64(w))
		if err != nil {
			return s, err
		}
		res, err := campaign("kindword", cases, batch, w, func(int) ([]oracles.Oracle, []oracles.Status) {
			o := testoracle.New(testoracle.Config{Name: "fixed", Latency: latency, Domains: []string{"kindword"}})
			return []oracles.Oracle{o}, []oracles.Status{o.Status()}
		})
		if err != nil {
			return s, err
		}
		r := Run{Workers: w, Cases: len(cases), Seconds: res.seconds, CasesPerSec: float64(len(cases)) / res.seconds,
			IdealPerSec: float64(w*batch) / latency.Seconds(), Messages: res.messages}
		r.EfficiencyPct = 100 * r.CasesPerSec / r.IdealPerSec
		s.Runs = append(s.Runs, r)
		fmt.Fprintf(os.Stderr, "scaling: %d workers: %.0f cases/s (ideal %.0f)\n", w, r.CasesPerSec, r.IdealPerSec)
	}
	s.Ratio8vs1 = s.Runs[3].CasesPerSec / s.Runs[0].CasesPerSec
	return s, nil
}

type result struct {
	seconds  float64
	messages Messages
}

// campaign runs one campaign on a fresh embedded server and store: workers
// in process, the cases published as inputs once the coordinator listens;
// the clock runs from that publish to the last verdict committed.
func campaign(dom string, cases []domain.Case, batch, workers int, oraclesFor func(i int) ([]oracles.Oracle, []oracles.Status)) (result, error) {
	dir, err := os.MkdirTemp("", "lf-bench-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	ns, err := queue.Embedded(filepath.Join(dir, "nats"))
	if err != nil {
		return result{}, err
	}
	defer ns.Shutdown()
	nc, err := queue.ConnectInProcess(ns, "bench")
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	db, err := store.OpenStore(filepath.Join(dir, "lf.db"), time.Second)
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wdone := make(chan error, workers)
	var nOracles int
	for i := range workers {
		wc, err := queue.ConnectInProcess(ns, fmt.Sprintf("w%d", i))
		if err != nil {
			return result{}, err
		}
		defer wc.Close()
		orcs, sts := oraclesFor(i)
		nOracles = len(orcs)
		w, err := worker.New(wc, worker.Config{Name: fmt.Sprintf("w%d", i), Oracles: orcs, Statuses: sts})
		if err != nil {
			return result{}, err
		}
		go func() { wdone <- w.Run(ctx) }()
	}
	const id = "bench"
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, CampaignID: id, WaitWorkers: 30 * time.Second,
		Config: store.CampaignConfig{Domains: []string{dom}, Duration: time.Hour, BatchSize: batch}})
	if err != nil {
		return result{}, err
	}
	cdone := make(chan error, 1)
	go func() { _, err := coord.Run(ctx); cdone <- err }()
	js, err := jetstream.New(nc)
	if err != nil {
		return result{}, err
	}
	if err := waitFor(time.Minute, func() bool { _, err := js.Consumer(ctx, "LF_INPUTS", "inputs-"+id); return err == nil }); err != nil {
		return result{}, fmt.Errorf("coordinator not listening: %w", err)
	}
	want := len(cases) * nOracles
	start := time.Now()
	for _, in := range reliability.Inputs(id, dom, cases, 1000) {
		if _, err := js.Publish(ctx, queue.InputsSubject(id), queue.Encode(in)); err != nil {
			return result{}, err
		}
	}
	if err := waitFor(10*time.Minute, func() bool { return coord.Campaign().Stats.Judged >= want }); err != nil {
		return result{}, fmt.Errorf("campaign: %w (%+v)", err, coord.Campaign().Stats)
	}
	elapsed := time.Since(start).Seconds()
	msgs, err := count(ctx, js, ns, want)
	if err != nil {
		return result{}, err
	}
	cancel()
	if err := <-cdone; err != nil {
		return result{}, err
	}
	for range workers {
		if err := <-wdone; err != nil {
			return result{}, err
		}
	}
	if st := coord.Campaign().Stats; st.Cases != len(cases) || st.Judged != want || st.Outstanding() != 0 {
		return result{}, fmt.Errorf("campaign bookkeeping off: %+v", st)
	}
	return result{seconds: elapsed, messages: msgs}, nil
}

// count reads how many messages each stream ever stored, and how many
// messages clients sent the server.
func count(ctx context.Context, js jetstream.JetStream, ns *server.Server, verdicts int) (Messages, error) {
	m := Messages{Verdicts: verdicts}
	for name, dst := range map[string]*uint64{"LF_JOBS": &m.Jobs, "LF_RESULTS": &m.Results, "LF_INPUTS": &m.Inputs} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return m, err
		}
		*dst = s.CachedInfo().State.LastSeq
	}
	m.PerVerdict = float64(m.Jobs+m.Results+m.Inputs) / float64(verdicts)
	vz, err := ns.Varz(nil)
	if err != nil {
		return m, err
	}
	m.ServerInPerVerdict = float64(vz.InMsgs) / float64(verdicts)
	return m, nil
}

func waitFor(limit time.Duration, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}
