package coordinator

import (
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
)

// metrics are what /metrics serves. Most series are read at scrape time
// from the campaign's stored stats (so they are exact and survive a
// restart of the coordinator: counters continue where the store left
// them); the batch-time histogram is observed live as results commit, so
// it covers the results this process committed.
type metrics struct {
	registry *prometheus.Registry
	// batchSeconds is each committed result's batch time, as the worker
	// that judged it measured it (queue.Result.Elapsed): the judge latency
	// of a batch. Per-case latency is not measured by workers.
	batchSeconds *prometheus.HistogramVec
}

// newMetrics registers the campaign collector, the batch-time histogram,
// and the Go runtime, process and build-info collectors.
func newMetrics(c *Coordinator) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		batchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "legalfuzz_oracle_batch_seconds",
			Help:    "Time an oracle took on one batch of cases, as its worker measured it, for results this coordinator committed.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms .. 262 s
		}, []string{"oracle"}),
	}
	m.registry.MustRegister(m.batchSeconds, campaignCollector{c},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector())
	return m
}

// observe records the batch times of newly stored results; a redelivered
// result (nothing stored) is not observed twice.
func (m *metrics) observe(commits []store.Commit, outs []store.CommitResult) {
	for i, c := range commits {
		if c.Oracle != "" && outs[i].Stored > 0 {
			m.batchSeconds.WithLabelValues(c.Oracle).Observe(c.Elapsed.Seconds())
		}
	}
}

// campaignCollector reads the campaign's counters, the queue and the
// store's buckets at each scrape.
type campaignCollector struct{ c *Coordinator }

var (
	descCampaign   = prometheus.NewDesc("legalfuzz_campaign_info", "The running campaign (value 1) and its state.", []string{"campaign", "state"}, nil)
	descCases      = prometheus.NewDesc("legalfuzz_cases_total", "Unique cases stored by the campaign.", nil, nil)
	descEnqueued   = prometheus.NewDesc("legalfuzz_jobs_enqueued_total", "(case, oracle) jobs the campaign created.", nil, nil)
	descFindings   = prometheus.NewDesc("legalfuzz_findings_total", "Disagreements recorded as findings (a case counts once per bucket).", nil, nil)
	descNewBuckets = prometheus.NewDesc("legalfuzz_new_buckets_total", "Buckets first seen in the campaign.", nil, nil)
	descDead       = prometheus.NewDesc("legalfuzz_dead_letters_total", "Messages that could not be processed.", nil, nil)
	descOutstand   = prometheus.NewDesc("legalfuzz_outstanding_jobs", "(case, oracle) jobs not yet judged.", nil, nil)
	descQueue      = prometheus.NewDesc("legalfuzz_queue_depth_messages", "Messages waiting in the jobs stream.", nil, nil)
	descTimeLeft   = prometheus.NewDesc("legalfuzz_time_left_seconds", "Generation time left.", nil, nil)
	descWorkers    = prometheus.NewDesc("legalfuzz_workers", "Workers advertising.", nil, nil)
	descFeatures   = prometheus.NewDesc("legalfuzz_features", "Distinct features the judges showed in the campaign.", nil, nil)
	descCorpus     = prometheus.NewDesc("legalfuzz_corpus_cases", "Cases in the campaign corpus (they brought a new feature or bucket).", nil, nil)
	descDomCases   = prometheus.NewDesc("legalfuzz_domain_cases_total", "Unique cases stored, by domain.", []string{"domain"}, nil)
	descDomFeat    = prometheus.NewDesc("legalfuzz_domain_features", "New features a domain's cases brought.", []string{"domain"}, nil)
	descDomGen     = prometheus.NewDesc("legalfuzz_domain_generated_total", "Cases the structured generator made, by domain.", []string{"domain"}, nil)
	descVerdicts   = prometheus.NewDesc("legalfuzz_oracle_verdicts_total", "Verdicts stored, by oracle and verdict kind.", []string{"oracle", "kind"}, nil)
	descBusy       = prometheus.NewDesc("legalfuzz_oracle_busy_seconds_total", "Time the oracle spent on batches, summed over its workers.", []string{"oracle"}, nil)
	descQueued     = prometheus.NewDesc("legalfuzz_oracle_queued_jobs", "Cases enqueued for the oracle and not yet judged.", []string{"oracle"}, nil)
	descUtil       = prometheus.NewDesc("legalfuzz_oracle_utilization_ratio", "Busy time over wall time (1: one instance always busy).", []string{"oracle"}, nil)
	descOracleInfo = prometheus.NewDesc("legalfuzz_oracle_info", "The version of each oracle on the campaign's latest verdict (value 1).", []string{"oracle", "version"}, nil)
	descQuarant    = prometheus.NewDesc("legalfuzz_worker_quarantined", "A worker whose word the campaign refuses (value 1): a spot check found a verdict the tool does not give.", []string{"worker", "oracle"}, nil)
	descChecks     = prometheus.NewDesc("legalfuzz_spot_checks_total", "Spot checks that judged workers' results again.", nil, nil)
	descBuckets    = prometheus.NewDesc("legalfuzz_buckets", "Buckets in the store, by class and status (new, known, suppressed by the store's suppressions).", []string{"class", "status"}, nil)
)

