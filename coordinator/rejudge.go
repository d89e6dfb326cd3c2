package coordinator

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Spot re-judging: a worker's word is checked before it counts. With
// Options.Rejudge set, every result waits in the store (store.Hold) until
// a spot check of its lane (one worker, oracle and domain) agrees. A check
// is sent for a lane when one of its results was drawn (a Rejudge share of
// them), when its oldest result has waited holdMax, and during the drain;
// it judges again, by another worker of the same oracle (or by the
// coordinator's own, Options.Arbiter, when no other worker offers it), the
// newest held result's cases, every case of a held result that would open
// a bucket, and one case of each other held result. When the two disagree,
// the arbiter replays the case here, and the side the tool contradicts is
// quarantined: its held results are deleted and their jobs sent again,
// with NotBy naming it, and its later results are dead letters.

// holdMax bounds how long a lane's results wait for a check when none of
// them was drawn; checkTimeout is how long a check sent to a worker may go
// unanswered before it is judged here (or sent again).
const (
	holdMax      = 10 * time.Second
	checkTimeout = 30 * time.Second
	// checkSpread caps the cases a check takes from the older held results
	// of its lane, beside the newest result's and the bucket openers'.
	checkSpread = 256
)

// drawn reports whether a held result is among the Rejudge share: a draw
// by its lane and number, the same on every run.
func (c *Coordinator) drawn(h store.Held) bool {
	sum := sha256.Sum256(binary.BigEndian.AppendUint64([]byte(h.Lane()), h.Seq))
	return float64(binary.BigEndian.Uint64(sum[:8]))/float64(^uint64(0)) < c.opts.Rejudge
}

// hold keeps good results of workers whose word is not yet checked; the
// caller acks them once it returns nil.
func (c *Coordinator) hold(results []queue.Result) error {
	hs := make([]store.Held, len(results))
	now, camp := time.Now().UTC(), c.Campaign().ID // not the result's word
	for i, r := range results {
		hs[i] = store.Held{Campaign: camp, Worker: r.Worker, Oracle: r.Oracle, Domain: r.Domain, Verdicts: oracles.Clip(r.Verdicts), Elapsed: r.Elapsed, Time: now}
	}
	hs, err := c.opts.Store.Hold(hs)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range hs {
		if c.drawn(h) {
			c.wantCheck[h.Lane()] = true
		}
	}
	return nil
}

// answered records a check's answer for spotChecks; a stale answer (its
// check released or replaced), one by the worker checked or by a
// quarantined worker is dropped: it proves nothing.
func (c *Coordinator) answered(res queue.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.campaign.Quarantined(res.Worker) {
		return
	}
	c.answers[res.Check] = append(c.answers[res.Check], res)
}

// spotChecks settles the checks answered, sends checks where lanes need
// them, and judges here those whose worker never answered. It runs on the
// campaign's tick, one step at a time, so that no two decisions race.
func (c *Coordinator) spotChecks(ctx context.Context) error {
	if c.opts.Rejudge <= 0 {
		return nil
	}
	checks, err := c.opts.Store.Checks()
	if err != nil {
		return err
	}
	inFlight := map[string]bool{}
	for _, ck := range checks {
		done, err := c.settleCheck(ctx, ck)
		if err != nil {
			return err
		}
		if !done {
			inFlight[ck.Lane] = true
		}
	}
	lanes, err := c.opts.Store.HeldLanes()
	if err != nil {
		return err
	}
	draining := c.Campaign().State != store.StateRunning
	for _, lane := range slices.Sorted(maps.Keys(lanes)) {
		c.mu.Lock()
		want := c.wantCheck[lane] || draining || time.Since(lanes[lane].Oldest) > holdMax
		c.mu.Unlock()
		if inFlight[lane] || !want {
			continue
		}
		hs, err := c.opts.Store.HeldOf(lane)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			continue
		}
		if err := c.sendCheck(ctx, lane, hs); err != nil {
			return err
		}
	}
	return nil
}

