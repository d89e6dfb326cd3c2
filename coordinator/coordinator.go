// Package coordinator runs campaigns: it fans cases out to oracles, gathers
// their verdicts, applies the agreement policies and records findings.
package coordinator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/structured"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Options configure a coordinator.
type Options struct {
	Store *store.Store
	Conn  *nats.Conn
	Queue queue.Config
	// Config is used for a new campaign; a resumed one keeps its own.
	Config store.CampaignConfig
	// CampaignID names the campaign; empty resumes the store's unfinished
	// campaign or starts a new one.
	CampaignID string
	// WaitWorkers is how long to wait for the first worker at start.
	WaitWorkers time.Duration
	// DrainTimeout bounds the wait for queued jobs after generation ends.
	DrainTimeout time.Duration
	// Seeds, when true, judges every domain's seed values first.
	Seeds bool
	// Policies decide what is a finding; the zero Set is the built-in table.
	Policies policy.Set
	// Triage minimizes buckets while the campaign runs and bounds the work
	// after generation (triage.go); nil does neither.
	Triage *TriageOptions
	// Rejudge is the share of workers' results spot-checked by another
	// judge before they count (rejudge.go), beside every result that would
	// open a bucket and any that waited holdMax; zero takes a worker's word
	// as it comes.
	Rejudge float64
	// Arbiter is this process's own oracles: it replays a case on which a
	// spot check disagrees, and judges the checks no other worker can. Nil
	// settles no disagreement (the worker's word is kept).
	Arbiter oracles.Panel
}

// Coordinator runs one campaign: the only writer of the store.
type Coordinator struct {
	opts Options
	js   jetstream.JetStream
	log  *slog.Logger

	mu       sync.Mutex
	ctx      context.Context // Run's context, for status queries
	campaign store.Campaign
	resumed  bool
	workers  []queue.Capability
	rng      *rand.Rand
	// gen is the structured generator; nil when the campaign does not run it.
	gen *structured.Generator
	// triage minimizes buckets beside generation; nil without Options.Triage.
	triage *triager
	// metrics is what /metrics serves.
	metrics *metrics
	// fuzzing is the domain of the latest fuzz job.
	fuzzing string
	// started is when Run began, busy0 each oracle's busy time then and
	// judged0 its cases judged: what Status measures utilization from and
	// pacing each oracle's pace. generating is set once generation (and its
	// clock) began.
	started    time.Time
	busy0      map[string]time.Duration
	judged0    map[string]int
	generating bool
	// wantCheck marks the lanes a drawn result asks a spot check of;
	// answers holds the spot checks' answers until the tick settles them.
	wantCheck map[string]bool
	answers   map[string][]queue.Result
}

// New prepares a coordinator, loading or creating its campaign.
func New(opts Options) (*Coordinator, error) {
	if err := Validate(opts.Config); err != nil {
		return nil, err
	}
	js, err := jetstream.New(opts.Conn)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	camp, resumed, err := loadOrCreate(opts)
	if err != nil {
		return nil, err
	}
	c := &Coordinator{opts: opts, js: js, campaign: camp, resumed: resumed, log: slog.With("campaign", camp.ID),
		rng: rand.New(rand.NewPCG(uint64(camp.Config.Seed), 1)), wantCheck: map[string]bool{}, answers: map[string][]queue.Result{}}
	c.metrics = newMetrics(c)
	if opts.Triage != nil {
		c.triage = newTriager(c, *opts.Triage)
	}
	if structuredOn(camp.Config) {
		c.gen = structured.New(camp.Config.Domains, camp.Config.Seed)
		for d, why := range c.gen.Disabled() {
			c.log.Warn("no structured generation for a domain", "domain", d, "reason", why)
		}
	}
	return c, nil
}

// Validate checks a campaign config before anything is started or saved, so
// a typo never becomes a stored campaign that every resume trips on. Zero
// fields mean their defaults; negative ones are errors. Oracle names are the
// caller's to check: a program may bring oracles of its own.
func Validate(cfg store.CampaignConfig) error {
	var errs []error
	for _, d := range cfg.Domains {
		if _, ok := fuzz.Lookup(d); !ok {
			errs = append(errs, fmt.Errorf("unknown domain %q (see legalfuzz domains)", d))
		}
	}
	if cfg.Duration < 0 || cfg.FuzzSlice < 0 || cfg.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("negative duration %s, fuzz slice %s or batch size %d", cfg.Duration, cfg.FuzzSlice, cfg.BatchSize))
	}
	return errors.Join(errs...)
}

