package coordinator

import (
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Pacing bounds each wanted oracle's own queue (its enqueued cases not yet
// judged): generation tops a queue up below its low mark and never adds to
// a domain one of whose oracles holds its high mark, so no oracle waits and
// no queue grows without bound; the cases every judge judges (seeds,
// lattice rows) go out only while each of the domain's judges is under its
// high mark. A mark is the lower of a count of batches and a time of the
// oracle's own work at its measured rate: six batches of 256 are a second
// of work for spec/ptxisa and over three minutes for an MLIR judge on two
// cores, which the drain then waited for.
const (
	lowBatches  = 2
	highBatches = 6
	lowWork     = 10 * time.Second
	highWork    = 30 * time.Second
	// In generation's last stretch (windDown) batches are small and
	// queues hold a few seconds of work, so that what is queued at
	// --duration drains in seconds: the drain is work after generation.
	windDownBatch = 32
	windDownLow   = 2 * time.Second
	windDownHigh  = 5 * time.Second
	// minBatch is the smallest batch generation makes to fit a slow
	// judge's room, and an oracle's first.
	minBatch = 16
	// jobGap is the least gap between an oracle's marks (see marks).
	jobGap = 32
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

// marks are the oracle's low and high marks, in cases. Until the oracle
// has judged something its first batch is small, so that it measures its
// rate soon: a first batch of 256 took an MLIR judge most of a minute, and
// the seeds queued meanwhile, six batches for every judge, held the whole
// campaign. The marks are at least jobGap apart (unless the batch counts
// are closer: a campaign of small batches), so that a queue topped up
// from under its low mark to its high one makes a job a tool run is worth
// (a judge fed a few cases a job spent its time starting tools, measured a
// lower rate, was fed fewer, and judged a twentieth of what it had).
func (p pace) marks(oracle string) (low, high int) {
	r := p.c.rate(p.camp, oracle)
	if r == 0 {
		return 1, min(minBatch, p.size)
	}
	low, high = lowBatches*p.size, highBatches*p.size
	lw, hw := lowWork, highWork
	if p.windingDown {
		low, high = p.size, 2*p.size
		lw, hw = windDownLow, windDownHigh
	}
	low = min(low, max(int(r*lw.Seconds()), jobGap))
	high = min(high, max(int(r*hw.Seconds()), low+jobGap))
	return low, high
}

// full reports whether the oracle's queue holds its high mark.
func (p pace) full(oracle string) bool {
	_, high := p.marks(oracle)
	return backlog(p.camp, oracle) >= high
}

// room is how many cases the oracles can take before the first of them
// holds its high mark: generation's batch for a domain they judge, at
// least minBatch, at most the batch size.
func (p pace) room(oracles []string) int {
	n := p.size
	for _, o := range oracles {
		_, high := p.marks(o)
		n = min(n, high-backlog(p.camp, o))
	}
	return max(n, min(minBatch, p.size))
}

// roomForEvery reports whether every judge of the domain, sampled ones
// included, has room for the rows every judge judges (seeds, the lattice
// sweep): they wait for the slowest, while mutation goes on.
func (p pace) roomForEvery(dom string) bool {
	return !slices.ContainsFunc(p.c.oraclesFor(dom), p.full)
}

// rate is the oracle's measured throughput in cases per second of wall
// time: its cases judged over its busy time, times the live workers that
// run it; zero until it has judged something.
func (c *Coordinator) rate(camp store.Campaign, oracle string) float64 {
	s := camp.Stats.Oracles[oracle]
	if s == nil || s.Judged == 0 {
		return 0
	}
	if s.Elapsed <= 0 {
		return float64(s.Judged) / time.Millisecond.Seconds() // judged in no measurable time
	}
	return float64(s.Judged) / s.Elapsed.Seconds() * float64(max(c.runners(oracle), 1))
}

// runners counts the live workers that offer the oracle.
func (c *Coordinator) runners(oracle string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, w := range c.workers {
		for _, s := range w.Oracles {
			if s.Name == oracle && s.Available {
				n++
				break
			}
		}
	}
	return n
}

// windDown is generation's last stretch, in which it keeps the queues
// shallow: half the tail, at most a quarter of the duration.
func (t *triager) windDown(camp store.Campaign) time.Duration {
	return min(t.opts.Tail/2, camp.Config.Duration/4)
}