// resend drops a check in flight and asks for a new one of its lane.
func (c *Coordinator) resend(ck store.Check) error {
	c.mu.Lock()
	c.wantCheck[ck.Lane] = true
	c.mu.Unlock()
	return c.opts.Store.DropCheck(ck.ID)
}

// settleCheck acts on a check's answer, if one came: it releases the lane
// or quarantines whoever the tool contradicts. A check unanswered for
// checkTimeout is judged here, when the arbiter has its oracle. done
// reports that the check is no longer in flight.
func (c *Coordinator) settleCheck(ctx context.Context, ck store.Check) (done bool, err error) {
	c.mu.Lock()
	answers := c.answers[ck.ID]
	delete(c.answers, ck.ID)
	c.mu.Unlock()
	var answer *queue.Result
	for _, a := range answers {
		if a.Worker != ck.Worker {
			answer = &a
			break
		}
	}
	if answer == nil {
		if time.Since(ck.Sent) < checkTimeout {
			return false, nil
		}
		a, ok, err := c.judgeHere(ctx, ck)
		if err != nil {
			return false, err
		}
		if !ok { // send it again, to whoever takes it now
			return true, c.resend(ck)
		}
		answer = &a
	}
	return true, c.decide(ctx, ck, *answer)
}

// judgeHere judges a check's cases with the arbiter: the check of a lane
// no other worker offers, or one a worker never answered. ok is false when
// the arbiter lacks the oracle.
func (c *Coordinator) judgeHere(ctx context.Context, ck store.Check) (queue.Result, bool, error) {
	cases, err := c.checkCases(ck.Claims)
	if err != nil || c.opts.Arbiter == nil || len(cases) == 0 {
		return queue.Result{}, false, err
	}
	byCase, err := c.opts.Arbiter.Judge(ctx, cases, []string{ck.Oracle})
	if err != nil {
		c.log.Warn("spot check cannot be judged here", "oracle", ck.Oracle, "err", err)
		return queue.Result{}, false, nil
	}
	res := queue.Result{Worker: arbiterName, Oracle: ck.Oracle, Domain: ck.Domain, Check: ck.ID}
	for _, vs := range byCase {
		res.Verdicts = append(res.Verdicts, vs...)
	}
	return res, true, nil
}

// arbiterName names the coordinator's own judge in checks and quarantines.
const arbiterName = "coordinator"

// checkCases are the claims' cases, decoded from the store.
func (c *Coordinator) checkCases(claims []oracles.Verdict) ([]domain.Case, error) {
	ids := make([]string, len(claims))
	for i, v := range claims {
		ids[i] = v.Case
	}
	recs, err := c.opts.Store.Cases(ids)
	if err != nil {
		return nil, err
	}
	var out []domain.Case
	for _, id := range ids {
		r, ok := recs[id]
		if !ok {
			continue // settled by another result of its pair since: nothing to check
		}
		d, v, err := r.Decode()
		if err != nil {
			continue
		}
		out = append(out, domain.NewCase(d.Name, v))
	}
	return out, nil
}

// sendCheck sends a check of a lane's held results: to another worker
// offering the oracle, or, when none does, judged here at once.
func (c *Coordinator) sendCheck(ctx context.Context, lane string, hs []store.Held) error {
	last := hs[len(hs)-1]
	claims, err := c.claims(hs)
	if err != nil {
		return err
	}
	ck := store.Check{ID: fmt.Sprintf("check-%s-%d-%d", c.Campaign().ID, last.Seq, time.Now().UnixNano()), Lane: lane,
		Worker: last.Worker, Oracle: last.Oracle, Domain: last.Domain, UpTo: last.Seq, Claims: claims, Sent: time.Now().UTC()}
	c.mu.Lock()
	delete(c.wantCheck, lane)
	c.mu.Unlock()
	if len(claims) == 0 { // only timeouts, or cases settled since: nothing a check can compare
		return c.release(ck)
	}
	if !c.otherJudge(ck.Oracle, ck.Worker) {
		a, ok, err := c.judgeHere(ctx, ck)
		if err != nil {
			return err
		}
		if !ok {
			c.log.Warn("no other judge of the oracle: the worker's word is taken", "worker", ck.Worker, "oracle", ck.Oracle)
			return c.release(ck)
		}
		return c.decide(ctx, ck, a)
	}
	cases, err := c.checkCases(claims)
	if err != nil {
		return err
	}
	wire := make([]queue.WireCase, len(cases))
	for i, cs := range cases {
		wire[i] = queue.WireCase{ID: cs.ID, Data: cs.Value.Encode()}
	}
	if err := c.opts.Store.PutCheck(ck); err != nil {
		return err
	}
	job := queue.Job{Campaign: c.Campaign().ID, Oracle: ck.Oracle, Domain: ck.Domain, Cases: wire, Check: ck.ID,
		NotBy: append(c.quarantined(), ck.Worker)}
	return queue.PublishJobs(ctx, c.js, job, len(wire))
}