// loadOrCreate resumes the named campaign, or the store's unfinished one, or
// starts a new campaign; resumed says it found one.
func loadOrCreate(opts Options) (c store.Campaign, resumed bool, err error) {
	if opts.CampaignID != "" {
		if c, ok, err := opts.Store.GetCampaign(opts.CampaignID); err != nil || ok {
			return c, ok, err
		}
	} else {
		all, err := opts.Store.Campaigns()
		if err != nil {
			return store.Campaign{}, false, err
		}
		for _, c := range all {
			if c.State != store.StateDone {
				return c, true, nil
			}
		}
	}
	cfg := withDefaults(opts.Config)
	id := opts.CampaignID
	if id == "" {
		id = "c" + time.Now().UTC().Format("20060102-150405")
	}
	c = store.Campaign{ID: id, Config: cfg, State: store.StateRunning, Created: time.Now().UTC()}
	return c, false, opts.Store.PutCampaign(c)
}

// Resumed reports whether the campaign was found in the store, unfinished
// or named, rather than started.
func (c *Coordinator) Resumed() bool { return c.resumed }

// defaultBatch is the batch size of a campaign that names none: 128 below
// four minutes, so that a slow judge's first fill (six batches at the high
// mark) drains within it (docs/generation.md), else 256.
func defaultBatch(d time.Duration) int {
	if d < 4*time.Minute {
		return 128
	}
	return 256
}

// withDefaults fills the zero fields of a campaign config.
func withDefaults(cfg store.CampaignConfig) store.CampaignConfig {
	if len(cfg.Domains) == 0 {
		for _, d := range fuzz.Campaigned() {
			cfg.Domains = append(cfg.Domains, d.Name)
		}
	}
	if cfg.Duration == 0 {
		cfg.Duration = time.Minute
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = defaultBatch(cfg.Duration)
	}
	if cfg.FuzzSlice == 0 {
		cfg.FuzzSlice = 15 * time.Second
	}
	if cfg.Generator == "" {
		cfg.Generator = GenAll
	}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	return cfg
}

func (c *Coordinator) ctxOrBackground() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != nil {
		return c.ctx
	}
	return context.Background()
}

// Campaign returns a copy of the campaign as last committed.
func (c *Coordinator) Campaign() store.Campaign {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.campaign
}

// Run drives the campaign to its end (or until ctx ends) and returns it.
func (c *Coordinator) Run(ctx context.Context) (store.Campaign, error) {
	camp, err := c.run(ctx)
	if ctx.Err() != nil && camp.State != store.StateDone {
		// Whatever the loops said on the way out, the campaign was stopped.
		err = fmt.Errorf("%w: campaign %s is saved in the store; run the same command again to resume", ErrInterrupted, camp.ID)
	}
	return camp, err
}

func (c *Coordinator) run(ctx context.Context) (store.Campaign, error) {
	camp := c.Campaign()
	c.mu.Lock()
	c.ctx = ctx
	c.started, c.busy0, c.judged0 = time.Now(), map[string]time.Duration{}, map[string]int{}
	for name, o := range camp.Stats.Oracles {
		c.busy0[name], c.judged0[name] = o.Elapsed, o.Judged
	}
	c.mu.Unlock()
	if camp.State == store.StateDone {
		return c.Campaign(), nil
	}
	if err := queue.Setup(ctx, c.js, c.opts.Queue); err != nil {
		return c.Campaign(), err
	}
	if c.gen != nil {
		go c.gen.Sweep.Warm(camp.Config.Domains)
	}
	if err := c.waitWorkers(ctx); err != nil {
		return c.Campaign(), err
	}
	loopCtx, stopLoops := context.WithCancel(ctx)
	var wg sync.WaitGroup
	stop := func() { stopLoops(); wg.Wait() } // the loops write the store: Run ends after them
	defer stop()
	// The loops that make cases stop first, before the last check of a
	// drain: a case stored as the campaign turned done would never be judged.
	prodCtx, stopProd := context.WithCancel(loopCtx)
	var prodWG sync.WaitGroup
	quiesce := func() { stopProd(); prodWG.Wait() }
	loops := []func(context.Context) error{c.resultsLoop, c.deadLoop, c.unknownDeadLoop, c.refreshWorkers}
	producers := []func(context.Context) error{c.inputsLoop, c.generateLoop}
	errs := make(chan error, len(loops)+len(producers))
	for _, loop := range loops {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- loop(loopCtx) }()
	}
	for _, loop := range producers {
		wg.Add(1)
		prodWG.Add(1)
		go func() { defer wg.Done(); defer prodWG.Done(); errs <- loop(prodCtx) }()
	}
	stopTriage := c.startTriage(ctx, errs)
	defer stopTriage()
	if err := c.start(ctx); err != nil {
		stop()
		return c.Campaign(), c.writeHalt(err)
	}
	err := c.drive(ctx, errs, quiesce)
	stop()
	if err == nil && c.triage != nil {
		err = c.tail(ctx, stopTriage)
	}
	return c.Campaign(), err
}

