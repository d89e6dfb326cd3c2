package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// resultsLoop commits results to the store, then acks them: a crash between
// the two redelivers them, and the store skips what it already has. All the
// results of one fetch are committed in one transaction.
func (c *Coordinator) resultsLoop(ctx context.Context) error {
	cons, err := queue.ResultConsumer(ctx, c.js, c.opts.Queue, c.Campaign().ID)
	if err != nil {
		return err
	}
	return c.consumeBatches(ctx, cons, c.handleResults)
}

// handleResults validates a fetch's results, commits the valid ones together
// and acks them; garbage becomes dead letters one by one.
func (c *Coordinator) handleResults(ms []jetstream.Msg) {
	results := make([]queue.Result, len(ms))
	errs := make([]error, len(ms))
	var ids []string
	for i, m := range ms {
		results[i], errs[i] = queue.Decode[queue.Result](m.Data())
		for _, v := range results[i].Verdicts {
			ids = append(ids, v.Case)
		}
		for _, b := range results[i].Bad {
			ids = append(ids, b.ID)
		}
	}
	known, err := c.opts.Store.Cases(ids)
	var dropped map[string]bool
	if err == nil {
		dropped, err = c.opts.Store.Dropped(ids)
	}
	if err != nil {
		c.log.Error("read store; results will be redelivered", "err", err)
		nakAll(ms)
		return
	}
	var good, held []jetstream.Msg
	var commits []store.Commit
	var heldResults []queue.Result
	var dead letters
	defer c.recordDead(&dead)
	for i, m := range ms {
		if errs[i] == nil {
			results[i] = c.withoutDropped(results[i], dropped)
			errs[i] = c.verdictsOK(results[i], known)
		}
		if errs[i] != nil {
			dead.add(c, m, fmt.Sprintf("result: %v", errs[i]), nil)
			continue
		}
		if !c.recordBad(m, results[i]) {
			continue
		}
		switch res := results[i]; {
		case res.Check != "":
			c.answered(res)
			_ = m.Ack() // a lost answer is a check sent again (checkTimeout)
		case c.Campaign().Quarantined(res.Worker):
			c.refuse(m, res, &dead)
		case c.opts.Rejudge > 0:
			held, heldResults = append(held, m), append(heldResults, res)
		default:
			good = append(good, m)
			commits = append(commits, c.commitOf(res))
		}
	}
	c.holdAndAck(held, heldResults)
	c.commitAndAck(good, commits, &dead)
}

// holdAndAck keeps results until their workers' word is checked
// (rejudge.go), and acks them once they are on disk.
func (c *Coordinator) holdAndAck(ms []jetstream.Msg, results []queue.Result) {
	if len(ms) == 0 {
		return
	}
	if err := c.hold(results); err != nil {
		c.log.Error("hold results; they will be redelivered", "err", err)
		nakAll(ms)
		return
	}
	for _, m := range ms {
		_ = m.Ack()
	}
}

// refuse makes a quarantined worker's result a dead letter that gives up no
// pair, and sends its jobs again to the others.
func (c *Coordinator) refuse(m jetstream.Msg, res queue.Result, dead *letters) {
	if err := c.rejudge(c.ctxOrBackground(), res.Oracle, res.Domain, res.Verdicts); err != nil {
		c.log.Error("send again a quarantined worker's jobs; its result will be redelivered", "err", err)
		_ = m.NakWithDelay(time.Second)
		return
	}
	dead.add(c, m, fmt.Sprintf("result: worker %s is quarantined; its jobs were sent again", res.Worker), nil)
}

// recordBad stores, as a dead letter, the cases of a result that its worker
// could not decode; false means the store failed and the message was nak'ed.
func (c *Coordinator) recordBad(m jetstream.Msg, res queue.Result) bool {
	if len(res.Bad) == 0 {
		return true
	}
	dl := store.DeadLetter{Campaign: c.Campaign().ID, Subject: m.Subject(), Time: time.Now().UTC(), Message: queue.MessageID(m),
		Reason: fmt.Sprintf("%d cases of batch %s could not be decoded by worker %s: %s", len(res.Bad), res.Batch, res.Worker, res.Bad[0].Error)}
	var pairs []store.Pair
	for _, bad := range res.Bad {
		pairs = append(pairs, store.Pair{Case: bad.ID, Oracle: res.Oracle})
	}
	if err := c.opts.Store.AddDeadLetter(dl, pairs); err != nil {
		c.log.Error("store dead letter", "err", err)
		_ = m.NakWithDelay(time.Second)
		return false
	}
	return true
}

