// Package reports renders what campaigns and judge runs found: the rule
// agreement matrix, disagreement listings, the claims matrix and full reports
// (HTML with inline SVG plots, Markdown, JSON, JUnit XML) read from a store.
// The counts come from the store's nightly tallies (package tally).
package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Schema names the JSON report's format; it changes only when a field's
// meaning does. Fields are only ever added under the same schema.
const Schema = "legalfuzz-report/1"

// Report is everything a report shows, built from one store. Its JSON form
// (WriteJSON) is the machine-readable report; the other formats render it.
type Report struct {
	Schema    string    `json:"schema"`
	Generated time.Time `json:"generated"`
	Store     string    `json:"store"`
	// Campaign is the reported campaign: its buckets are new.
	Campaign    string               `json:"campaign"`
	Campaigns   []CampaignSummary    `json:"campaigns"`
	Tonight     Tonight              `json:"tonight"`
	Totals      Totals               `json:"totals"`
	Buckets     []BucketReport       `json:"buckets"`
	Claims      []tally.Claim        `json:"claims"`
	ClaimCounts tally.ClaimCounts    `json:"claim_counts"`
	Matrix      tally.Matrix         `json:"agreement_matrix"`
	Coverage    []tally.RuleCoverage `json:"rule_coverage"`
	// Spelled is render coverage: per oracle and domain, the cases judged
	// and why the others were not.
	Spelled []RenderCoverage `json:"render_coverage"`
	// ToolSpelled is render coverage of the tools asked through several
	// entry points (MLIR: nvgpu and nvvm ops): a case is judged when
	// either judged it.
	ToolSpelled []RenderCoverage `json:"tool_coverage,omitempty"`
	// Ops is op coverage, for the domains whose cases are ops (nvvmop):
	// per oracle, the ops it was asked about, judged at least once and
	// that reached llc, and each op's outcome mix.
	Ops []OpCoverage `json:"op_coverage,omitempty"`
	// Sweeps is each domain's lattice sweep in the store: the pairs of
	// values its cases have covered, of those it can cover.
	Sweeps      []Sweep      `json:"lattice_sweeps"`
	Throughput  []Throughput `json:"throughput"`
	Timeline    Timeline     `json:"timeline"`
	DeadLetters []DeadLetter `json:"dead_letters"`
}

// CampaignSummary is one stored campaign.
type CampaignSummary struct {
	ID       string    `json:"id"`
	State    string    `json:"state"`
	Created  time.Time `json:"created"`
	Duration string    `json:"duration"` // configured generation time
	Elapsed  string    `json:"elapsed"`  // generation time spent
	// Draining is the time spent judging what was queued after generation;
	// Wall the time from Created to the end of the run that finished the
	// campaign, minimizing and replaying included ("" until it finished).
	// A resumed campaign's wall time includes the time it was stopped.
	Draining string   `json:"draining"`
	Wall     string   `json:"wall,omitempty"`
	Domains  []string `json:"domains"` // empty: every domain
	Oracles  []string `json:"oracles"` // empty: every available oracle
	Cases    int      `json:"cases"`
	Verdicts int      `json:"verdicts"`
	Findings int      `json:"findings"`
	// NewBuckets counts buckets first seen in this campaign.
	NewBuckets  int `json:"new_buckets"`
	DeadLetters int `json:"dead_letters"`
	Outstanding int `json:"outstanding"` // (case, oracle) jobs not judged
	// Versions are the tool versions the campaign's verdicts came from.
	Versions map[string]string `json:"versions"`
	// Triaged is what the campaign minimized while it generated and after,
	// and the buckets it left not yet minimized; nil when it did not triage.
	Triaged *store.Triaged `json:"triaged,omitempty"`
	// Quarantine names the workers whose word the campaign refused, and
	// why: a spot check found a verdict the tool does not give.
	Quarantine []store.Quarantine `json:"quarantine,omitempty"`
	// SpotChecks counts the spot checks that judged workers' results again.
	SpotChecks int `json:"spot_checks,omitempty"`
}

