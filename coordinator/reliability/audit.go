package reliability

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Audit is what a store proves about one campaign's bookkeeping after a
// soak, read from the store alone: its figures, and every violation of the
// invariants that nothing is lost, nothing forged is kept and nothing is
// counted twice. A store audited holds that one campaign (the soak's fresh
// store): every verdict and bucket in it must be the campaign's.
type Audit struct {
	Campaign string `json:"campaign"`
	State    string `json:"state"`
	// Cases are the campaign's cases, stored or settled and dropped (its
	// night's ledger counts those); Pairs its enqueued (case, oracle) jobs;
	// Verdicts and DeadPairs what settled them.
	Cases     int `json:"cases"`
	Pairs     int `json:"pairs"`
	Verdicts  int `json:"verdicts"`
	DeadPairs int `json:"dead_pairs"`
	// DeadLetters are the campaign's dead letters; ForgedDeadLetters those
	// (of any campaign) whose message or reason carries the forger's marker.
	DeadLetters       int `json:"dead_letters"`
	ForgedDeadLetters int `json:"forged_dead_letters"`
	Buckets           int `json:"buckets"`
	Findings          int `json:"findings"`
	// Minimized are the minimized cases of the campaign's buckets, and
	// MinimizedVerdicts the minimizer's re-check verdicts: stored under the
	// campaign and outside its counters (no job asked for them).
	Minimized         int `json:"minimized"`
	MinimizedVerdicts int `json:"minimized_verdicts"`

	// Lost counts enqueued pairs with neither a verdict nor a dead mark,
	// and stored cases never enqueued.
	Lost int `json:"lost"`
	// Double counts pairs with both a verdict and a dead mark, buckets
	// whose case count differs from their members, and stream messages
	// recorded as two dead letters.
	Double int `json:"double"`
	// ForgedKept counts verdicts, dead marks and buckets no job of the
	// campaign accounts for: the marker in a verdict or bucket, an oracle
	// outside the campaign, a pair never enqueued, a case not the campaign's.
	ForgedKept int `json:"forged_kept"`
	// Miscounted counts counters of the campaign that differ from what the
	// store holds (judged, dead cases, enqueued, cases, findings, dead
	// letters).
	Miscounted int `json:"miscounted"`
	// Violations say what each count above is made of (the first few of
	// each kind), and any bbolt consistency error.
	Violations []string `json:"violations"`
}

// OK reports whether every invariant held.
func (a Audit) OK() bool { return len(a.Violations) == 0 }

// maxExamples bounds the violations listed per kind.
const maxExamples = 10

// auditor accumulates an Audit.
type auditor struct {
	Audit
	marker   string
	allowed  []string // the campaign's oracles
	shown    map[string]int
	dead     map[store.Pair]bool
	verdicts map[store.Pair]bool
	enqueued map[string][]string // the campaign's stored cases: the oracles each was enqueued for
	tallied  int                 // the stored cases its tally holds
	// minimizedOf maps the minimized case of each of the campaign's
	// buckets to the bucket's key.
	minimizedOf map[string]string
}

// violation counts one violation into *n and lists it, up to maxExamples of
// its kind.
func (a *auditor) violation(n *int, kind, format string, args ...any) {
	*n++
	if a.shown[kind] < maxExamples {
		a.Violations = append(a.Violations, kind+": "+fmt.Sprintf(format, args...))
	} else if a.shown[kind] == maxExamples {
		a.Violations = append(a.Violations, kind+": more not shown")
	}
	a.shown[kind]++
}

