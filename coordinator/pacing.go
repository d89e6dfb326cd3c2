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
	// left is generation's time left and the drain's share of the tail:
	// an oracle whose queue holds more than it judged in as long since the
	// run began is full (zero: no such bound).
	left time.Duration
}

// pacing is the campaign's pacing now.
func (c *Coordinator) pacing(camp store.Campaign) pace {
	p := pace{c: c, camp: camp, size: camp.Config.BatchSize}
	if c.triage != nil {
		p.left = max(camp.Config.Duration-camp.Elapsed, 0) + c.triage.opts.Tail/2
		if camp.Config.Duration-camp.Elapsed < c.triage.windDown(camp) {
			p.size, p.windingDown = min(windDownBatch, p.size), true
		}
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

// full reports whether the oracle's queue holds its high mark, or more than
// it can judge in the time left at its pace so far. The second bound is
// what keeps a slow judge's drain within the tail: in batches of 128 its
// high mark was a minute of mlir@trunk's work, and a 60 s campaign's drain
// outlasted its 30 s tail (docs/generation.md).
func (p pace) full(oracle string) bool {
	_, high := p.marks(oracle)
	b := backlog(p.camp, oracle)
	if b >= high {
		return true
	}
	r := p.c.rate(oracle, p.camp)
	return p.left > 0 && r > 0 && float64(b) > r*p.left.Seconds()
}

// roomForEvery reports whether every judge of the domain, sampled ones
// included, has room for the rows every judge judges (seeds, the lattice
// sweep): they wait for the slowest, while mutation goes on.
func (p pace) roomForEvery(dom string) bool {
	return !slices.ContainsFunc(p.c.oraclesFor(dom), p.full)
}

// minPaceBusy is how long an oracle judges in a run before its rate is
// taken: its first jobs start the tools.
const minPaceBusy = 5 * time.Second

// rate is the cases a second the oracle judged since the run began, per
// second it was busy (a job's wall time): what it can judge, not what it
// was given (a sampled judge fed one case in four is idle most of the
// time, and its cases per second of wall clock called it slow). Zero
// until it was busy minPaceBusy.
func (c *Coordinator) rate(oracle string, camp store.Campaign) float64 {
	s := camp.Stats.Oracles[oracle]
	if s == nil {
		return 0
	}
	c.mu.Lock()
	busy, judged := s.Elapsed-c.busy0[oracle], s.Judged-c.judged0[oracle]
	c.mu.Unlock()
	if busy < minPaceBusy {
		return 0
	}
	return float64(judged) / busy.Seconds()
}

// windDown is generation's last stretch, in which it keeps the queues
// shallow: half the tail, at most a quarter of the duration.
func (t *triager) windDown(camp store.Campaign) time.Duration {
	return min(t.opts.Tail/2, camp.Config.Duration/4)
}