// Tonight is what changed in the reported run against the run before it
// (or Options.Since): each bucket's store.Tonight* status, counted, and
// the tools whose versions changed. Suppressed buckets are counted too
// (their BucketReport says they are suppressed).
type Tonight struct {
	Campaign  string                 `json:"campaign"`
	Since     string                 `json:"since"`    // the run compared with; empty: none before
	Versions  map[string]string      `json:"versions"` // tonight's tool versions
	Changed   []triage.VersionChange `json:"changed_versions"`
	New       int                    `json:"new"`
	Still     int                    `json:"still"`
	Fixed     int                    `json:"fixed"`
	Regressed int                    `json:"regressed"`
}

// Totals count the whole store. Cases includes the Minimized ones, the
// cases minimization made of buckets' examples; Generated is the others:
// the cases the campaigns judged (seeds, generated, imported).
type Totals struct {
	Cases       int `json:"cases"`
	Generated   int `json:"generated_cases"`
	Minimized   int `json:"minimized_cases"`
	Verdicts    int `json:"verdicts"`
	Buckets     int `json:"buckets"`
	New         int `json:"new_buckets"`
	Known       int `json:"known_buckets"`
	Suppressed  int `json:"suppressed_buckets"`
	DeadLetters int `json:"dead_letters"`
}

// BucketReport is one bucket with its reproducer. Status is triage's:
// triage.StatusNew (first seen in the reported campaign), StatusKnown or
// StatusSuppressed (with the suppression's reason).
type BucketReport struct {
	Key    string `json:"key"`
	Title  string `json:"title"`
	Domain string `json:"domain"`
	Status string `json:"status"`
	// Tonight is the bucket's status in the reported run against the run
	// before (triage.TonightNew, TonightStill, TonightFixed,
	// TonightRegressed, or empty when the run did not look at it); FixedBy
	// names the tool versions a fixed bucket's replay ran with.
	Tonight string `json:"tonight,omitempty"`
	FixedBy string `json:"fixed_by,omitempty"`
	// Class is the bucket's class: a tool bug (crash, miscompile, exit-0-error,
	// too-permissive, too-strict, disputed), a limitation, or seed evidence.
	Class             policy.Class     `json:"class"`
	SuppressionReason string           `json:"suppression_reason,omitempty"`
	Cases             int              `json:"cases"`
	Campaign          string           `json:"campaign"` // where it was first seen
	FirstSeen         time.Time        `json:"first_seen"`
	LastSeen          time.Time        `json:"last_seen"`
	Signature         policy.Signature `json:"signature"`
	Reproducer        Reproducer       `json:"reproducer"`
	// NotYetMinimized says no minimization of the bucket ended yet: its
	// example stands for it, and the next campaign minimizes it first.
	NotYetMinimized bool `json:"not_yet_minimized,omitempty"`
	// FoundIn says which versions of the tool show the bug ("19:
	// reproduces, 22: fixed"), from Versions; NewestReproduces flags a bug
	// the newest version here still has.
	FoundIn          string                 `json:"found_in,omitempty"`
	Versions         []store.VersionVerdict `json:"versions,omitempty"`
	NewestReproduces bool                   `json:"newest_reproduces,omitempty"`
	// Filing says what to do with the bucket (see filing).
	Filing string `json:"filing"`
}

// Reproducer is a bucket's minimized case (its example case when it has not
// been minimized) and what the oracles said about it.
type Reproducer struct {
	Case   string          `json:"case"`
	Domain string          `json:"domain"`
	Source string          `json:"source"`
	Value  json.RawMessage `json:"value"` // the case's JSON form, for legalfuzz check
	// Minimized says Case is the minimized case; Example is the bucket's
	// first case either way. Reliable of ReChecks re-checks of the minimized
	// case showed the same signature; MinimizeNote says why there is none.
	Minimized    bool   `json:"minimized"`
	Example      string `json:"example"`
	Reliable     int    `json:"reliable,omitempty"`
	ReChecks     int    `json:"rechecks,omitempty"`
	MinimizeNote string `json:"minimize_note,omitempty"`
	// Disagreeing names the signature's oracle pair; Verdicts holds every
	// oracle's verdict on the case, the pair's first.
	Disagreeing []string          `json:"disagreeing"`
	Verdicts    []oracles.Verdict `json:"verdicts"`
	Command     string            `json:"command"` // replays the case, given its JSON in case.json
	Problem     string            `json:"problem,omitempty"`
}

