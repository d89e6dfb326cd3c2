// Package regresstest builds stores with real findings for the tests of
// corpus export, import, distillation and reproducer bundles: cases judged
// by the spec rule sets and, when installed, ptxas, with their findings
// recorded as a campaign records them.
package regresstest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// SpecPair makes a bucket of every seed-vs-ptxisa disagreement, so the
// stores have findings without any external tool.
var SpecPair = policy.Pair{A: oracles.SpecPTXISA, B: oracles.SpecSeed, On: policy.OnVerdict}

// Policy is the domain's agreement policy plus SpecPair.
func Policy(domainName string) policy.Policy {
	p := policy.PolicyFor(domainName)
	p.Pairs = append(append([]policy.Pair{}, p.Pairs...), SpecPair)
	return p
}

// Oracles returns both spec rule sets, and ptxas 12.4 when it is installed
// (its location, empty when it is not).
func Oracles(ctx context.Context) ([]oracles.Oracle, string) {
	orcs := []oracles.Oracle{spec.New(spec.PTXISA), spec.New(spec.Seed)}
	if o, st := ptxas.Discover(ctx); o != nil {
		return append(orcs, o), st.Path
	}
	return orcs, ""
}

// Lit is LLVM 19's lit as make oracles installs it (lit-19 in the oracles'
// bin folder, else on PATH), or "".
func Lit() string {
	for _, dir := range tool.OraclesBinDirs() {
		if p, err := exec.LookPath(filepath.Join(dir, "lit-19")); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("lit-19")
	return p
}

// SelectorTwo is ptxas 12.4's known leniency: mma.sp.sync m16n8k32 f16 with
// sparsity selector 2, which the PTX ISA allows only 0..1 for and ptxas
// accepts.
func SelectorTwo(t testing.TB) domain.Case {
	t.Helper()
	v, err := mma.ParseJSON([]byte(`{"sparsity": "sp", "shape": [16, 8, 32], "selector": 2, "target": "sm_90a"}`))
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewCase(mma.Name, v)
}

// Cases are the cases the stores hold: SelectorTwo, and the first n seeds
// of kindword and mma.
func Cases(t testing.TB, n int) []domain.Case {
	cases := []domain.Case{SelectorTwo(t)}
	for _, name := range []string{"kindword", "mma"} {
		d, _ := fuzz.Lookup(name)
		for _, v := range d.Seeds()[:n] {
			cases = append(cases, domain.NewCase(d.Name, v))
		}
	}
	return cases
}

// Judge stores the cases as source, judges them with orcs in process and
// records verdicts and findings (Policy) as a campaign does. It returns
// the buckets the store holds afterwards.
func Judge(t testing.TB, s *store.Store, orcs []oracles.Oracle, cases []domain.Case, source string) []store.Bucket {
	t.Helper()
	var recs []store.CaseRecord
	for _, c := range cases {
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Source: source, Seen: time.Unix(1, 0).UTC()})
	}
	if _, err := s.AddCases("", recs); err != nil {
		t.Fatal(err)
	}
	verdicts, err := oracles.Local{Oracles: orcs, BatchSize: 64}.Judge(context.Background(), cases, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := s.CommitVerdicts(store.Commit{Verdicts: verdicts[c.ID], Now: time.Unix(2, 0).UTC(),
			Judged: func(cs domain.Case, vs []oracles.Verdict) []policy.Disagreement {
				return Policy(c.Domain).Evaluate(cs, vs)
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	bs, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// NewStore writes a store of Cases(n) judged by Oracles, with the first
// spec-pair bucket minimized, closes it and returns its path and buckets
// (as minimizing left them: a bucket may be split into one per rule).
func NewStore(t testing.TB, n int) (string, []store.Bucket) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s, err := store.OpenStore(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	orcs, _ := Oracles(context.Background())
	buckets := Judge(t, s, orcs, Cases(t, n), "seed")
	for _, b := range buckets {
		if b.Signature.Pair == SpecPair {
			if _, err := coordinator.MinimizeBucket(context.Background(), s, oracles.Local{Oracles: orcs}, b, coordinator.MinimizeOptions{Budget: 100, ReChecks: 1}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	buckets, err = s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	return path, buckets
}