// AuditCampaign audits campaign in db. marker is the string every forged
// message carries in its diagnostics (empty: none is looked for); oracles
// outside the campaign's configured list are forged wherever they appear.
func AuditCampaign(db *store.Store, campaign, marker string) (Audit, error) {
	camp, ok, err := db.GetCampaign(campaign)
	if err != nil {
		return Audit{}, err
	}
	if !ok {
		return Audit{}, fmt.Errorf("no campaign %q in the store", campaign)
	}
	a := &auditor{Audit: Audit{Campaign: campaign, State: camp.State, Violations: []string{}}, marker: marker,
		allowed: camp.Config.Oracles, shown: map[string]int{}, dead: map[store.Pair]bool{},
		verdicts: map[store.Pair]bool{}, enqueued: map[string][]string{}}
	if camp.State != store.StateDone {
		a.Violations = append(a.Violations, fmt.Sprintf("state: campaign %s is %s, not done", campaign, camp.State))
	}
	if a.minimizedOf, err = minimizedCases(db, campaign); err != nil {
		return a.Audit, err
	}
	dead, err := db.DeadPairs()
	if err != nil {
		return a.Audit, err
	}
	for _, p := range dead {
		a.dead[p] = true
	}
	if err := db.ForEachCase(a.auditCase(campaign)); err != nil {
		return a.Audit, err
	}
	ledger, err := a.auditDropped(db, campaign)
	if err != nil {
		return a.Audit, err
	}
	a.auditDead()
	if err := a.auditBuckets(db, campaign); err != nil {
		return a.Audit, err
	}
	if err := a.auditDeadLetters(db, campaign); err != nil {
		return a.Audit, err
	}
	_, total, err := db.Counts()
	if err != nil {
		return a.Audit, err
	}
	if kept := a.Verdicts - ledger.Verdicts; total != kept+a.MinimizedVerdicts {
		a.violation(&a.ForgedKept, "stray verdicts", "the store holds %d verdicts, %d of them for the campaign's cases and %d the minimizer's",
			total, kept, a.MinimizedVerdicts)
	}
	a.auditCounters(camp.Stats, a.DeadLetters)
	if err := db.Check(); err != nil {
		a.Violations = append(a.Violations, "bbolt: "+err.Error())
	}
	return a.Audit, nil
}

// auditCase checks one stored case: enqueued, each pair settled exactly
// once, each verdict an answer to one of its jobs.
func (a *auditor) auditCase(campaign string) func(store.CaseRecord, []oracles.Verdict) error {
	return func(r store.CaseRecord, vs []oracles.Verdict) error {
		if r.Campaign != campaign {
			for _, v := range vs {
				a.violation(&a.ForgedKept, "verdict outside the campaign", "case %s of campaign %q has a verdict of %s", r.ID, r.Campaign, v.Oracle)
			}
			return nil
		}
		if bucket, ok := r.MinimizedFor(); ok {
			a.auditMinimized(r, bucket, vs)
			return nil
		}
		a.Cases++
		if r.Tallied {
			a.tallied++
		}
		a.enqueued[r.ID] = r.Enqueued
		if r.Enqueued == nil {
			a.violation(&a.Lost, "never enqueued", "case %s (%s) was stored and never enqueued", r.ID, r.Domain)
		}
		for _, v := range vs {
			if !slices.Contains(r.Enqueued, v.Oracle) && a.minimizedOf[r.ID] != "" {
				a.auditMinimizerVerdict(r, v) // a case the minimizer could not shrink, re-checked
				continue
			}
			a.Verdicts++
			a.verdicts[store.Pair{Case: r.ID, Oracle: v.Oracle}] = true
			switch {
			case !slices.Contains(r.Enqueued, v.Oracle):
				a.violation(&a.ForgedKept, "verdict never asked for", "case %s has a verdict of %s, enqueued only for %q", r.ID, v.Oracle, r.Enqueued)
			case !a.oracleAllowed(v.Oracle):
				a.violation(&a.ForgedKept, "verdict of a foreign oracle", "case %s has a verdict of %s, not an oracle of the campaign", r.ID, v.Oracle)
			case a.forged(v.Rule, v.Diagnostic, v.Value, v.Version):
				a.violation(&a.ForgedKept, "forged verdict", "case %s: %s's verdict carries the forger's marker", r.ID, v.Oracle)
			}
		}
		for _, o := range r.Enqueued {
			p := store.Pair{Case: r.ID, Oracle: o}
			a.Pairs++
			switch {
			case a.verdicts[p] && a.dead[p]:
				a.violation(&a.Double, "verdict and dead", "pair (%s, %s) has a verdict and is counted dead", r.ID, o)
			case !a.verdicts[p] && !a.dead[p]:
				a.violation(&a.Lost, "lost pair", "pair (%s, %s) was enqueued and has neither a verdict nor a dead letter", r.ID, o)
			}
		}
		return nil
	}
}