// Throughput is one oracle's work summed over every campaign.
type Throughput struct {
	Oracle    string  `json:"oracle"`
	Judged    int     `json:"judged"`
	Seconds   float64 `json:"seconds"`    // time spent on batches
	PerSecond float64 `json:"per_second"` // verdicts per second of that time
}

// Timeline holds cumulative counts over time, thinned to at most
// maxTimelinePoints points each.
type Timeline struct {
	Cases   []TimePoint `json:"cases"`   // cases stored, by each case's Seen time
	Buckets []TimePoint `json:"buckets"` // buckets, by FirstSeen
	// Features and Corpus are the report's campaign's distinct features and
	// corpus entries, by when each first came: the curve that says whether
	// generation still finds new behaviour or has flattened.
	Features []TimePoint `json:"features"`
	Corpus   []TimePoint `json:"corpus"`
}

// TimePoint is a cumulative count at a time.
type TimePoint struct {
	Time  time.Time `json:"time"`
	Count int       `json:"count"`
}

// DeadLetter is a message legalfuzz could not process.
type DeadLetter struct {
	Campaign string    `json:"campaign"`
	Subject  string    `json:"subject"`
	Reason   string    `json:"reason"`
	Time     time.Time `json:"time"`
}

const maxTimelinePoints = 400

// Options shape a report.
type Options struct {
	// Campaign is the campaign whose buckets are new; empty means the most
	// recently created one.
	Campaign string
	// Since is the run the tonight section compares with; empty means the
	// one created before Campaign.
	Since string
	// Suppressions apply on top of the store's own (e.g. a file users keep in
	// their repository); suppressed buckets are still listed and counted.
	Suppressions []store.Suppression
	// StorePath is shown in the report.
	StorePath string
	// Now stamps the report; zero means time.Now().
	Now time.Time
}

// Load reads a store (read-only) and builds the report: the nights' tallies
// (store.Tallies), and one pass over the cases the store holds (buckets'
// members, the corpus, seeds, minimized cases, cases still being judged, and
// every case of a night stored before tallies), folding those no tally
// holds. What it reads does not grow with the cases a night judged and
// dropped.
func Load(s *store.Store, opts Options) (*Report, error) {
	camps, err := s.Campaigns()
	if err != nil {
		return nil, err
	}
	buckets, err := s.Buckets()
	if err != nil {
		return nil, err
	}
	dead, err := s.DeadLetters()
	if err != nil {
		return nil, err
	}
	sups, err := s.Suppressions()
	if err != nil {
		return nil, err
	}
	r := &Report{Schema: Schema, Generated: opts.Now, Store: opts.StorePath}
	if r.Generated.IsZero() {
		r.Generated = time.Now()
	}
	r.Generated = r.Generated.UTC().Truncate(time.Second)
	if r.Campaign, err = pickCampaign(camps, opts.Campaign); err != nil {
		return nil, err
	}
	acc, err := newAccumulator(s, buckets)
	if err != nil {
		return nil, err
	}
	if err := s.ForEachCase(acc.add); err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	r.Campaigns = summarizeCampaigns(camps)
	nights := triage.NewNights(camps)
	since := opts.Since
	if since == "" {
		since = nights.Before(r.Campaign)
	} else if !nights.Has(since) {
		return nil, fmt.Errorf("no campaign %q in the store", since)
	}
	entries := triage.Classify(buckets, r.Campaign, append(sups, opts.Suppressions...))
	nights.Mark(entries, since, r.Campaign)
	r.Buckets = acc.bucketReports(entries)
	r.Tonight = tonight(r, nights, since)
	r.Claims = acc.tally.Claims()
	r.ClaimCounts = tally.CountClaims(r.Claims)
	r.Matrix = acc.tally.Matrix.Matrix()
	r.Coverage = acc.tally.Coverage()
	r.Spelled = acc.tally.Spelled.Coverage()
	r.ToolSpelled = acc.tally.Spelled.ToolCoverage()
	r.Ops = acc.tally.Ops.Coverage()
	if r.Sweeps, err = sweeps(s); err != nil {
		return nil, err
	}
	r.Throughput = throughput(camps)
	r.Timeline = Timeline{Cases: cumulative(acc.tally.Timeline()), Buckets: bucketTimes(buckets)}
	if r.Timeline.Features, r.Timeline.Corpus, err = signalTimes(s, r.Campaign); err != nil {
		return nil, err
	}
	r.DeadLetters = []DeadLetter{}
	for _, d := range dead {
		r.DeadLetters = append(r.DeadLetters, DeadLetter{Campaign: d.Campaign, Subject: d.Subject, Reason: d.Reason, Time: d.Time})
	}
	r.Totals = totals(r, acc)
	return r, nil
}