// claims are what a check judges again of a lane's held results: every
// verdict of the newest and of those whose commit would open a bucket, and
// one of each other, up to checkSpread. A timeout is not a claim: a
// loaded machine's, it says nothing of the worker.
func (c *Coordinator) claims(hs []store.Held) ([]oracles.Verdict, error) {
	commits := make([]store.Commit, len(hs))
	for i, h := range hs {
		commits[i] = c.heldCommit(h)
	}
	outs, err := c.opts.Store.DryRun(commits)
	if err != nil {
		return nil, err
	}
	var claims []oracles.Verdict
	spread := 0
	for i, h := range hs {
		vs := h.Verdicts
		if i < len(hs)-1 && len(outs[i].NewBuckets) == 0 {
			if spread >= checkSpread || len(vs) == 0 {
				continue
			}
			spread++
			vs = vs[int(h.Seq)%len(vs):][:1]
		}
		for _, v := range vs {
			if v.Kind != oracles.Timeout {
				claims = append(claims, v)
			}
		}
	}
	return claims, nil
}

// otherJudge reports whether a live worker other than the one checked, and
// not quarantined, offers the oracle.
func (c *Coordinator) otherJudge(oracle, checked string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.workers {
		if w.Worker == checked || c.campaign.Quarantined(w.Worker) {
			continue
		}
		if slices.ContainsFunc(w.Oracles, func(s oracles.Status) bool { return s.Name == oracle && s.Available }) {
			return true
		}
	}
	return false
}

// heldCommit is the store commit of a held result; it takes no lock, so a
// store transaction may call it.
func (c *Coordinator) heldCommit(h store.Held) store.Commit {
	return c.commitIn(h.Campaign, queue.Result{Oracle: h.Oracle, Domain: h.Domain, Verdicts: h.Verdicts, Elapsed: h.Elapsed})
}

// release commits a checked lane's results up to the check.
func (c *Coordinator) release(ck store.Check) error {
	commits, outs, err := c.opts.Store.Release(ck.Lane, ck.UpTo, c.heldCommit)
	if err != nil {
		return err
	}
	c.committed(commits, outs)
	return nil
}

// sameWord reports whether two verdicts of one case say the same: kind and
// rule, on the same version; a timeout on either side proves nothing.
func sameWord(a, b oracles.Verdict) bool {
	return a.Kind == b.Kind && a.Rule == b.Rule || a.Version != b.Version || a.Kind == oracles.Timeout || b.Kind == oracles.Timeout
}