// start judges the seeds of a new campaign, adopts the imported cases no
// campaign judged yet, and enqueues them with what a crash left unenqueued.
func (c *Coordinator) start(ctx context.Context) error {
	// Republish before the seeds: their jobs, just published, would be
	// owed too, and every seed judged twice.
	c.reload()
	if err := c.republish(ctx); err != nil {
		return err
	}
	camp := c.Campaign()
	if c.opts.Seeds {
		if err := c.seed(ctx, camp); err != nil {
			return err
		}
	}
	if _, err := c.opts.Store.AdoptImported(camp.ID, camp.Config.Domains); err != nil {
		return err
	}
	c.reload()
	left, err := c.opts.Store.Unenqueued(camp.ID)
	if err != nil {
		return err
	}
	return c.enqueue(ctx, left, true)
}

// seed stores and enqueues the domains' seed values, once per campaign, in
// one pass: a store transaction and a mark per domain took 0.3 to 3 s each
// on a loaded machine, most of a campaign's start.
func (c *Coordinator) seed(ctx context.Context, camp store.Campaign) error {
	if camp.Stats.Cases > 0 {
		return nil // resumed: stored before
	}
	var recs []store.CaseRecord
	now := time.Now().UTC()
	for _, name := range camp.Config.Domains {
		d, ok := fuzz.Lookup(name)
		if !ok {
			return fmt.Errorf("unknown domain %q", name)
		}
		var inputs [][]byte
		for _, v := range d.Seeds() {
			inputs = append(inputs, v.Encode())
		}
		rs, err := caseRecords(queue.Inputs{Campaign: camp.ID, Domain: name, Source: store.SeedSource, Inputs: inputs}, now)
		if err != nil {
			return err
		}
		recs = append(recs, rs...)
	}
	return c.addRecords(ctx, camp.ID, recs)
}

// republish sends again the jobs of a resumed campaign whose verdicts never
// came, to the oracles live workers offer: after a crash, or with the NATS
// data lost, they may be nowhere else. A job still on the stream is judged
// twice and stored once.
func (c *Coordinator) republish(ctx context.Context) error {
	camp := c.Campaign()
	if camp.Stats.Outstanding() <= 0 {
		return nil
	}
	owed, err := c.opts.Store.Unjudged(camp.ID)
	if err != nil {
		return err
	}
	for oracle, recs := range owed {
		byDomain := map[string][]store.CaseRecord{}
		for _, r := range recs {
			if slices.Contains(c.oraclesFor(r.Domain), oracle) {
				byDomain[r.Domain] = append(byDomain[r.Domain], r)
			}
		}
		for dom, rs := range byDomain {
			if err := c.publishJobs(ctx, camp, oracle, dom, rs); err != nil {
				return err
			}
			c.log.Info("republished jobs a crash left unjudged", "oracle", oracle, "domain", dom, "cases", len(rs))
		}
	}
	return nil
}

// ErrInterrupted is Run's error when its context was cancelled (Ctrl-C,
// SIGTERM): nothing is lost, and a run on the same store resumes.
var ErrInterrupted = errors.New("interrupted")

// ErrIncomplete is Run's error when the drain timeout passed with jobs that
// live workers could still judge: the campaign stays draining, and a run on
// the same store resumes it.
var ErrIncomplete = errors.New("campaign incomplete")