// Sweep is one domain's lattice sweep (store.Sweep) as reports show it.
type Sweep struct {
	Domain  string `json:"domain"`
	Covered int    `json:"covered"` // pairs of values judged
	Pairs   int    `json:"pairs"`   // pairs the sweep covers when done
	// Percent is Covered of Pairs, rounded down: 100 only when done.
	Percent      int    `json:"percent"`
	Rows         int    `json:"rows"`
	Unrealizable int    `json:"unrealizable"`
	CompletedIn  string `json:"completed_in,omitempty"`
}

// sweeps lists the store's sweeps by domain name.
func sweeps(s *store.Store) ([]Sweep, error) {
	all, err := s.Sweeps()
	if err != nil {
		return nil, err
	}
	out := []Sweep{}
	for _, w := range all {
		sw := Sweep{Domain: w.Domain, Covered: w.Covered, Pairs: w.Pairs, Rows: w.Rows, Unrealizable: w.Unrealizable,
			CompletedIn: w.CompletedIn}
		if w.Pairs > 0 {
			sw.Percent = w.Covered * 100 / w.Pairs
		}
		out = append(out, sw)
	}
	slices.SortFunc(out, func(a, b Sweep) int { return strings.Compare(a.Domain, b.Domain) })
	return out, nil
}

// pickCampaign returns the named campaign's ID, or the latest one's.
func pickCampaign(camps []store.Campaign, id string) (string, error) {
	if id != "" {
		for _, c := range camps {
			if c.ID == id {
				return id, nil
			}
		}
		return "", fmt.Errorf("no campaign %q in the store", id)
	}
	latest := ""
	var at time.Time
	for _, c := range camps {
		if latest == "" || c.Created.After(at) || (c.Created.Equal(at) && c.ID > latest) {
			latest, at = c.ID, c.Created
		}
	}
	return latest, nil
}

// accumulator gathers everything a report needs: the nights' tallies, the
// cases no tally holds yet, and the buckets' reproducers.
type accumulator struct {
	tally    tally.Tally
	examples map[string]*Reproducer // by case ID, the buckets' examples and minimized cases
}

func newAccumulator(s *store.Store, buckets []store.Bucket) (*accumulator, error) {
	a := &accumulator{examples: map[string]*Reproducer{}}
	for _, b := range buckets {
		a.examples[b.Example] = nil
		if b.Minimized != "" {
			a.examples[b.Minimized] = nil
		}
	}
	nights, err := s.Tallies()
	if err != nil {
		return nil, fmt.Errorf("read tallies: %w", err)
	}
	for _, t := range nights {
		a.tally.Merge(&t)
	}
	return a, nil
}

