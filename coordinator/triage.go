package coordinator

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TriageOptions make a campaign minimize buckets while it generates, as
// syzkaller's manager reproduces crashes while it fuzzes, and bound the
// work left after generation (the tail).
type TriageOptions struct {
	// Panel judges the minimizer's candidates and the replays: the
	// campaign's own workers (queue.Remote), or this process's oracles.
	Panel oracles.Panel
	// Tail bounds the work after generation: the drain's triage, the
	// minimizing and the night's replay. Zero means DefaultTail.
	Tail time.Duration
	// Minimize bounds each bucket's minimization; nil minimizes nothing
	// (the night's replay still runs).
	Minimize *MinimizeOptions
}

// DefaultTail is a fifth of the duration, at least 30 s.
func DefaultTail(duration time.Duration) time.Duration { return max(duration/5, 30*time.Second) }

// stallAfter is how long generation goes without a new feature or bucket
// before triage takes every slot: triage's share of judge time is one
// bucket at a time while generation still finds something new.
const stallAfter = 10 * time.Second

// triager minimizes the buckets of a campaign: those earlier campaigns left
// first, then the new ones as they appear.
type triager struct {
	c    *Coordinator
	opts TriageOptions
	wake chan struct{}
	mu   sync.Mutex
	// tailEnds is when the work after generation must end; zero while the
	// campaign generates. At it, stopWork ends the minimizations under
	// way, though a long drain may still run.
	tailEnds time.Time
	stopWork context.CancelFunc
	timer    *time.Timer

	waiting []string        // keys, in the order they are minimized
	queued  map[string]bool // every key ever queued
	running int
	// news counts features and new buckets, and newsAt is when it last
	// grew: generation has stalled when it stops growing.
	news   int
	newsAt time.Time
	// replay is what the night's replay did; nil until it ended.
	replay *NightReplay
}

func newTriager(c *Coordinator, opts TriageOptions) *triager {
	if opts.Tail <= 0 {
		opts.Tail = DefaultTail(c.Campaign().Config.Duration)
	}
	return &triager{c: c, opts: opts, wake: make(chan struct{}, 1), queued: map[string]bool{}, newsAt: time.Now()}
}

