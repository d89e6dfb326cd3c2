package reports

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// fixture is a real store with two campaigns of ldsm seed cases, judged by
// the real spec oracles and a planted "ptxas" that agrees with spec/ptxisa
// except on three accepted cases, which it rejects: one in the old campaign
// (a known bucket, then minimized), two in the new one (new buckets; one is
// suppressed in the store).
type fixture struct {
	path                     string
	oldCamp, newCamp         string
	known, fresh, suppressed string // bucket keys
	cases                    int
	t0                       time.Time
}

// evilDiag checks that every format escapes what a tool prints.
const evilDiag = `error : planted <script>alert("x")</script> & more`

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{path: filepath.Join(t.TempDir(), "legalfuzz.db"), oldCamp: "c-old", newCamp: "c-new",
		t0: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := storetest.Open(t, f.path)
	defer storetest.Close(t, s)
	d, _ := fuzz.Lookup("ldsm")
	var cases []domain.Case
	for _, v := range d.Seeds() {
		cases = append(cases, domain.NewCase(d.Name, v))
	}
	half := len(cases) / 2
	byCamp := map[string][]domain.Case{f.oldCamp: cases[:half], f.newCamp: cases[half:]}
	diags := map[string][]string{f.oldCamp: {"error : planted old"}, f.newCamp: {evilDiag, "error : planted suppressed"}}
	for i, camp := range []string{f.oldCamp, f.newCamp} {
		created := f.t0.Add(time.Duration(i) * time.Hour)
		// A minute of generation, 90 s of judging after it, and minimizing
		// and replaying until 6m30s after the start.
		err := s.PutCampaign(store.Campaign{ID: camp, State: store.StateDone, Created: created, Elapsed: time.Minute + 2*time.Second,
			Draining: 90 * time.Second, Finished: created.Add(6*time.Minute + 30*time.Second), Config: store.CampaignConfig{Duration: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		keys, added := f.judge(t, s, camp, created, byCamp[camp], diags[camp])
		f.cases += added
		if camp == f.oldCamp {
			f.known = keys[0]
		} else {
			f.fresh, f.suppressed = keys[0], keys[1]
		}
	}
	if err := s.Suppress(f.suppressed, "known ptxas quirk", f.t0); err != nil {
		t.Fatal(err)
	}
	f.minimize(t, s)
	return f
}

// minimize runs the real minimizer on the known bucket, with spec/ptxisa and
// a stand-in ptxas that rejects what spec/ptxisa accepts.
func (f fixture) minimize(t *testing.T, s *store.Store) {
	t.Helper()
	buckets, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		if b.Key != f.known {
			continue
		}
		orcs := []oracles.Oracle{spec.New(rules.PTXISA), plantedTool{"error : planted old"}}
		b, err = coordinator.MinimizeBucket(context.Background(), s, oracles.Local{Oracles: orcs}, b, coordinator.MinimizeOptions{Budget: 40, ReChecks: 2})
		if err != nil || b.Minimized == "" {
			t.Fatalf("minimize %s: %v (note %q)", b.Key, err, b.MinimizeNote)
		}
	}
}

// plantedTool is a stand-in "ptxas": it rejects, with diag, what spec/ptxisa
// accepts and agrees with it otherwise.
type plantedTool struct{ diag string }

func (plantedTool) Name() string         { return "ptxas" }
func (plantedTool) Version() string      { return "12.4.131" }
func (plantedTool) Judges(d string) bool { return d == "ldsm" }
func (p plantedTool) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	vs, err := spec.New(rules.PTXISA).Judge(ctx, cases)
	for i := range vs {
		vs[i].Oracle, vs[i].Version, vs[i].Rule = p.Name(), p.Version(), ""
		if vs[i].Kind == oracles.Accept {
			vs[i].Kind, vs[i].Diagnostic, vs[i].Value = oracles.Reject, p.diag, ""
		}
	}
	return vs, err
}

// judge stores a campaign's cases and verdicts and returns the keys of the
// buckets planted with diags, in order, and how many cases were new to the
// store (seeds may repeat a value).
func (f fixture) judge(t *testing.T, s *store.Store, camp string, at time.Time, cases []domain.Case, diags []string) ([]string, int) {
	t.Helper()
	recs := make([]store.CaseRecord, len(cases))
	for i, c := range cases {
		recs[i] = store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: camp,
			Source: "seed", Seen: at.Add(time.Duration(i) * time.Second)}
	}
	added, err := s.AddCases(camp, recs)
	if err != nil {
		t.Fatal(err)
	}
	pol := policy.PolicyFor("ldsm")
	commit := func(oracle string, vs []oracles.Verdict, elapsed time.Duration) []store.Bucket {
		res, err := s.CommitVerdicts(store.Commit{Verdicts: vs, Campaign: camp, Now: at.Add(time.Minute),
			Oracle: oracle, Elapsed: elapsed, Judged: func(c domain.Case, vs []oracles.Verdict) []policy.Disagreement { return pol.Evaluate(c, vs) }})
		if err != nil {
			t.Fatal(err)
		}
		return res.NewBuckets
	}
	var ptxisa []oracles.Verdict
	for _, set := range rules.Sets {
		vs, err := spec.New(set).Judge(context.Background(), cases)
		if err != nil {
			t.Fatal(err)
		}
		commit(spec.New(set).Name(), vs, time.Millisecond)
		if set == rules.PTXISA {
			ptxisa = vs
		}
	}
	tool := make([]oracles.Verdict, len(cases))
	planted := 0
	for i, p := range ptxisa {
		tool[i] = oracles.Verdict{Oracle: "ptxas", Version: "12.4.131", Case: p.Case, Domain: p.Domain, Kind: p.Kind, Diagnostic: p.Diagnostic}
		if p.Kind == oracles.Accept && planted < len(diags) {
			tool[i].Kind, tool[i].Diagnostic = oracles.Reject, diags[planted]
			planted++
		}
	}
	if planted < len(diags) {
		t.Fatalf("campaign %s: only %d accepted cases to plant %d findings in", camp, planted, len(diags))
	}
	keys := make([]string, len(diags))
	for _, b := range commit("ptxas", tool, 2*time.Second) {
		for i, d := range diags {
			if strings.Contains(b.Signature.DiagB, plantMarker(d)) {
				keys[i] = b.Key
			}
		}
	}
	if slices.Contains(keys, "") {
		t.Fatalf("campaign %s: planted %q, got buckets %q", camp, diags, keys)
	}
	return keys, len(added)
}

// plantMarker is the word that tells a planted diagnostic's bucket.
func plantMarker(diag string) string {
	f := strings.Fields(strings.TrimPrefix(diag, "error : planted "))
	marker, _, _ := strings.Cut(f[0], "(")
	return marker
}

// load reads the fixture as the report command does.
func (f fixture) load(t *testing.T) *Report {
	t.Helper()
	s, err := store.OpenStoreReadOnly(f.path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := Load(s, Options{StorePath: f.path, Now: f.t0.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// signal counts the campaign's features and corpus entries in the store.
func (f fixture) signal(t *testing.T, campaign string) (features, corpus int) {
	t.Helper()
	s, err := store.OpenStoreReadOnly(f.path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fs, err := s.Features(campaign)
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Corpus(campaign)
	if err != nil {
		t.Fatal(err)
	}
	return len(fs), len(es)
}
