package coordinator

import (
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// StatusJSON is what /status serves (stable JSON): every duration in
// seconds, as a number in a field whose name ends in _seconds, and every
// time in RFC 3339, so neither a script nor a person reads nanoseconds.
type StatusJSON struct {
	Campaign        CampaignJSON       `json:"campaign"`
	Outstanding     int                `json:"outstanding"` // (case, oracle) jobs not yet judged
	QueueDepth      uint64             `json:"queue_depth"` // messages in the jobs stream
	TimeLeftSeconds float64            `json:"time_left_seconds"`
	Workers         []queue.Capability `json:"workers"`
	Utilization     map[string]float64 `json:"utilization"`       // busy time over wall time, by oracle
	Fuzzing         string             `json:"fuzzing,omitempty"` // the domain of the latest fuzz job
	Time            time.Time          `json:"time"`              // when the snapshot was taken
}

// CampaignJSON is a campaign as /status shows it (store.Campaign with
// durations in seconds).
type CampaignJSON struct {
	ID              string             `json:"id"`
	State           string             `json:"state"`
	Created         time.Time          `json:"created"`
	Config          CampaignConfigJSON `json:"config"`
	ElapsedSeconds  float64            `json:"elapsed_seconds"`
	DrainingSeconds float64            `json:"draining_seconds,omitempty"`
	Stats           StatsJSON          `json:"stats"`
	// Quarantine names the workers whose word the campaign refuses.
	Quarantine []store.Quarantine `json:"quarantine,omitempty"`
}

// CampaignConfigJSON is store.CampaignConfig with durations in seconds.
type CampaignConfigJSON struct {
	Domains          []string `json:"domains"`
	Oracles          []string `json:"oracles"`
	DurationSeconds  float64  `json:"duration_seconds"`
	BatchSize        int      `json:"batch_size"`
	FuzzSliceSeconds float64  `json:"fuzz_slice_seconds"`
	Generator        string   `json:"generator,omitempty"`
	Seed             int64    `json:"seed"`
}

// StatsJSON is store.Stats with durations in seconds.
type StatsJSON struct {
	Cases       int                        `json:"cases"`
	Enqueued    int                        `json:"enqueued"`
	Judged      int                        `json:"judged"`
	DeadCases   int                        `json:"dead_cases"`
	DeadLetters int                        `json:"dead_letters"`
	Findings    int                        `json:"findings"`
	NewBuckets  int                        `json:"new_buckets"`
	Features    int                        `json:"features"`
	Corpus      int                        `json:"corpus"`
	SpotChecks  int                        `json:"spot_checks"`
	Oracles     map[string]OracleStatsJSON `json:"oracles"`
	Domains     map[string]DomainStatsJSON `json:"domains"`
}

// OracleStatsJSON is store.OracleStats with its busy time in seconds.
type OracleStatsJSON struct {
	Enqueued    int                  `json:"enqueued"`
	Judged      int                  `json:"judged"`
	BusySeconds float64              `json:"busy_seconds"`
	Kinds       map[oracles.Kind]int `json:"kinds,omitempty"`
	Version     string               `json:"version,omitempty"`
}

// DomainStatsJSON is store.DomainStats with its fuzz time in seconds.
type DomainStatsJSON struct {
	Cases       int     `json:"cases"`
	NewBuckets  int     `json:"new_buckets"`
	FuzzSeconds float64 `json:"fuzz_seconds"`
	Features    int     `json:"features"`
	Generated   int     `json:"generated"`
}

// JSON is the status's /status form.
func (s Status) JSON() StatusJSON {
	c := s.Campaign
	st := c.Stats
	out := StatusJSON{Outstanding: s.Outstanding, QueueDepth: s.QueueDepth, TimeLeftSeconds: s.TimeLeft.Seconds(),
		Workers: s.Workers, Utilization: s.Utilization, Fuzzing: s.Fuzzing, Time: time.Now().UTC().Truncate(time.Millisecond),
		Campaign: CampaignJSON{ID: c.ID, State: c.State, Created: c.Created,
			ElapsedSeconds: c.Elapsed.Seconds(), DrainingSeconds: c.Draining.Seconds(),
			Config: CampaignConfigJSON{Domains: c.Config.Domains, Oracles: c.Config.Oracles, DurationSeconds: c.Config.Duration.Seconds(),
				BatchSize: c.Config.BatchSize, FuzzSliceSeconds: c.Config.FuzzSlice.Seconds(), Generator: c.Config.Generator, Seed: c.Config.Seed},
			Stats: StatsJSON{Cases: st.Cases, Enqueued: st.Enqueued, Judged: st.Judged, DeadCases: st.DeadCases, DeadLetters: st.DeadLetters,
				Findings: st.Findings, NewBuckets: st.NewBuckets, Features: st.Features, Corpus: st.Corpus, SpotChecks: st.SpotChecks,
				Oracles: map[string]OracleStatsJSON{}, Domains: map[string]DomainStatsJSON{}},
			Quarantine: c.Quarantine}}
	for name, o := range st.Oracles {
		out.Campaign.Stats.Oracles[name] = OracleStatsJSON{Enqueued: o.Enqueued, Judged: o.Judged, BusySeconds: o.Elapsed.Seconds(),
			Kinds: o.Kinds, Version: o.Version}
	}
	for name, d := range st.Domains {
		out.Campaign.Stats.Domains[name] = DomainStatsJSON{Cases: d.Cases, NewBuckets: d.NewBuckets, FuzzSeconds: d.FuzzTime.Seconds(),
			Features: d.Features, Generated: d.Generated}
	}
	return out
}