// auditDropped adds the campaign's settled and dropped cases, as its
// ledger counts them, and checks what the ledger and the tally can show:
// every dropped pair had its verdict, and the tally folded every settled
// case, dropped or kept, once.
func (a *auditor) auditDropped(db *store.Store, campaign string) (store.Ledger, error) {
	nights, err := db.Nights()
	if err != nil {
		return store.Ledger{}, err
	}
	n := nights[campaign]
	l := n.Ledger
	a.Cases += l.Dropped
	a.Pairs += l.Pairs
	a.Verdicts += l.Verdicts
	if l.Pairs != l.Verdicts {
		a.violation(&a.Lost, "dropped pairs", "the ledger dropped %d cases with %d pairs and %d verdicts", l.Dropped, l.Pairs, l.Verdicts)
	}
	if want := l.Dropped + a.tallied; n.Tally.Cases != want {
		a.violation(&a.Double, "tally miscounted", "the tally folded %d cases; %d were dropped and %d kept settled", n.Tally.Cases, l.Dropped, a.tallied)
	}
	return l, nil
}

// auditMinimized checks a case the minimizer stored for bucket: the
// bucket is the campaign's and names it minimized, and its verdicts are
// the re-checks of the campaign's oracles. It counts in none of the
// campaign's counters.
func (a *auditor) auditMinimized(r store.CaseRecord, bucket string, vs []oracles.Verdict) {
	a.Minimized++
	if a.minimizedOf[r.ID] != bucket {
		a.violation(&a.ForgedKept, "minimized case of no bucket", "case %s says it was minimized for bucket %s, which does not name it", r.ID, bucket)
	}
	for _, v := range vs {
		a.auditMinimizerVerdict(r, v)
	}
}

// auditMinimizerVerdict checks one re-check verdict of a minimized case.
func (a *auditor) auditMinimizerVerdict(r store.CaseRecord, v oracles.Verdict) {
	a.MinimizedVerdicts++
	switch {
	case !a.oracleAllowed(v.Oracle):
		a.violation(&a.ForgedKept, "verdict of a foreign oracle", "minimized case %s has a verdict of %s, not an oracle of the campaign", r.ID, v.Oracle)
	case a.forged(v.Rule, v.Diagnostic, v.Value, v.Version):
		a.violation(&a.ForgedKept, "forged verdict", "minimized case %s: %s's verdict carries the forger's marker", r.ID, v.Oracle)
	}
}

// minimizedCases maps the minimized case of each of campaign's buckets to
// the bucket's key.
func minimizedCases(db *store.Store, campaign string) (map[string]string, error) {
	buckets, err := db.Buckets()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, b := range buckets {
		if b.Campaign == campaign && b.Minimized != "" {
			out[b.Minimized] = b.Key
		}
	}
	return out, nil
}

// auditDead checks that every dead mark is a pair the campaign enqueued.
func (a *auditor) auditDead() {
	for p := range a.dead {
		orcs, ok := a.enqueued[p.Case]
		if !ok || !slices.Contains(orcs, p.Oracle) {
			a.violation(&a.ForgedKept, "dead mark never asked for", "pair (%s, %s) is counted dead and is no job of the campaign", p.Case, p.Oracle)
			continue
		}
		a.DeadPairs++
	}
}

