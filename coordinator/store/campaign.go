package store

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// CampaignConfig is what a campaign runs. Zero fields take defaults.
type CampaignConfig struct {
	// Domains to fuzz and judge; empty means every domain.
	Domains []string `json:"domains"`
	// Oracles to ask; empty means every oracle some worker advertises.
	Oracles []string `json:"oracles"`
	// Duration of generation; judging what was generated continues after it.
	Duration time.Duration `json:"duration"`
	// BatchSize is the most cases per job.
	BatchSize int `json:"batch_size"`
	// FuzzSlice is how long one fuzz job runs one domain's target.
	FuzzSlice time.Duration `json:"fuzz_slice"`
	// Generator selects the generators: native (the instrumented fuzz
	// engine), random (random bytes), structured (the coordinator's
	// generator) or all; empty means all.
	Generator string `json:"generator,omitempty"`
	// Seed makes the schedule reproducible.
	Seed int64 `json:"seed"`
	// KeepAll keeps every settled case and its verdicts, not only those
	// something needs (see settle.go): for debugging a tool. False drops
	// the others once their night's tally holds them.
	KeepAll bool `json:"keep_all,omitempty"`
}

// Campaign states.
const (
	StateRunning  = "running"
	StateDraining = "draining" // generation over, judging what is queued
	StateDone     = "done"
)

// OracleStats counts one oracle's work in a campaign.
type OracleStats struct {
	// Enqueued counts the (case, oracle) jobs created for it: with Judged, it
	// gives the oracle's own queue depth, which generation is paced by.
	Enqueued int `json:"enqueued"`
	Judged   int `json:"judged"`
	// Held counts its verdicts waiting for a spot check of their worker
	// (held.go): not yet judged, and not in its backlog either.
	Held    int           `json:"held,omitempty"`
	Elapsed time.Duration `json:"elapsed"` // time the oracle spent, summed over batches
	// Kinds counts the stored verdicts by kind (accept, reject, ...).
	Kinds map[oracles.Kind]int `json:"kinds,omitempty"`
	// Version is the oracle's version string on its latest verdict: the
	// tool versions a campaign (a night) ran with.
	Version string `json:"version,omitempty"`
}

// Versions are the tool versions the campaign's verdicts came from, by
// oracle: what a night ran with.
func (c *Campaign) Versions() map[string]string {
	out := map[string]string{}
	for name, o := range c.Stats.Oracles {
		if o.Version != "" {
			out[name] = o.Version
		}
	}
	return out
}

// Stats are a campaign's counters, updated in the same transactions as the
// data they count, so they survive a crash exactly.
type Stats struct {
	Cases       int `json:"cases"`    // unique cases stored
	Enqueued    int `json:"enqueued"` // (case, oracle) jobs created
	Judged      int `json:"judged"`   // verdicts stored
	DeadCases   int `json:"dead_cases"`
	DeadLetters int `json:"dead_letters"`
	Findings    int `json:"findings"`
	NewBuckets  int `json:"new_buckets"`
	Features    int `json:"features"` // distinct features the judges showed (package signal)
	Corpus      int `json:"corpus"`   // cases that brought a new feature or bucket
	// SpotChecks counts the spot checks settled (coordinator/rejudge.go):
	// a worker's held results judged again by another judge.
	SpotChecks int                     `json:"spot_checks,omitempty"`
	Oracles    map[string]*OracleStats `json:"oracles"`
	Domains    map[string]*DomainStats `json:"domains"`
}

// DomainStats drive the fuzz schedule: domains still producing new cases
// or findings get more time.
type DomainStats struct {
	Cases      int           `json:"cases"`
	NewBuckets int           `json:"new_buckets"`
	FuzzTime   time.Duration `json:"fuzz_time"`
	// Features counts the new features its cases brought; Generated counts
	// the cases the structured generator made for it (its cost).
	Features  int `json:"features"`
	Generated int `json:"generated"`
}

// Outstanding is how many (case, oracle) jobs are still unjudged.
func (s Stats) Outstanding() int { return s.Enqueued - s.Judged - s.DeadCases }

// Campaign is a stored campaign.
type Campaign struct {
	ID      string         `json:"id"`
	Config  CampaignConfig `json:"config"`
	State   string         `json:"state"`
	Created time.Time      `json:"created"`
	// Elapsed is generation time spent so far, so a resumed campaign runs only
	// what is left of its duration.
	Elapsed time.Duration `json:"elapsed"`
	// Draining is the time spent judging what was queued after generation.
	Draining time.Duration `json:"draining,omitempty"`
	// Finished is when the run that completed the campaign ended, its new
	// buckets minimized and the others replayed; zero until then (and for
	// campaigns from before the field).
	Finished time.Time `json:"finished,omitzero"`
	Stats    Stats     `json:"stats"`
	// Triaged is what the campaign minimized and left; nil for a campaign
	// that did not triage.
	Triaged *Triaged `json:"triaged,omitempty"`
	// Quarantine lists the workers whose word the campaign refuses: a spot
	// check found a verdict of theirs that the tool does not give (held.go).
	Quarantine []Quarantine `json:"quarantine,omitempty"`
}

// Utilization is an oracle's busy time (its batches' time, summed over the
// workers running it) over the campaign's wall time so far, generation and
// drain: 1 is one instance busy all the time. Zero before any time passed.
func (c *Campaign) Utilization(oracle string) float64 {
	o := c.Stats.Oracles[oracle]
	wall := c.Elapsed + c.Draining
	if o == nil || wall <= 0 {
		return 0
	}
	return o.Elapsed.Seconds() / wall.Seconds()
}

// Oracle returns the named oracle's counters, creating them.
func (c *Campaign) Oracle(name string) *OracleStats { return counters(&c.Stats.Oracles, name) }

// Domain returns the named domain's counters, creating them.
func (c *Campaign) Domain(name string) *DomainStats { return counters(&c.Stats.Domains, name) }

// counters returns (*m)[name], creating the map and the entry as needed.
func counters[T any](m *map[string]*T, name string) *T {
	if *m == nil {
		*m = map[string]*T{}
	}
	v := (*m)[name]
	if v == nil {
		v = new(T)
		(*m)[name] = v
	}
	return v
}

// PutCampaign stores a campaign record.
func (s *Store) PutCampaign(c Campaign) error {
	return s.update(func(tx *bolt.Tx) error { return put(tx.Bucket(bucketCampaigns), []byte(c.ID), c) })
}

// GetCampaign loads a campaign.
func (s *Store) GetCampaign(id string) (Campaign, bool, error) {
	return lookup[Campaign](s, bucketCampaigns, id)
}

// Campaigns lists every stored campaign.
func (s *Store) Campaigns() ([]Campaign, error) {
	return scan[Campaign](s, bucketCampaigns, nil, "campaign")
}

// UpdateCampaign applies f to the stored campaign in one transaction, so it
// never loses a concurrent update of the campaign's counters.
func (s *Store) UpdateCampaign(id string, f func(*Campaign)) (Campaign, error) {
	var out Campaign
	err := s.update(func(tx *bolt.Tx) error {
		return updateCampaign(tx, id, func(c *Campaign) { f(c); out = *c })
	})
	return out, err
}

// updateCampaign applies f to the stored campaign inside tx.
func updateCampaign(tx *bolt.Tx, id string, f func(*Campaign)) error {
	if id == "" {
		return nil
	}
	b := tx.Bucket(bucketCampaigns)
	c, ok, err := get[Campaign](b, []byte(id))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no campaign %q", id)
	}
	f(&c)
	return put(b, []byte(id), c)
}