// add queues buckets to be minimized, once each.
func (t *triager) add(keys ...string) {
	if t == nil || t.opts.Minimize == nil {
		return
	}
	t.mu.Lock()
	for _, k := range keys {
		if !t.queued[k] {
			t.queued[k] = true
			t.waiting = append(t.waiting, k)
		}
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// queueStored queues the store's buckets that wait for their minimization:
// those an earlier campaign left (oldest first), then this campaign's, so
// that a resumed or next campaign minimizes the leftovers first.
func (t *triager) queueStored() error {
	buckets, err := t.c.opts.Store.Buckets()
	if err != nil {
		return err
	}
	camp := t.c.Campaign().ID
	buckets = slices.DeleteFunc(buckets, func(b store.Bucket) bool { return !b.NotYetMinimized() })
	slices.SortStableFunc(buckets, func(a, b store.Bucket) int {
		if mine := a.Campaign == camp; mine != (b.Campaign == camp) {
			if mine {
				return 1
			}
			return -1
		}
		return a.FirstSeen.Compare(b.FirstSeen)
	})
	for _, b := range buckets {
		t.add(b.Key)
	}
	return nil
}

// width is how many buckets are minimized at a time: triage's share.
func (t *triager) width() int {
	camp := t.c.Campaign()
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := camp.Stats.Features + camp.Stats.NewBuckets; n != t.news {
		t.news, t.newsAt = n, time.Now()
	}
	if camp.State == store.StateRunning && time.Since(t.newsAt) < stallAfter {
		return 1
	}
	return max(2, runtime.GOMAXPROCS(0))
}

// idle reports whether nothing waits and nothing runs.
func (t *triager) idle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running == 0 && len(t.waiting) == 0
}

// run minimizes the queued buckets, width at a time, until ctx ends; the
// minimizations under way end with it, their buckets left for the next
// campaign.
func (t *triager) run(ctx context.Context) error {
	if t.opts.Minimize == nil {
		return nil
	}
	if err := t.queueStored(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.mu.Lock()
	t.stopWork = cancel
	t.mu.Unlock()
	defer t.stopTimer()
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		for key, ok := t.next(); ok; key, ok = t.next() {
			wg.Go(func() { t.minimize(ctx, key) })
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.wake:
		case <-tick.C:
		}
	}
}

// next takes the next bucket when a slot is free.
func (t *triager) next() (string, bool) {
	width := t.width()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running >= width || len(t.waiting) == 0 || !t.tailEnds.IsZero() && time.Now().After(t.tailEnds) {
		return "", false
	}
	key := t.waiting[0]
	t.waiting = t.waiting[1:]
	t.running++
	return key, true
}

// minimize minimizes one bucket and records when: during generation or
// after it. A bucket it could not finish waits for the next campaign.
func (t *triager) minimize(ctx context.Context, key string) {
	defer func() {
		t.mu.Lock()
		t.running--
		t.mu.Unlock()
	}()
	b, ok, err := t.c.opts.Store.Bucket(key)
	if err != nil || !ok || !b.NotYetMinimized() {
		return // gone (merged into another), or minimized meanwhile
	}
	during := t.c.Campaign().State == store.StateRunning
	b, err = MinimizeBucket(ctx, t.c.opts.Store, t.opts.Panel, b, *t.opts.Minimize)
	if err != nil {
		if ctx.Err() == nil {
			t.c.log.Warn("minimize a bucket; the next campaign tries again", "bucket", key, "err", err)
		}
		return
	}
	during = during && t.c.Campaign().State == store.StateRunning
	if err := t.c.update(func(camp *store.Campaign) {
		tr := camp.Triage(t.opts.Tail)
		if during {
			tr.During = append(tr.During, b.Key)
		} else {
			tr.After = append(tr.After, b.Key)
		}
	}); err != nil {
		t.c.log.Error("record a minimized bucket", "bucket", b.Key, "err", err)
	}
	t.c.log.Info("minimized a bucket", "bucket", b.Key, "during generation", during, "case", b.Minimized, "note", b.MinimizeNote)
}

// tail is the work after the drain: the triage goes on, and the night's
// replay runs beside it, until both are done or the tail's time is up. The
// buckets left keep their example and are recorded for the next campaign.
func (c *Coordinator) tail(ctx context.Context, stopTriage func()) error {
	t := c.triage
	tctx, cancel := context.WithDeadline(ctx, t.deadline())
	defer cancel()
	replayed := make(chan error, 1)
	go func() { replayed <- t.replayNight(tctx) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for tctx.Err() == nil && !t.idle() {
		select {
		case <-tctx.Done():
		case <-tick.C:
		}
	}
	stopTriage()
	err := <-replayed
	if ctx.Err() != nil {
		return nil // interrupted: Run says so
	}
	return errors.Join(err, c.mergeTwins(), c.recordLeft())
}

// mergeTwins merges the buckets that share a minimized case or a title
// (Store.MergeTwins): one bucket per root cause, whatever order the
// minimizations ended in.
func (c *Coordinator) mergeTwins() error {
	n, err := c.opts.Store.MergeTwins()
	if n > 0 {
		c.log.Info("merged buckets of one minimized case or title", "merged", n)
	}
	return err
}

// replayNight replays the buckets the campaign did not see (ReplayNight),
// bounded by ctx: what it could not reach tonight waits for another night.
func (t *triager) replayNight(ctx context.Context) error {
	n, err := ReplayNight(ctx, t.c.opts.Store, t.opts.Panel, t.c.Campaign().ID)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("replay the buckets this night did not find: %w", err)
	}
	t.mu.Lock()
	t.replay = &n
	t.mu.Unlock()
	if n.Reproduced+n.Fixed+n.Skipped+n.Carried > 0 {
		t.c.log.Info("replayed the buckets this night did not find", "reproduced", n.Reproduced, "fixed", n.Fixed,
			"carried (versions unchanged)", n.Carried, "not replayed", n.Skipped, "cut by the tail", ctx.Err() != nil)
	}
	return nil
}

// recordLeft records the buckets still waiting for their minimization.
func (c *Coordinator) recordLeft() error {
	if c.triage.opts.Minimize == nil {
		return nil
	}
	buckets, err := c.opts.Store.Buckets()
	if err != nil {
		return err
	}
	var left []string
	for _, b := range buckets {
		if b.NotYetMinimized() {
			left = append(left, b.Key)
		}
	}
	return c.update(func(camp *store.Campaign) { camp.Triage(c.triage.opts.Tail).Left = left })
}

// TriageStatus is where the triage stands, for the progress line and
// /status.
type TriageStatus struct {
	// Tail is the most time the work after generation takes; TailLeft what
	// is left of it once generation ended.
	Tail, TailLeft time.Duration
	// Minimized counts the buckets minimized so far, During those of them
	// while generating; Running and Waiting those under way and queued.
	Minimized, During, Running, Waiting int
	// Replay is what the night's replay did, once it ended.
	Replay *NightReplay
}

// status snapshots the triage.
func (t *triager) status() *TriageStatus {
	if t == nil {
		return nil
	}
	camp := t.c.Campaign()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &TriageStatus{Tail: t.opts.Tail, Running: t.running, Waiting: len(t.waiting), Replay: t.replay}
	if tr := camp.Triaged; tr != nil {
		s.Minimized, s.During = len(tr.During)+len(tr.After), len(tr.During)
	}
	if !t.tailEnds.IsZero() {
		s.TailLeft = max(time.Until(t.tailEnds), 0)
	}
	return s
}

// startTriage runs the triage beside the campaign's loops, its error on
// errs; stop ends it and waits for it (it writes the store). Without
// triage both do nothing.
func (c *Coordinator) startTriage(ctx context.Context, errs chan<- error) (stop func()) {
	if c.triage == nil {
		return func() {}
	}
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.triage.run(tctx); err != nil {
			select {
			case errs <- err:
			default:
				c.log.Error("triage", "err", err)
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

// endGeneration starts the tail's clock: the work after generation ends
// by now plus the tail.
func (t *triager) endGeneration(now time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tailEnds.IsZero() {
		t.tailEnds = now.Add(t.opts.Tail)
		t.timer = time.AfterFunc(time.Until(t.tailEnds), func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.stopWork != nil {
				t.stopWork()
			}
		})
	}
}

// stopTimer stops the tail's timer when the triage ends before it.
func (t *triager) stopTimer() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
	}
}

// deadline is when the work after generation must end.
func (t *triager) deadline() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tailEnds
}
