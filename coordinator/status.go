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
}

// Status snapshots the campaign and the queue.
func (c *Coordinator) Status() Status {
	camp := c.Campaign()
	c.mu.Lock()
	workers := append([]queue.Capability(nil), c.workers...)
	c.mu.Unlock()
	depth, _ := queue.Pending(c.ctxOrBackground(), c.js)
	return Status{Campaign: camp, Outstanding: camp.Stats.Outstanding(), QueueDepth: depth,
		TimeLeft: max(camp.Config.Duration-camp.Elapsed, 0), Workers: workers}
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
	fmt.Fprintf(w, "# HELP legalfuzz_oracle_verdicts Verdicts stored per oracle.\n# TYPE legalfuzz_oracle_verdicts gauge\n")
	names := make([]string, 0, len(st.Oracles))
	for n := range st.Oracles {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "legalfuzz_oracle_verdicts{oracle=%q} %d\n", n, st.Oracles[n].Judged)
	}
}