// Describe sends every descriptor.
func (campaignCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCampaign, descCases, descEnqueued, descFindings, descNewBuckets, descDead,
		descOutstand, descQueue, descTimeLeft, descWorkers, descFeatures, descCorpus, descDomCases, descDomFeat, descDomGen,
		descVerdicts, descBusy, descQueued, descUtil, descOracleInfo, descBuckets, descQuarant, descChecks} {
		ch <- d
	}
}

// Collect reads one Status and the store's buckets.
func (cc campaignCollector) Collect(ch chan<- prometheus.Metric) {
	s := cc.c.Status()
	st := s.Campaign.Stats
	counter := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descCampaign, 1, s.Campaign.ID, s.Campaign.State)
	counter(descCases, st.Cases)
	counter(descEnqueued, st.Enqueued)
	counter(descFindings, st.Findings)
	counter(descNewBuckets, st.NewBuckets)
	counter(descDead, st.DeadLetters)
	gauge(descOutstand, float64(s.Outstanding))
	gauge(descQueue, float64(s.QueueDepth))
	gauge(descTimeLeft, s.TimeLeft.Seconds())
	gauge(descWorkers, float64(len(s.Workers)))
	gauge(descFeatures, float64(st.Features))
	gauge(descCorpus, float64(st.Corpus))
	counter(descChecks, st.SpotChecks)
	for _, q := range s.Campaign.Quarantine {
		gauge(descQuarant, 1, q.Worker, q.Oracle)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Domains)) {
		d := st.Domains[name]
		counter(descDomCases, d.Cases, name)
		gauge(descDomFeat, float64(d.Features), name)
		counter(descDomGen, d.Generated, name)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Oracles)) {
		o := st.Oracles[name]
		for _, kind := range slices.Sorted(maps.Keys(o.Kinds)) {
			counter(descVerdicts, o.Kinds[kind], name, string(kind))
		}
		ch <- prometheus.MustNewConstMetric(descBusy, prometheus.CounterValue, o.Elapsed.Seconds(), name)
		gauge(descQueued, float64(o.Enqueued-o.Judged), name)
		gauge(descUtil, s.Utilization[name], name)
		if o.Version != "" {
			gauge(descOracleInfo, 1, name, o.Version)
		}
	}
	cc.collectBuckets(ch, s.Campaign.ID)
}

// collectBuckets counts the store's buckets by class and status; a store
// that cannot be read leaves the series out (the scrape still succeeds).
func (cc campaignCollector) collectBuckets(ch chan<- prometheus.Metric, campaign string) {
	buckets, err := cc.c.opts.Store.Buckets()
	if err != nil {
		cc.c.log.Warn("metrics: read buckets", "err", err)
		return
	}
	sups, err := cc.c.opts.Store.Suppressions()
	if err != nil {
		cc.c.log.Warn("metrics: read suppressions", "err", err)
		return
	}
	type key struct{ class, status string }
	counts := map[key]int{}
	for _, e := range triage.Classify(buckets, campaign, sups) {
		counts[key{string(e.Class), e.Status}]++
	}
	// Every (class, status) is exported, zero included, so a dashboard
	// shows 0 rather than no data.
	for _, class := range policy.Classes() {
		for _, status := range []string{triage.StatusNew, triage.StatusKnown, triage.StatusSuppressed} {
			n := counts[key{string(class), status}]
			ch <- prometheus.MustNewConstMetric(descBuckets, prometheus.GaugeValue, float64(n), string(class), status)
		}
	}
}
