package coordinator

import (
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Pacing bounds, in batches of the campaign's batch size, of each wanted
// oracle's own queue (its enqueued cases not yet judged): generation tops a
// queue up below lowBatches and never adds to a domain one of whose oracles
// holds highBatches, so no oracle waits and no queue grows without bound.
// In generation's last stretch (windDown) batches are small and queues
// shallow, so that what is queued at --duration drains sooner. (Marks in
// seconds of each oracle's own work, tried, bounded the drain but cost the
// slow judges most of their cases: docs/generation.md.) While a bucket is
// minimized nothing changes: its candidates take the urgent lane.
const (
	lowBatches    = 2
	highBatches   = 6
	windDownBatch = 32
)

// pace is generation's pacing at one moment of a campaign.
type pace struct {
	c    *Coordinator
	camp store.Campaign
	// size is the batch size; windingDown marks the last stretch.
	size        int
	windingDown bool
}

// pacing is the campaign's pacing now.
func (c *Coordinator) pacing(camp store.Campaign) pace {
	p := pace{c: c, camp: camp, size: camp.Config.BatchSize}
	if c.triage != nil && camp.Config.Duration-camp.Elapsed < c.triage.windDown(camp) {
		p.size, p.windingDown = min(windDownBatch, p.size), true
	}
	return p
}

// marks are the oracle's low and high marks, in cases.
func (p pace) marks(oracle string) (low, high int) {
	if p.windingDown {
		return p.size, 2 * p.size
	}
	return lowBatches * p.size, highBatches * p.size
}

// full reports whether the oracle's queue holds its high mark.
func (p pace) full(oracle string) bool {
	_, high := p.marks(oracle)
	return backlog(p.camp, oracle) >= high
}

// roomForEvery reports whether every judge of the domain, sampled ones
// included, has room for the rows every judge judges (seeds, the lattice
// sweep): they wait for the slowest, while mutation goes on.
func (p pace) roomForEvery(dom string) bool {
	return !slices.ContainsFunc(p.c.oraclesFor(dom), p.full)
}

// windDown is generation's last stretch, in which it keeps the queues
// shallow: half the tail, at most a quarter of the duration.
func (t *triager) windDown(camp store.Campaign) time.Duration {
	return min(t.opts.Tail/2, camp.Config.Duration/4)
}