// add folds a stored case that no tally holds, and keeps a bucket's
// reproducer.
func (a *accumulator) add(rec store.CaseRecord, vs []oracles.Verdict) error {
	c := rec.TallyCase()
	if !rec.Tallied {
		a.tally.Add(c, vs)
	}
	if _, ok := a.examples[rec.ID]; ok {
		a.examples[rec.ID] = &Reproducer{Case: rec.ID, Domain: rec.Domain, Source: rec.Source, Value: c.JSON(), Verdicts: vs}
	}
	return nil
}

func (a *accumulator) bucketReports(entries []triage.Entry) []BucketReport {
	out := make([]BucketReport, 0, len(entries))
	for _, e := range entries {
		b := e.Bucket
		br := BucketReport{Key: b.Key, Title: b.Title, Domain: b.Signature.Domain, Status: e.Status, Class: e.Class, SuppressionReason: e.Suppressed,
			Tonight: e.Tonight, FixedBy: e.FixedBy,
			Cases: b.Cases, Campaign: b.Campaign, FirstSeen: b.FirstSeen, LastSeen: b.LastSeen, Signature: b.Signature,
			FoundIn: b.FoundIn(), Versions: b.Versions, NewestReproduces: b.NewestReproduces(), Filing: filing(b, e.Class)}
		pa, pb := b.Signature.Pair.A, b.Signature.Pair.B
		rep := a.examples[b.Example]
		minimized := b.Minimized != "" && a.examples[b.Minimized] != nil
		if minimized {
			rep = a.examples[b.Minimized]
		}
		if rep != nil {
			br.Reproducer = *rep
			br.Reproducer.Verdicts = pairFirst(rep.Verdicts, pa, pb)
		} else {
			br.Reproducer = Reproducer{Case: b.Example, Domain: br.Domain, Verdicts: []oracles.Verdict{},
				Problem: "the example case is not in the store"}
		}
		br.Reproducer.Minimized, br.Reproducer.Example = minimized, b.Example
		if minimized {
			br.Reproducer.Reliable, br.Reproducer.ReChecks = b.Reliability, b.ReChecks
		}
		br.Reproducer.MinimizeNote, br.NotYetMinimized = b.MinimizeNote, b.NotYetMinimized()
		br.Reproducer.Disagreeing = []string{pa, pb}
		br.Reproducer.Command = "legalfuzz check --domain " + br.Domain + " case.json"
		out = append(out, br)
	}
	return out
}