// commitOf is the store commit of one result, findings judged by the policy,
// its verdicts' quotes clipped (a worker may not be ours).
func (c *Coordinator) commitOf(res queue.Result) store.Commit {
	return c.commitIn(c.Campaign().ID, res)
}

// commitIn is commitOf for the campaign named: what a store transaction
// calls, which must not wait for the coordinator's lock (update holds it
// while it waits for the store).
func (c *Coordinator) commitIn(campaign string, res queue.Result) store.Commit {
	return store.Commit{Verdicts: oracles.Clip(res.Verdicts), Campaign: campaign, Now: time.Now().UTC(), Oracle: res.Oracle, Elapsed: res.Elapsed,
		Judged: func(cs domain.Case, vs []oracles.Verdict) []policy.Disagreement {
			if len(vs) == 0 {
				return nil
			}
			return c.opts.Policies.For(vs[0].Domain).Evaluate(cs, vs)
		}}
}

// withoutDropped leaves out of a result its verdicts and bad reports for
// cases the store settled and dropped, when its oracle is one the campaign
// asks about their domain: every job of such a case was judged and
// committed, so these are a redelivery, counted once already (as a
// duplicate verdict of a stored case is skipped). Any other oracle's are
// left for verdictsOK to refuse.
func (c *Coordinator) withoutDropped(res queue.Result, dropped map[string]bool) queue.Result {
	if len(dropped) == 0 {
		return res
	}
	redelivered := func(id, domainName string) bool {
		return dropped[id] && slices.Contains(c.oraclesFor(domainName), res.Oracle)
	}
	res.Verdicts = slices.DeleteFunc(slices.Clone(res.Verdicts), func(v oracles.Verdict) bool {
		return v.Oracle == res.Oracle && redelivered(v.Case, v.Domain)
	})
	res.Bad = slices.DeleteFunc(slices.Clone(res.Bad), func(b queue.BadCase) bool { return redelivered(b.ID, res.Domain) })
	return res
}

// commitAndAck commits the results in one transaction and acks them only
// once it is on disk. A result the store refuses for a reason of its own
// (store.ResultError) becomes a dead letter with that reason, its pairs
// dead, and the others are committed without it: it never blocks them.
func (c *Coordinator) commitAndAck(ms []jetstream.Msg, commits []store.Commit, dead *letters) {
	for len(ms) > 0 {
		outs, err := c.opts.Store.CommitMany(commits)
		var own *store.ResultError
		if errors.As(err, &own) {
			i := own.Index
			dead.add(c, ms[i], fmt.Sprintf("result: cannot be stored: %v", own.Err), commitPairs(commits[i]))
			ms, commits = slices.Delete(ms, i, i+1), slices.Delete(commits, i, i+1)
			continue
		}
		if err != nil {
			c.log.Error("commit verdicts; results will be redelivered", "err", err)
			nakAll(ms)
			return
		}
		c.committed(commits, outs)
		for _, m := range ms {
			_ = m.Ack()
		}
		return
	}
}

// committed notes what a commit changed: the cached campaign, the metrics,
// the generator's corpus and the log of new buckets.
func (c *Coordinator) committed(commits []store.Commit, outs []store.CommitResult) {
	c.reload()
	c.metrics.observe(commits, outs)
	for _, out := range outs {
		if c.gen != nil {
			c.gen.Add(out.NewCorpus)
		}
		for _, b := range out.NewBuckets {
			c.log.Info("new bucket", "bucket", b.Key, "title", b.Title)
			c.triage.add(b.Key)
		}
	}
}

// commitPairs are the (case, oracle) pairs a commit's verdicts answer.
func commitPairs(cm store.Commit) []store.Pair {
	pairs := make([]store.Pair, len(cm.Verdicts))
	for i, v := range cm.Verdicts {
		pairs[i] = store.Pair{Case: v.Case, Oracle: v.Oracle}
	}
	return pairs
}

