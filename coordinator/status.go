package coordinator

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Status is a snapshot of the campaign and the queue: the progress line
// and /metrics read it; /status serves its JSON form, StatusJSON.
type Status struct {
	Campaign    store.Campaign
	Outstanding int
	QueueDepth  uint64
	TimeLeft    time.Duration
	Workers     []queue.Capability
	// Utilization is each oracle's busy time over wall time (see
	// store.Campaign.Utilization), both since Run began: the seeds are
	// judged while the coordinator starts, before generation time runs.
	Utilization map[string]float64
	// Fuzzing is the domain of the latest fuzz job; empty before one.
	Fuzzing string
	// Starting is true until generation begins: the coordinator waits for
	// workers and stores the seeds, and TimeLeft does not run yet.
	Starting bool
	// Triage is where the triage stands; nil without it.
	Triage *TriageStatus
}

// Status snapshots the campaign and the queue.
func (c *Coordinator) Status() Status {
	camp := c.Campaign()
	c.mu.Lock()
	workers := append([]queue.Capability(nil), c.workers...)
	fuzzing, starting := c.fuzzing, !c.generating && camp.State == store.StateRunning
	util := map[string]float64{}
	wall := time.Since(c.started)
	for name, o := range camp.Stats.Oracles {
		switch {
		case c.started.IsZero():
			util[name] = camp.Utilization(name)
		case wall > 0:
			util[name] = (o.Elapsed - c.busy0[name]).Seconds() / wall.Seconds()
		}
	}
	c.mu.Unlock()
	depth, _ := queue.Pending(c.ctxOrBackground(), c.js)
	return Status{Campaign: camp, Outstanding: camp.Stats.Outstanding(), QueueDepth: depth,
		TimeLeft: max(camp.Config.Duration-camp.Elapsed, 0), Workers: workers, Utilization: util, Fuzzing: fuzzing, Starting: starting,
		Triage: c.triage.status()}
}

// Handler serves /status (JSON) and /metrics (Prometheus exposition, see
// metrics.go).
func (c *Coordinator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(c.Status().JSON())
	})
	mux.Handle("/metrics", promhttp.HandlerFor(c.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}