// finishDrain ends a drain that timed out: jobs for oracles no live worker
// offers become dead letters (nobody will judge them), and the campaign is
// done only if nothing else is owed.
func (c *Coordinator) finishDrain() error {
	camp := c.Campaign()
	owed, err := c.opts.Store.Unjudged(camp.ID)
	if err != nil {
		return err
	}
	left := map[string]int{} // by oracle
	for oracle, recs := range owed {
		var orphans []store.Pair
		for _, r := range recs {
			if slices.Contains(c.oraclesFor(r.Domain), oracle) {
				left[oracle]++
			} else {
				orphans = append(orphans, store.Pair{Case: r.ID, Oracle: oracle})
			}
		}
		if len(orphans) == 0 {
			continue
		}
		dl := store.DeadLetter{Campaign: camp.ID, Subject: "drain", Time: time.Now().UTC(),
			Reason: fmt.Sprintf("no live worker offers %s: %d jobs given up at the drain timeout", oracle, len(orphans))}
		if err := c.opts.Store.AddDeadLetter(dl, orphans); err != nil {
			return err
		}
	}
	c.reload()
	if len(left) > 0 {
		return fmt.Errorf("%w: the drain timeout (%s) passed with jobs unjudged: %s; run again on the same store to resume",
			ErrIncomplete, c.drainTimeout(), c.owing(left))
	}
	return c.done()
}

// ErrNotJudged is Run's error when a campaign that owes no job did not
// judge what it made: cases stored that no job was created for (no live
// worker offers a judge of their domain), or no verdict at all. It is not
// done: a run on the same store, once a worker offers a judge, resumes it.
var ErrNotJudged = errors.New("campaign did not judge its cases")

// done ends a campaign that owes nothing, unless it judged nothing or left
// cases unenqueued: then it stays draining and says why (ErrNotJudged).
func (c *Coordinator) done() error {
	camp := c.Campaign()
	left, err := c.opts.Store.Unenqueued(camp.ID)
	if err != nil {
		return err
	}
	var why string
	switch {
	case len(left) > 0:
		doms := map[string]bool{}
		for _, r := range left {
			doms[r.Domain] = true
		}
		why = fmt.Sprintf("%d of its %d cases were stored and never enqueued (domains %s)",
			len(left), camp.Stats.Cases, strings.Join(slices.Sorted(maps.Keys(doms)), ", "))
	case camp.Stats.Judged == 0 && (camp.Stats.Cases > 0 || len(c.judgeNames()) == 0):
		// A campaign with nothing new to judge (a rerun that only minimizes
		// what the last one left) is done when it has judges.
		why = fmt.Sprintf("no verdict came for its %d cases (%d jobs, %d given up as dead letters)",
			camp.Stats.Cases, camp.Stats.Enqueued, camp.Stats.DeadCases)
	default:
		c.setState(store.StateDone)
		return nil
	}
	return fmt.Errorf("%w: %s; %s; run again on the same store once a worker offers a judge",
		ErrNotJudged, why, c.judges())
}

// judgeNames lists the judges live workers offer for the campaign's
// domains.
func (c *Coordinator) judgeNames() []string {
	var names []string
	for _, d := range c.Campaign().Config.Domains {
		for _, o := range c.oraclesFor(d) {
			if !slices.Contains(names, o) {
				names = append(names, o)
			}
		}
	}
	return names
}

// judges names the judges live workers offer for the campaign, or says
// that none does.
func (c *Coordinator) judges() string {
	names := c.judgeNames()
	out := "no worker advertised a judge of its domains and oracles"
	if len(names) > 0 {
		slices.Sort(names)
		out = "judges offered now: " + strings.Join(names, ", ")
	}
	for _, q := range c.Campaign().Quarantine {
		out += fmt.Sprintf("; worker %s is quarantined (%s)", q.Worker, q.Reason)
	}
	return out
}

// owing says who owes the jobs left, by oracle: how many, and the live
// workers that offer it (the ones to look at).
func (c *Coordinator) owing(left map[string]int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, oracle := range slices.Sorted(maps.Keys(left)) {
		var by []string
		for _, w := range c.workers {
			if !c.campaign.Quarantined(w.Worker) && slices.ContainsFunc(w.Oracles, func(s oracles.Status) bool { return s.Name == oracle && s.Available }) {
				by = append(by, w.Worker)
			}
		}
		slices.Sort(by)
		parts = append(parts, fmt.Sprintf("%s owes %d (offered by %s)", oracle, left[oracle], strings.Join(by, ", ")))
	}
	return strings.Join(parts, "; ")
}