// pairFirst orders verdicts: the disagreeing pair first, then by oracle name.
func pairFirst(vs []oracles.Verdict, a, b string) []oracles.Verdict {
	out := slices.Clone(vs)
	rank := func(v oracles.Verdict) int {
		switch v.Oracle {
		case a:
			return 0
		case b:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(x, y oracles.Verdict) int {
		if c := cmp.Compare(rank(x), rank(y)); c != 0 {
			return c
		}
		return cmp.Compare(x.Oracle, y.Oracle)
	})
	return out
}

func summarizeCampaigns(camps []store.Campaign) []CampaignSummary {
	out := make([]CampaignSummary, 0, len(camps))
	for _, c := range camps {
		st := c.Stats
		wall := ""
		if !c.Finished.IsZero() {
			wall = c.Finished.Sub(c.Created).Round(time.Second).String()
		}
		out = append(out, CampaignSummary{ID: c.ID, State: c.State, Created: c.Created,
			Duration: c.Config.Duration.String(), Elapsed: c.Elapsed.Round(time.Second).String(),
			Draining: c.Draining.Round(time.Second).String(), Wall: wall,
			Domains: nonNil(c.Config.Domains), Oracles: nonNil(c.Config.Oracles),
			Cases: st.Cases, Verdicts: st.Judged, Findings: st.Findings, NewBuckets: st.NewBuckets,
			DeadLetters: st.DeadLetters, Outstanding: st.Outstanding(), Versions: c.Versions(), Triaged: c.Triaged,
			Quarantine: c.Quarantine, SpotChecks: st.SpotChecks})
	}
	slices.SortFunc(out, func(x, y CampaignSummary) int {
		if c := y.Created.Compare(x.Created); c != 0 {
			return c
		}
		return cmp.Compare(y.ID, x.ID)
	})
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// throughput sums each oracle's stats over every campaign.
func throughput(camps []store.Campaign) []Throughput {
	sums := map[string]*Throughput{}
	for _, c := range camps {
		for name, o := range c.Stats.Oracles {
			if o == nil {
				continue
			}
			t := sums[name]
			if t == nil {
				t = &Throughput{Oracle: name}
				sums[name] = t
			}
			t.Judged += o.Judged
			t.Seconds += o.Elapsed.Seconds()
		}
	}
	out := make([]Throughput, 0, len(sums))
	for _, t := range sums {
		if t.Seconds > 0 {
			t.PerSecond = float64(t.Judged) / t.Seconds
		}
		out = append(out, *t)
	}
	slices.SortFunc(out, func(x, y Throughput) int { return cmp.Compare(x.Oracle, y.Oracle) })
	return out
}

// cumulative sorts counted times and thins the running count to at most
// maxTimelinePoints points, always keeping the last.
func cumulative(cs []tally.Count) []TimePoint {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(x, y tally.Count) int { return x.Time.Compare(y.Time) })
	out := []TimePoint{}
	step := max(1, (len(cs)+maxTimelinePoints-1)/maxTimelinePoints)
	total := 0
	for i, c := range cs {
		total += c.N
		if (i+1)%step == 0 || i == len(cs)-1 {
			out = append(out, TimePoint{Time: c.Time, Count: total})
		}
	}
	return out
}

// counted counts each time once.
func counted(ts []time.Time) []tally.Count {
	out := make([]tally.Count, len(ts))
	for i, t := range ts {
		out[i] = tally.Count{Time: t, N: 1}
	}
	return out
}

func bucketTimes(buckets []store.Bucket) []TimePoint {
	ts := make([]time.Time, len(buckets))
	for i, b := range buckets {
		ts[i] = b.FirstSeen
	}
	return cumulative(counted(ts))
}

// signalTimes is the campaign's features and corpus over time.
func signalTimes(s *store.Store, campaign string) (features, corpus []TimePoint, err error) {
	fs, err := s.Features(campaign)
	if err != nil {
		return nil, nil, fmt.Errorf("read features: %w", err)
	}
	es, err := s.Corpus(campaign)
	if err != nil {
		return nil, nil, fmt.Errorf("read corpus: %w", err)
	}
	var ft, ct []time.Time
	for _, f := range fs {
		ft = append(ft, f.Seen)
	}
	for _, e := range es {
		ct = append(ct, e.Added)
	}
	return cumulative(counted(ft)), cumulative(counted(ct)), nil
}

// tonight counts the buckets' tonight statuses.
func tonight(r *Report, nights triage.Nights, since string) Tonight {
	t := Tonight{Campaign: r.Campaign, Since: since, Versions: map[string]string{}, Changed: []triage.VersionChange{}}
	if c, ok := nights.Get(r.Campaign); ok {
		t.Versions = c.Versions()
		t.Changed = append(t.Changed, nights.Changes(since, r.Campaign)...)
	}
	for _, b := range r.Buckets {
		switch b.Tonight {
		case triage.TonightNew:
			t.New++
		case triage.TonightStill:
			t.Still++
		case triage.TonightFixed:
			t.Fixed++
		case triage.TonightRegressed:
			t.Regressed++
		}
	}
	return t
}

func totals(r *Report, a *accumulator) Totals {
	n := a.tally
	t := Totals{Cases: n.Cases, Generated: n.Cases - n.Minimized, Minimized: n.Minimized, Verdicts: n.Verdicts,
		Buckets: len(r.Buckets), DeadLetters: len(r.DeadLetters)}
	for _, b := range r.Buckets {
		switch b.Status {
		case triage.StatusNew:
			t.New++
		case triage.StatusKnown:
			t.Known++
		case triage.StatusSuppressed:
			t.Suppressed++
		}
	}
	return t
}