// decide compares a check's answer with the claims. Agreement releases the
// lane. On a disagreement the arbiter replays the case here: the side it
// contradicts is quarantined (the lane is released when that is the
// checker); when it cannot replay the case, or the tool gives a third
// answer, the worker's word is kept.
func (c *Coordinator) decide(ctx context.Context, ck store.Check, answer queue.Result) error {
	said := map[string]oracles.Verdict{}
	for _, v := range answer.Verdicts {
		said[v.Case] = v
	}
	for _, claim := range ck.Claims {
		other, ok := said[claim.Case]
		if !ok || sameWord(claim, other) {
			continue
		}
		tool, ok := c.replay(ctx, claim)
		switch {
		case ok && sameWord(tool, other) && !sameWord(tool, claim):
			return c.quarantine(ctx, ck.Worker, claim, fmt.Sprintf("case %s: it said %s, %s says %s here (and %s said %s)",
				claim.Case, word(claim), claim.Oracle, word(tool), answer.Worker, word(other)))
		case ok && sameWord(tool, claim) && answer.Worker != arbiterName:
			// The checker lied: the rest of its answer proves nothing, so
			// the lane waits for a check by someone else.
			if err := c.quarantine(ctx, answer.Worker, other, fmt.Sprintf("case %s: it said %s in a spot check, %s says %s here (and %s said %s)",
				claim.Case, word(other), claim.Oracle, word(tool), ck.Worker, word(claim))); err != nil {
				return err
			}
			return c.resend(ck)
		default:
			c.log.Warn("spot check disagrees and the tool does not settle it; the worker's word is kept",
				"worker", ck.Worker, "checker", answer.Worker, "case", claim.Case, "said", word(claim), "checker said", word(other))
		}
	}
	if err := c.update(func(camp *store.Campaign) { camp.Stats.SpotChecks++ }); err != nil {
		return err
	}
	return c.release(ck)
}

// word is a verdict as a log or a quarantine says it.
func word(v oracles.Verdict) string {
	if v.Rule != "" {
		return string(v.Kind) + " (" + v.Rule + ")"
	}
	return string(v.Kind)
}

// replay judges the claim's case here with the arbiter; ok is false when it
// cannot.
func (c *Coordinator) replay(ctx context.Context, claim oracles.Verdict) (oracles.Verdict, bool) {
	cases, err := c.checkCases([]oracles.Verdict{claim})
	if err != nil || len(cases) == 0 || c.opts.Arbiter == nil {
		return oracles.Verdict{}, false
	}
	byCase, err := c.opts.Arbiter.Judge(ctx, cases, []string{claim.Oracle})
	if err != nil || len(byCase[claim.Case]) != 1 {
		return oracles.Verdict{}, false
	}
	return byCase[claim.Case][0], true
}

// quarantine refuses a worker's word from now on: its held results are
// dropped and their jobs sent again, to other workers.
func (c *Coordinator) quarantine(ctx context.Context, worker string, claim oracles.Verdict, reason string) error {
	c.log.Error("worker quarantined: the tool does not give its verdict", "worker", worker, "reason", reason)
	q := store.Quarantine{Worker: worker, Oracle: claim.Oracle, Case: claim.Case, Reason: reason, Time: time.Now().UTC()}
	dropped, err := c.opts.Store.QuarantineWorker(c.Campaign().ID, q)
	if err != nil {
		return err
	}
	c.reload()
	for _, h := range dropped {
		if err := c.rejudge(ctx, h.Oracle, h.Domain, h.Verdicts); err != nil {
			return err
		}
	}
	return nil
}

// rejudge sends again, to workers other than the quarantined, the jobs of
// verdicts the campaign refused.
func (c *Coordinator) rejudge(ctx context.Context, oracle, dom string, vs []oracles.Verdict) error {
	if _, ok := fuzz.Lookup(dom); !ok {
		return nil
	}
	cases, err := c.checkCases(vs)
	if err != nil || len(cases) == 0 {
		return err
	}
	wire := make([]queue.WireCase, len(cases))
	for i, cs := range cases {
		wire[i] = queue.WireCase{ID: cs.ID, Data: cs.Value.Encode()}
	}
	job := queue.Job{Campaign: c.Campaign().ID, Oracle: oracle, Domain: dom, Cases: wire, NotBy: c.quarantined()}
	return queue.PublishJobs(ctx, c.js, job, c.Campaign().Config.BatchSize)
}

// quarantined names the workers whose word the campaign refuses.
func (c *Coordinator) quarantined() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, q := range c.campaign.Quarantine {
		names = append(names, q.Worker)
	}
	return names
}