// drive schedules fuzz slices until the duration is spent, then drains.
// The drain ends only after quiesce has stopped the loops that make cases
// and a check after it still finds nothing owed.
func (c *Coordinator) drive(ctx context.Context, errs <-chan error, quiesce func()) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	c.mu.Lock()
	c.generating = true
	c.mu.Unlock()
	var drainStart, lastCheck time.Time
	quiesced := false
	for {
		select {
		case <-ctx.Done():
			return c.saveElapsed(time.Since(last))
		case err := <-errs:
			if err != nil {
				return err
			}
		case now := <-tick.C:
			if err := c.halted(); err != nil {
				return err
			}
			if err := c.saveElapsed(now.Sub(last)); err != nil {
				return c.writeHalt(err)
			}
			if now.Sub(lastCheck) >= time.Second {
				if err := c.spotChecks(ctx); err != nil && ctx.Err() == nil {
					return c.writeHalt(err)
				}
				lastCheck = now
			}
			last = now
			camp := c.Campaign()
			switch camp.State {
			case store.StateRunning:
				if camp.Elapsed >= camp.Config.Duration {
					c.setState(store.StateDraining)
					drainStart = now
					c.triage.endGeneration(now)
					continue
				}
				if err := c.scheduleFuzz(ctx); err != nil && ctx.Err() == nil {
					c.log.Warn("schedule fuzz", "err", err)
				}
			case store.StateDraining:
				if drainStart.IsZero() {
					drainStart = now
					c.triage.endGeneration(now)
				}
				timedOut := now.Sub(drainStart) > c.drainTimeout()
				if !timedOut && camp.Stats.Outstanding() > 0 {
					continue
				}
				// Stranded cases are looked for only once the producers have
				// stopped: before, a case a producer has stored and is still
				// enqueueing looks stranded, and the two enqueues race. The
				// first mark wins, and a sampled judge's job sent by the loser
				// comes back as a verdict nobody asked for (a dead letter).
				if !quiesced {
					quiesce()
					quiesced = true
					if c.enqueueStranded(ctx) {
						continue
					}
					camp = c.Campaign()
				}
				// A producer's last batch may have been enqueued while it
				// stopped: that is more to wait for, not a timeout.
				if camp.Stats.Outstanding() > 0 {
					if !timedOut {
						continue
					}
					return c.finishDrain()
				}
				return c.done()
			}
		}
	}
}

// ErrHalted is Run's error when the campaign cannot go on, whatever it
// waits for: its store cannot be written (a full disk) or a worker cannot
// do its work (a NATS permission it lacks). Nothing was acked that was not
// committed; once the cause is fixed, a run on the same store resumes.
var ErrHalted = errors.New("campaign stopped")