func nakAll(ms []jetstream.Msg) {
	for _, m := range ms {
		_ = m.NakWithDelay(time.Second)
	}
}

// letters collects the dead letters of one fetch, to be recorded in one
// store transaction: a storm of garbage costs a disk sync per fetch, not
// per message, and does not hold up the results queued behind it.
type letters struct {
	msgs  []jetstream.Msg
	dls   []store.DeadLetter
	pairs [][]store.Pair
}

// add collects an unprocessable message with the (case, oracle) pairs it
// gives up.
func (l *letters) add(c *Coordinator, m jetstream.Msg, reason string, pairs []store.Pair) {
	c.log.Warn("dead letter", "subject", m.Subject(), "reason", reason)
	l.msgs = append(l.msgs, m)
	l.dls = append(l.dls, store.DeadLetter{Campaign: c.Campaign().ID, Subject: m.Subject(), Reason: reason, Data: m.Data(),
		Time: time.Now().UTC(), Message: queue.MessageID(m)})
	l.pairs = append(l.pairs, pairs)
}

// recordDead stores the collected messages and terminates them; if the
// store fails they are redelivered. A message redelivered after it was
// stored (a crash before the Term, or an ack deadline passed while it
// waited behind a backlog) is stored once.
func (c *Coordinator) recordDead(l *letters) {
	if len(l.msgs) == 0 {
		return
	}
	if err := c.opts.Store.AddDeadLetters(l.dls, l.pairs); err != nil {
		c.log.Error("store dead letters", "err", err)
		nakAll(l.msgs)
		return
	}
	c.reload()
	for _, m := range l.msgs {
		_ = m.Term()
	}
}

// deadLoop records the dead letters workers send.
func (c *Coordinator) deadLoop(ctx context.Context) error {
	return c.consumeDead(ctx, c.Campaign().ID)
}

// unknownDeadLoop records the dead letters of messages whose campaign a
// worker could not read (garbage jobs), in the campaign running when they
// came; coordinators running at the same time share them.
func (c *Coordinator) unknownDeadLoop(ctx context.Context) error {
	return c.consumeDead(ctx, queue.UnknownCampaign)
}

func (c *Coordinator) consumeDead(ctx context.Context, campaign string) error {
	cons, err := queue.DeadConsumer(ctx, c.js, c.opts.Queue, campaign)
	if err != nil {
		return err
	}
	return c.consumeBatches(ctx, cons, func(ms []jetstream.Msg) {
		var l letters
		for _, m := range ms {
			dl, err := queue.Decode[queue.DeadLetter](m.Data())
			if err != nil {
				l.add(c, m, fmt.Sprintf("dead letter: %v", err), nil)
				continue
			}
			var dead []store.Pair
			if job, err := queue.Decode[queue.Job](dl.Data); err == nil {
				if dead, err = c.jobPairs(job); err != nil {
					c.log.Error("read store; dead letters will be redelivered", "err", err)
					nakAll(ms)
					return
				}
			}
			l.add(c, m, fmt.Sprintf("worker %s: %s (on %s)", dl.Worker, dl.Reason, dl.Subject), dead)
		}
		c.recordDead(&l)
	})
}

