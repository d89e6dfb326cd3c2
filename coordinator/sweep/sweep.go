// Package sweep feeds each domain's lattice rows (package fuzz/lattice)
// into a campaign's generation and keeps the sweep's progress in the
// store, where the next campaign on it goes on.
package sweep

import (
	"fmt"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/lattice"
)

// Sweeper is the sweeps of one campaign's domains.
type Sweeper struct {
	mu     sync.Mutex
	sweeps map[string]*store.Sweep
}

// New is a sweeper with no progress; Load reads a store's.
func New() *Sweeper { return &Sweeper{sweeps: map[string]*store.Sweep{}} }

// Load reads the store's sweeps.
func (w *Sweeper) Load(s *store.Store) error {
	all, err := s.Sweeps()
	if err != nil {
		return fmt.Errorf("sweeps: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for dom, sw := range all {
		w.sweeps[dom] = &sw
	}
	return nil
}

// Rows returns up to n of the domain's next lattice rows as case records,
// and the sweep they advance (nil when the domain's sweep is done or it has
// no lattice). A sweep whose lattice changed starts again.
func (w *Sweeper) Rows(dom, campaign string, n int, now time.Time) ([]store.CaseRecord, *store.Sweep) {
	l := w.lattice(dom)
	if l == nil {
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.sweeps[dom]
	if sw == nil || sw.Fingerprint != l.Fingerprint {
		sw = &store.Sweep{Domain: dom, Fingerprint: l.Fingerprint, Rows: l.Len(), Pairs: l.Pairs,
			Unrealizable: l.Unrealizable, Started: campaign}
		w.sweeps[dom] = sw
	}
	if sw.Done() {
		return nil, nil
	}
	end := min(sw.Next+n, l.Len())
	recs := make([]store.CaseRecord, 0, end-sw.Next)
	for i := sw.Next; i < end; i++ {
		canon := l.Row(i).Encode()
		recs = append(recs, store.CaseRecord{ID: domain.ID(dom, canon), Domain: dom, Data: canon,
			Campaign: campaign, Source: store.SweepSource, Seen: now})
	}
	next := *sw
	next.Next, next.Covered = end, l.Covered(end)
	if next.Done() {
		next.Completed, next.CompletedIn = now, campaign
	}
	return recs, &next
}

// Advanced records a sweep's progress once its rows are stored and
// enqueued: a crash before it repeats the rows, and the store's dedup by
// case ID judges each once.
func (w *Sweeper) Advanced(sw *store.Sweep) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sweeps[sw.Domain] = sw
}

// Share is how many cases of a structured batch of size cases the
// domain's sweep takes until it is done: half, and three quarters while it
// is behind the campaign's clock (a smaller share of its rows added than
// of the duration spent). The sweep runs beside mutation from a campaign's
// first batch, so a short campaign mutates too, and a night completes
// every domain's sweep early in it.
func (w *Sweeper) Share(camp store.Campaign, dom string, size int) int {
	if w.Progress(dom) < float64(camp.Elapsed)/float64(max(camp.Config.Duration, 1)) {
		return max(size*3/4, 1)
	}
	return max(size/2, 1)
}

// Progress is the share of the domain's lattice rows added so far: 0 for
// a sweep not begun on today's lattice, 1 for a domain without one.
func (w *Sweeper) Progress(dom string) float64 {
	l := w.lattice(dom)
	if l == nil || l.Len() == 0 {
		return 1
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.sweeps[dom]
	if sw == nil || sw.Fingerprint != l.Fingerprint {
		return 0
	}
	return float64(sw.Next) / float64(l.Len())
}

// Sweeping reports whether the domain's sweep has rows left: not done, or
// not begun in this store on the domain's lattice of today.
func (w *Sweeper) Sweeping(dom string) bool {
	l := w.lattice(dom)
	if l == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.sweeps[dom]
	return sw == nil || sw.Fingerprint != l.Fingerprint || !sw.Done()
}

// Warm builds the domains' lattices, which the first enqueue of a campaign
// otherwise waits for (tmadesc's takes most of a second): run it beside the
// wait for workers.
func (w *Sweeper) Warm(domains []string) {
	for _, d := range domains {
		w.lattice(d)
	}
}

// lattice is the domain's lattice; nil when it has none (every domain has
// one: TestEveryDomainSweeps).
func (w *Sweeper) lattice(dom string) *lattice.Lattice {
	d, ok := fuzz.Lookup(dom)
	if !ok {
		return nil
	}
	l, err := lattice.For(d)
	if err != nil {
		return nil
	}
	return l
}