// halted returns why the campaign cannot go on, or nil. Many loops write
// the store and nak what they could not commit; the store keeps the first
// failed write, so one check here stops the campaign, rather than a drain
// timeout much later that names no cause.
func (c *Coordinator) halted() error {
	if err := c.opts.Store.WriteErr(); err != nil {
		return fmt.Errorf("%w: %w; free space (or fix the disk), then run again on the same store to resume", ErrHalted, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.workers {
		if w.Fault != "" {
			return fmt.Errorf("%w: worker %s cannot work: %s; fix it, then run again on the same store to resume", ErrHalted, w.Worker, w.Fault)
		}
	}
	return nil
}

// writeHalt is err, or, when err is the store's failed write, the campaign
// halted on it (see halted).
func (c *Coordinator) writeHalt(err error) error {
	if errors.Is(err, store.ErrWrite) {
		return cmp.Or(c.halted(), err)
	}
	return err
}

// enqueueStranded enqueues the campaign's stored cases whose jobs were never
// created (an enqueue that failed on the last delivery of its inputs). It
// reports whether there is more to wait for: jobs it enqueued, or an enqueue
// that failed again.
func (c *Coordinator) enqueueStranded(ctx context.Context) bool {
	before := c.Campaign().Stats.Enqueued
	left, err := c.opts.Store.Unenqueued(c.Campaign().ID)
	if err == nil && len(left) > 0 {
		err = c.enqueue(ctx, left, true)
	}
	if err != nil {
		c.log.Warn("enqueue stranded cases; will retry", "err", err)
		return true
	}
	return c.Campaign().Stats.Enqueued > before
}

func (c *Coordinator) drainTimeout() time.Duration {
	if c.opts.DrainTimeout > 0 {
		return c.opts.DrainTimeout
	}
	return 5 * time.Minute
}

// saveElapsed adds generation or drain time and persists the campaign
// record.
func (c *Coordinator) saveElapsed(d time.Duration) error {
	return c.update(func(camp *store.Campaign) {
		switch camp.State {
		case store.StateRunning:
			camp.Elapsed += d
		case store.StateDraining:
			camp.Draining += d
		}
	})
}

func (c *Coordinator) setState(s string) {
	if err := c.update(func(camp *store.Campaign) { camp.State = s }); err != nil {
		c.log.Error("save campaign state", "err", err)
	}
	c.log.Info("campaign state", "state", s)
}

// update changes the stored campaign and refreshes the cached copy.
func (c *Coordinator) update(f func(*store.Campaign)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	stored, err := c.opts.Store.UpdateCampaign(c.campaign.ID, f)
	if err != nil {
		return err
	}
	c.campaign = stored
	return nil
}

// reload refreshes the cached campaign after a store transaction changed it.
func (c *Coordinator) reload() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stored, ok, err := c.opts.Store.GetCampaign(c.campaign.ID); err == nil && ok {
		c.campaign = stored
	}
}

// waitWorkers waits until some worker advertises, so jobs go to oracles that
// exist.
func (c *Coordinator) waitWorkers(ctx context.Context) error {
	deadline := time.Now().Add(c.opts.WaitWorkers)
	for {
		ws, err := queue.Workers(ctx, c.js)
		if err != nil {
			return err
		}
		if len(ws) > 0 || time.Now().After(deadline) {
			c.setWorkers(ws)
			if len(ws) == 0 {
				c.log.Warn("no worker advertised yet; jobs are created as workers appear")
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Coordinator) setWorkers(ws []queue.Capability) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.workers = ws
}

// refreshWorkers keeps the list of live workers current.
func (c *Coordinator) refreshWorkers(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(queue.HeartbeatPeriod()):
		}
		if ws, err := queue.Workers(ctx, c.js); err == nil {
			c.setWorkers(ws)
		}
	}
}

// oraclesFor lists the oracles that live workers offer for a domain, within
// the campaign's oracle list.
func (c *Coordinator) oraclesFor(domainName string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, w := range c.workers {
		if c.campaign.Quarantined(w.Worker) {
			continue // its jobs are for others; with none, the drain names what is owed
		}
		for _, s := range w.Oracles {
			if !s.Available || !slices.Contains(s.Domains, domainName) {
				continue
			}
			named := slices.Contains(c.campaign.Config.Oracles, s.Name)
			if len(c.campaign.Config.Oracles) > 0 && !named || s.ReplayOnly && !named {
				continue // an older release's judge replays buckets only
			}
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// sampled reports whether a live worker advertises the oracle as a sampled
// judge (oracles.Info.Sampled): one the campaign never waits for.
func (c *Coordinator) sampled(oracle string) bool { return c.advertised(oracle).Sampled }

// sampleOneIn is the share of a domain's cases the oracle gets: one in the
// number returned (oracles.Status.SampleOneIn), or every case (1) when no
// other installation's oracle of its base (llc@trunk for llc@23) among
// judges, the domain's, judges it in full.
func (c *Coordinator) sampleOneIn(oracle string, judges []string) int {
	n := c.advertised(oracle).SampleOneIn
	if n <= 1 {
		return 1
	}
	for _, o := range judges {
		if o != oracle && oracles.Base(o) == oracles.Base(oracle) && c.advertised(o).SampleOneIn <= 1 {
			return n
		}
	}
	return 1
}

// advertised is what a live worker advertises for the oracle; the zero
// Status when none does.
func (c *Coordinator) advertised(oracle string) oracles.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out oracles.Status
	for _, w := range c.workers {
		for _, s := range w.Oracles {
			if s.Name == oracle {
				out.Sampled = out.Sampled || s.Sampled
				out.SampleOneIn = max(out.SampleOneIn, s.SampleOneIn)
			}
		}
	}
	return out
}

// backlog is the oracle's enqueued cases not yet judged.
func backlog(camp store.Campaign, oracle string) int {
	s := camp.Stats.Oracles[oracle]
	if s == nil {
		return 0
	}
	return s.Enqueued - s.Judged - s.Held
}

func (c *Coordinator) fuzzWorkers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, w := range c.workers {
		if w.Fuzz {
			n++
		}
	}
	return n
}

// consumeBatches hands messages over in batches: it waits for one, then takes
// whatever else has already arrived, up to 64, so their effects can share
// one store transaction without waiting for a batch to fill.
func (c *Coordinator) consumeBatches(ctx context.Context, cons jetstream.Consumer, handle func([]jetstream.Msg)) error {
	msgs := make(chan jetstream.Msg, 64) // a full batch waits; more waits in the pull (queue.PullBytes)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done(): // unacked: redelivered to whoever consumes next
		}
	}, queue.Pull())
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	defer cc.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-msgs:
			batch := []jetstream.Msg{m}
			for more := true; more && len(batch) < 64; {
				select {
				case m := <-msgs:
					batch = append(batch, m)
				default:
					more = false
				}
			}
			handle(batch)
		}
	}
}