// jobPairs are the (case, oracle) pairs of a dead job that are jobs of this
// campaign: cases of its, enqueued for the job's oracle or, before the mark,
// going to it (Coordinator.enqueuedFor, as for a verdict). The store counts
// those it has not judged as dead; a forged dead letter naming the
// campaign's cases for an oracle nobody runs counts for nothing, even while
// the cases' enqueue is not yet marked. A case the job names more than once
// is one pair.
func (c *Coordinator) jobPairs(job queue.Job) ([]store.Pair, error) {
	ids := make([]string, len(job.Cases))
	for i, wc := range job.Cases {
		ids[i] = wc.ID
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	known, err := c.opts.Store.Cases(ids)
	if err != nil {
		return nil, err
	}
	camp := c.Campaign().ID
	var pairs []store.Pair
	for _, id := range ids {
		if r, ok := known[id]; ok && r.Campaign == camp && c.enqueuedFor(r, job.Oracle) {
			pairs = append(pairs, store.Pair{Case: id, Oracle: job.Oracle})
		}
	}
	return pairs, nil
}

// inputsLoop turns new fuzz inputs into cases and jobs, then acks them.
func (c *Coordinator) inputsLoop(ctx context.Context) error {
	cons, err := queue.InputsConsumer(ctx, c.js, c.opts.Queue, c.Campaign().ID)
	if err != nil {
		return err
	}
	return c.consumeBatches(ctx, cons, func(ms []jetstream.Msg) {
		var dead letters
		defer c.recordDead(&dead)
		for _, m := range ms {
			in, err := queue.Decode[queue.Inputs](m.Data())
			if err == nil && in.Campaign != c.Campaign().ID {
				err = fmt.Errorf("inputs for campaign %q", in.Campaign)
			}
			if _, ok := fuzz.Lookup(in.Domain); err == nil && !ok { // never decodable: not worth a redelivery
				err = fmt.Errorf("unknown domain %q", in.Domain)
			}
			if err != nil {
				dead.add(c, m, fmt.Sprintf("inputs: %v", err), nil)
				continue
			}
			if err := c.addInputs(ctx, in); err != nil {
				if ctx.Err() == nil { // stopping: the redelivery is expected
					c.log.Warn("add inputs; will be redelivered", "err", err)
				}
				_ = m.NakWithDelay(time.Second)
				continue
			}
			_ = m.Ack()
		}
	})
}

// addInputs stores the new cases among the inputs and enqueues their jobs:
// those of every case of the inputs that this campaign stored and has not
// enqueued yet, so that inputs redelivered after a failed enqueue (their
// cases stored by the first try) still get their jobs.
func (c *Coordinator) addInputs(ctx context.Context, in queue.Inputs) error {
	recs, err := caseRecords(in, time.Now().UTC())
	if err != nil {
		return err
	}
	return c.addRecords(ctx, in.Campaign, recs)
}

// addRecords is addInputs for case records already made: the path every
// generator's cases take.
func (c *Coordinator) addRecords(ctx context.Context, campaign string, recs []store.CaseRecord) error {
	added, err := c.opts.Store.AddCases(campaign, recs)
	if err != nil {
		return err
	}
	c.reload()
	fresh := map[string]bool{}
	for _, r := range added {
		fresh[r.ID] = true
	}
	var left, stranded []store.CaseRecord
	seen := map[string]bool{}
	for _, r := range recs {
		stored, ok, err := c.opts.Store.Case(r.ID)
		if err != nil {
			return err
		}
		switch {
		case !ok || seen[r.ID] || stored.Campaign != campaign || stored.ByMinimizer():
		case stored.Enqueued != nil:
			if r.Source == store.SweepSource {
				// A row the campaign had made otherwise: the judges that
				// sample left out judge it now.
				stored.Source = r.Source
				left = append(left, stored)
			}
		case fresh[r.ID]:
			left = append(left, stored)
		default: // stored by an earlier delivery whose enqueue failed part way
			stranded = append(stranded, stored)
		}
		seen[r.ID] = true
	}
	if err := c.enqueue(ctx, left, false); err != nil {
		return err
	}
	return c.enqueue(ctx, stranded, true)
}

// enqueue publishes one job per (oracle, domain, batch) for the cases, then
// marks them enqueued for those oracles. An oracle added to a case already
// marked (a lattice row the campaign had made otherwise, for the judge its
// sample left out) is marked before its job goes out: a verdict that came
// back before the mark was refused, its whole result a dead letter, and
// the result's other pairs stayed owed (a 60 s campaign ended incomplete,
// 71 pairs of amdgpu-mc@23 owed, none queued). A crash between that mark
// and the publish leaves the pair owed, and a resume republishes it.
// Cases of a domain no live oracle
// judges stay unenqueued until a restart finds one. Every judge gets the
// cases a lattice sweep made; a sampled judge gets the others as offered
// says. One narrowed to a sample (Status.SampleOneIn, unless the campaign names it)
// only the cases in its sample: the others are marked without it, so
// nothing waits for it and nothing sends them to it later.
//
// Stranded cases (stored, never marked: a crash or a failed enqueue came
// between their publish and their mark) may have jobs on the queue
// already, for a sampled judge too: they go to every judge, paced or not,
// so that the verdict of such a job is one the campaign asked for (a real
// sass verdict was dead-lettered after a resume decided without sass). The
// sample by case ID applies to them too: it is the same draw every time,
// and a producer that finds a case another producer has stored but not
// yet marked takes it for stranded: it gives the case every sampled judge,
// and its mark adds those the first producer's mark left out.
func (c *Coordinator) enqueue(ctx context.Context, recs []store.CaseRecord, stranded bool) error {
	byDomain := map[string][]store.CaseRecord{}
	for _, r := range recs {
		byDomain[r.Domain] = append(byDomain[r.Domain], r)
	}
	camp := c.Campaign()
	p := c.pacing(camp)
	type jobs struct {
		oracle, dom string
		recs        []store.CaseRecord
	}
	var plan []jobs
	sweepJudges := c.sweepJudges()
	added, marked := map[string][]string{}, map[string][]string{}
	for dom, rs := range byDomain {
		all := c.oraclesFor(dom)
		every, rest := splitEvery(rs)
		for _, o := range all {
			mine := slices.DeleteFunc(slices.Clone(every), func(r store.CaseRecord) bool { return slices.Contains(r.Enqueued, o) })
			mine = append(mine, c.sample(camp, o, all, c.offered(p, o, rest, stranded, sweepJudges[o]))...)
			if len(mine) == 0 {
				continue
			}
			plan = append(plan, jobs{o, dom, mine})
			for _, r := range mine {
				if r.Enqueued != nil {
					added[r.ID] = append(added[r.ID], o)
				} else {
					marked[r.ID] = append(marked[r.ID], o)
				}
			}
		}
		// A case no judge had room for is marked too, for none: left
		// unmarked it looks stranded, and the drain sends it to every
		// judge.
		for _, r := range rs {
			if _, ok := marked[r.ID]; !ok && r.Enqueued == nil {
				marked[r.ID] = []string{}
			}
		}
	}
	if err := c.mark(camp.ID, added); err != nil {
		return err
	}
	for _, j := range plan {
		if err := c.publishJobs(ctx, camp, j.oracle, j.dom, j.recs); err != nil {
			return err
		}
	}
	return c.mark(camp.ID, marked)
}

// offered is the part of the cases not every judge judges that the oracle
// is offered (its sample is taken of them after): all of them for a judge
// that paces generation, and for stranded cases; for a sampled judge none
// while its backlog is at the pacing bound, and while the lattice sweep of
// any domain it judges goes on only the seeds, so that its time goes to the
// rows it must judge all of. (Taking mutation's cases too, the slow judges
// were full of them, and an 8-minute campaign never began the sweep of two
// domains; taking those of domains swept already, one queue for all its
// domains stayed full of them, and a 30-minute one never began matdesc's.)
func (c *Coordinator) offered(p pace, oracle string, recs []store.CaseRecord, stranded, sweeps bool) []store.CaseRecord {
	switch {
	case stranded || !c.sampled(oracle):
		return recs
	case p.full(oracle):
		return nil
	case sweeps:
		return slices.DeleteFunc(slices.Clone(recs), func(r store.CaseRecord) bool { return r.Source != store.SeedSource })
	}
	return recs
}

// mark marks the cases enqueued for the oracles listed.
func (c *Coordinator) mark(campaign string, oraclesByCase map[string][]string) error {
	if len(oraclesByCase) == 0 {
		return nil
	}
	if err := c.opts.Store.MarkEnqueued(campaign, oraclesByCase); err != nil {
		return err
	}
	c.reload()
	return nil
}

// splitEvery separates the cases every judge judges, sampled ones too
// and whatever its queue holds, from the rest: the lattice sweep's rows (a
// sweep that a judge sees one case in four of covers a quarter of its
// pairs).
func splitEvery(recs []store.CaseRecord) (every, rest []store.CaseRecord) {
	for _, r := range recs {
		if r.Source == store.SweepSource {
			every = append(every, r)
		} else {
			rest = append(rest, r)
		}
	}
	return every, rest
}

// sample is the part of recs the oracle gets: those in its sample when it
// is narrowed to one (Status.SampleOneIn) and the campaign does not name
// it, else all.
func (c *Coordinator) sample(camp store.Campaign, o string, judges []string, recs []store.CaseRecord) []store.CaseRecord {
	if n := c.sampleOneIn(o, judges); n > 1 && !slices.Contains(camp.Config.Oracles, o) {
		return slices.DeleteFunc(slices.Clone(recs), func(r store.CaseRecord) bool { return !oracles.InSample(r.ID, n) })
	}
	return recs
}

// publishJobs publishes the cases' jobs for one oracle and domain, in
// batches of the campaign's size.
func (c *Coordinator) publishJobs(ctx context.Context, camp store.Campaign, oracle, dom string, rs []store.CaseRecord) error {
	cases := make([]queue.WireCase, len(rs))
	for i, r := range rs {
		cases[i] = queue.WireCase{ID: r.ID, Data: r.Data}
	}
	job := queue.Job{Campaign: camp.ID, Oracle: oracle, Domain: dom, Cases: cases, NotBy: c.quarantined()}
	return queue.PublishJobs(ctx, c.js, job, camp.Config.BatchSize)
}

// scheduleFuzz keeps one fuzz slice queued per fuzz worker. The domain is
// drawn by Weight, so domains still producing get more time. A domain's
// first slice is short (a minute shared by the domains, at least
// minFirstSlice), so every domain is explored early in any campaign.
func (c *Coordinator) scheduleFuzz(ctx context.Context) error {
	workers := c.fuzzWorkers()
	if workers == 0 || !fuzzOn(c.Campaign().Config) {
		return nil
	}
	cons, err := queue.FuzzConsumer(ctx, c.js, c.opts.Queue)
	if err != nil {
		return err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return err
	}
	if info.NumPending > 0 || info.NumAckPending >= workers {
		return nil
	}
	camp := c.Campaign()
	dom := c.pickDomain(camp)
	d, ok := fuzz.Lookup(dom)
	if !ok {
		return fmt.Errorf("unknown domain %q", dom)
	}
	slice := min(camp.Config.FuzzSlice, camp.Config.Duration-camp.Elapsed)
	if p := camp.Stats.Domains[dom]; p == nil || p.FuzzTime == 0 {
		slice = min(slice, max(minFirstSlice, time.Minute/time.Duration(len(camp.Config.Domains))))
	}
	if slice < time.Second {
		return nil
	}
	job := queue.FuzzJob{V: queue.Version, Campaign: camp.ID, Domain: dom, Target: d.FuzzTarget, Slice: slice}
	if _, err := c.js.Publish(ctx, queue.FuzzSubject(dom), queue.Encode(job)); err != nil {
		return err
	}
	c.mu.Lock()
	c.fuzzing = dom
	c.mu.Unlock()
	return c.update(func(camp *store.Campaign) { camp.Domain(dom).FuzzTime += slice })
}

// minFirstSlice is the shortest first slice: the engine spends about a
// second loading its corpus before it fuzzes.
const minFirstSlice = 3 * time.Second

// Weight is a domain's share of fuzz time: 1 + cases found + 10 × (new
// features + new buckets) per minute of fuzzing so far.
func Weight(s store.DomainStats) float64 {
	minutes := max(s.FuzzTime.Minutes(), 0.25)
	return 1 + (float64(s.Cases)+10*float64(s.Features+s.NewBuckets))/minutes
}

func (c *Coordinator) pickDomain(camp store.Campaign) string {
	weights := make([]float64, len(camp.Config.Domains))
	for i, d := range camp.Config.Domains {
		s := store.DomainStats{}
		if p := camp.Stats.Domains[d]; p != nil {
			s = *p
		}
		if s.FuzzTime == 0 {
			weights[i] = 1e9 // every domain gets a first slice
		} else {
			weights[i] = Weight(s)
		}
	}
	return c.draw(camp.Config.Domains, weights)
}