// auditBuckets checks that every bucket is the campaign's, of its oracles,
// free of the marker, and counts each member case once.
func (a *auditor) auditBuckets(db *store.Store, campaign string) error {
	buckets, err := db.Buckets()
	if err != nil {
		return err
	}
	byCase, err := db.Members()
	if err != nil {
		return err
	}
	var unstored []string
	for caseID := range byCase {
		if _, ok := a.enqueued[caseID]; !ok {
			unstored = append(unstored, caseID)
		}
	}
	// A bucket keeps a few members (store.KeepMembers); the others settled
	// and were dropped, counted in the ledger: the store holds one campaign.
	dropped, err := db.Dropped(unstored)
	if err != nil {
		return err
	}
	members := map[string]int{}
	for caseID, keys := range byCase {
		for _, k := range keys {
			members[k]++
			if _, ok := a.enqueued[caseID]; !ok && !dropped[caseID] {
				a.violation(&a.ForgedKept, "foreign finding", "bucket %s has case %s, not a case of the campaign", k, caseID)
			}
		}
	}
	for _, b := range buckets {
		a.Buckets++
		if b.Campaign == campaign {
			a.Findings += b.Cases
		}
		sig := b.Signature
		tools := append(strings.Split(sig.Tool, "~"), sig.Pair.A, sig.Pair.B)
		for _, t := range tools {
			if t != "" && !a.oracleAllowed(t) {
				a.violation(&a.ForgedKept, "forged bucket", "bucket %q names %s, not an oracle of the campaign", b.Title, t)
			}
		}
		if a.forged(append([]string{b.Title, sig.Diag, sig.DiagA, sig.DiagB, sig.RuleA, sig.RuleB}, b.AltTitles...)...) {
			a.violation(&a.ForgedKept, "forged bucket", "bucket %q carries the forger's marker", b.Title)
		}
		if b.Cases != members[b.Key] {
			a.violation(&a.Double, "bucket miscounted", "bucket %q counts %d cases and has %d members", b.Title, b.Cases, members[b.Key])
		}
	}
	return nil
}

// auditDeadLetters counts the dead letters, those of forged messages, and
// any stream message recorded twice.
func (a *auditor) auditDeadLetters(db *store.Store, campaign string) error {
	dls, err := db.DeadLetters()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, dl := range dls {
		if dl.Campaign == campaign {
			a.DeadLetters++
		}
		if a.forged(dl.Reason, string(dl.Data)) {
			a.ForgedDeadLetters++
		}
		if dl.Message == "" {
			continue
		}
		key := dl.Message + "\x00" + dl.Subject + "\x00" + string(dl.Data)
		if seen[key] {
			a.violation(&a.Double, "dead letter recorded twice", "message %s on %s (%s)", dl.Message, dl.Subject, dl.Reason)
		}
		seen[key] = true
	}
	return nil
}

// auditCounters compares the campaign's counters with what the store holds.
func (a *auditor) auditCounters(st store.Stats, letters int) {
	for _, c := range []struct {
		name        string
		count, have int
	}{
		{"cases", st.Cases, a.Cases},
		{"enqueued", st.Enqueued, a.Pairs},
		{"judged", st.Judged, a.Verdicts},
		{"dead cases", st.DeadCases, a.DeadPairs},
		{"findings", st.Findings, a.Findings},
		{"dead letters", st.DeadLetters, letters},
	} {
		if c.count != c.have {
			a.violation(&a.Miscounted, "counter", "the campaign counts %d %s, the store holds %d", c.count, c.name, c.have)
		}
	}
}

func (a *auditor) oracleAllowed(name string) bool {
	return len(a.allowed) == 0 || slices.Contains(a.allowed, name)
}

// forged reports whether any of the texts carries the marker.
func (a *auditor) forged(texts ...string) bool {
	if a.marker == "" {
		return false
	}
	for _, s := range texts {
		if strings.Contains(s, a.marker) {
			return true
		}
	}
	return false
}