// verdictsOK checks that a result's verdicts are answers to this campaign's
// jobs (known, from one read of the store): each for a case of the campaign
// and an oracle its job was enqueued for, or, before the enqueue is marked, an
// oracle a live worker offers for the case's domain. Anything else is garbage
// or forged (an oracle nobody runs, another campaign's case), and kept out of
// the findings.
func (c *Coordinator) verdictsOK(res queue.Result, known map[string]store.CaseRecord) error {
	camp := c.Campaign().ID
	for _, v := range res.Verdicts {
		if v.Oracle != res.Oracle {
			return fmt.Errorf("verdict from %q in a result of %q", v.Oracle, res.Oracle)
		}
		r, ok := known[v.Case]
		if !ok || r.Campaign != camp {
			return fmt.Errorf("verdict for case %q, which is not this campaign's", v.Case)
		}
		if !c.enqueuedFor(r, res.Oracle) {
			return fmt.Errorf("verdict of %s for case %q, which no job of this campaign asked %s for", res.Oracle, v.Case, res.Oracle)
		}
		switch v.Kind {
		case oracles.Accept, oracles.Reject, oracles.Unsupported, oracles.Error, oracles.Timeout, oracles.Result:
		default:
			return fmt.Errorf("unknown verdict kind %q", v.Kind)
		}
	}
	for _, b := range res.Bad { // counted as dead cases: only jobs of ours
		r, ok := known[b.ID]
		if !ok || r.Campaign != camp {
			return fmt.Errorf("undecodable report for case %q, which is not this campaign's", b.ID)
		}
		if !c.enqueuedFor(r, res.Oracle) {
			return fmt.Errorf("undecodable report of %s for case %q, which no job of this campaign asked %s for", res.Oracle, b.ID, res.Oracle)
		}
	}
	return nil
}

// enqueuedFor reports whether the case's jobs went, or are going, to oracle.
func (c *Coordinator) enqueuedFor(r store.CaseRecord, oracle string) bool {
	if r.Enqueued != nil {
		return slices.Contains(r.Enqueued, oracle)
	}
	return slices.Contains(c.oraclesFor(r.Domain), oracle) // published, not yet marked
}

// caseRecords decodes raw fuzz inputs into case records of one domain.
func caseRecords(in queue.Inputs, now time.Time) ([]store.CaseRecord, error) {
	d, ok := fuzz.Lookup(in.Domain)
	if !ok {
		return nil, fmt.Errorf("unknown domain %q", in.Domain)
	}
	var recs []store.CaseRecord
	for _, data := range in.Inputs {
		v, err := d.Decode(data)
		if err != nil {
			continue // bytes that fit no value: not a case
		}
		canon := v.Encode()
		recs = append(recs, store.CaseRecord{ID: domain.ID(d.Name, canon), Domain: d.Name, Data: canon,
			Campaign: in.Campaign, Source: in.Source, Seen: now})
	}
	return recs, nil
}
