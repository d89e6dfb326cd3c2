package coordinator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Status is what /status serves (stable JSON).
type Status struct {
	Campaign    store.Campaign     `json:"campaign"`
	Outstanding int                `json:"outstanding"`
	QueueDepth  uint64             `json:"queue_depth"`
	TimeLeft    time.Duration      `json:"time_left"`
	Workers     []queue.Capability `json:"workers"`
	// Utilization is each oracle's busy time over the campaign's wall time
	// (see store.Campaign.Utilization).
	Utilization map[string]float64 `json:"utilization"`
}

// Status snapshots the campaign and the queue.
func (c *Coordinator) Status() Status {
	camp := c.Campaign()
	c.mu.Lock()
	workers := append([]queue.Capability(nil), c.workers...)
	c.mu.Unlock()
	depth, _ := queue.Pending(c.ctxOrBackground(), c.js)
	util := map[string]float64{}
	for name := range camp.Stats.Oracles {
		util[name] = camp.Utilization(name)
	}
	return Status{Campaign: camp, Outstanding: camp.Stats.Outstanding(), QueueDepth: depth,
		TimeLeft: max(camp.Config.Duration-camp.Elapsed, 0), Workers: workers, Utilization: util}
}

// Handler serves /status (JSON) and /metrics (Prometheus text format).
func (c *Coordinator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(c.Status())
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		writeMetrics(w, c.Status())
	})
	return mux
}

func writeMetrics(w http.ResponseWriter, s Status) {
	st := s.Campaign.Stats
	metric := func(name, help string, v any) {
		fmt.Fprintf(w, "# HELP legalfuzz_%s %s\n# TYPE legalfuzz_%s gauge\nlegalfuzz_%s %v\n", name, help, name, name, v)
	}
	metric("cases", "Unique cases stored.", st.Cases)
	metric("jobs_enqueued", "(case, oracle) jobs created.", st.Enqueued)
	metric("verdicts", "Verdicts stored.", st.Judged)
	metric("outstanding", "(case, oracle) jobs not yet judged.", s.Outstanding)
	metric("queue_depth", "Messages waiting in the jobs stream.", s.QueueDepth)
	metric("findings", "Disagreements recorded as findings.", st.Findings)
	metric("buckets_new", "Buckets first seen in this campaign.", st.NewBuckets)
	metric("dead_letters", "Messages that could not be processed.", st.DeadLetters)
	metric("time_left_seconds", "Generation time left.", s.TimeLeft.Seconds())
	metric("features", "Distinct features the judges showed.", st.Features)
	metric("corpus", "Cases in the campaign corpus (they brought a new feature or bucket).", st.Corpus)
	names := make([]string, 0, len(st.Oracles))
	for n := range st.Oracles {
		names = append(names, n)
	}
	slices.Sort(names)
	perOracle := func(name, help string, value func(n string) any) {
		fmt.Fprintf(w, "# HELP legalfuzz_%s %s\n# TYPE legalfuzz_%s gauge\n", name, help, name)
		for _, n := range names {
			fmt.Fprintf(w, "legalfuzz_%s{oracle=%q} %v\n", name, n, value(n))
		}
	}
	perOracle("oracle_verdicts", "Verdicts stored per oracle.", func(n string) any { return st.Oracles[n].Judged })
	perOracle("oracle_queued", "Cases enqueued for the oracle and not yet judged.",
		func(n string) any { return st.Oracles[n].Enqueued - st.Oracles[n].Judged })
	perOracle("oracle_utilization", "Busy time over wall time (1: one instance always busy).",
		func(n string) any { return s.Utilization[n] })
}
