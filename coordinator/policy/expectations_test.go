package policy_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
)

// corpusCases are every domain's seeds and n generated cases per domain
// (arbitrary bytes through the domain's decoder), from a logged seed that
// LEGALFUZZ_SEED overrides.
func corpusCases(t *testing.T, n int) []domain.Case {
	t.Helper()
	seed := domaintest.Seed(t, "LEGALFUZZ_SEED", 20261124)
	t.Logf("corpus seed %d (set LEGALFUZZ_SEED to replay another), %d generated cases per domain", seed, n)
	rng := rand.New(rand.NewPCG(seed, seed))
	seen := map[string]bool{}
	var cases []domain.Case
	add := func(d domain.Domain, v domain.Value) {
		c := domain.NewCase(d.Name, v)
		if !seen[c.ID] {
			seen[c.ID] = true
			cases = append(cases, c)
		}
	}
	for _, d := range fuzz.Domains() {
		for _, v := range d.Seeds() {
			add(d, v)
		}
		for range n {
			if v, err := d.Decode(domaintest.Input(rng, 4+rng.IntN(60))); err == nil {
				add(d, v)
			}
		}
	}
	return cases
}

// judgedCorpus judges the corpus with spec/ptxisa and, per domain, the
// tools installed here that its built-in expectations name (the others
// cannot make a disagreement an expectation silences: judging with them
// took two thirds of the test's two minutes), and returns each case's
// verdicts and which oracles are installed.
func judgedCorpus(t *testing.T, n int) ([]domain.Case, map[string][]oracles.Verdict, map[string]bool) {
	t.Helper()
	found, err := registry.Discover(context.Background(), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { found.Close() })
	have := map[string]bool{}
	for _, o := range found.Oracles {
		have[o.Name()] = true
	}
	cases := corpusCases(t, n)
	byDomain := map[string][]domain.Case{}
	for _, c := range cases {
		byDomain[c.Domain] = append(byDomain[c.Domain], c)
	}
	byCase := map[string][]oracles.Verdict{}
	for dom, cs := range byDomain {
		named := expectationOracles(dom)
		judges := slices.DeleteFunc(slices.Clone(found.Oracles), func(o oracles.Oracle) bool {
			return !slices.ContainsFunc(named, func(name string) bool { return oracles.Matches(name, o.Name()) })
		})
		got, err := oracles.Local{Oracles: judges, BatchSize: 1000}.Judge(context.Background(), cs, nil)
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(byCase, got)
	}
	return cases, byCase, have
}

// expectationOracles are the oracles the domain's built-in expectations
// name, on either side, and spec/ptxisa, which decides their rules.
func expectationOracles(dom string) []string {
	names := []string{oracles.SpecPTXISA}
	for _, e := range policy.PolicyFor(dom).Expected {
		names = append(names, e.Side())
		names = append(names, e.Oracles...)
	}
	return names
}

// TestExpectationsEarnTheirPlace judges a corpus (the seeds and a few
// thousand generated cases) with spec/ptxisa and the tools installed here:
// every built-in expectation whose oracles are here silences at least one
// disagreement (a dead one hides nothing but may hide the next bug), and
// none silences a crash. LEGALFUZZ_DUMP=1 prints every disagreement.
func TestExpectationsEarnTheirPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("judges thousands of cases with the real tools")
	}
	n := 400
	if s := os.Getenv("LEGALFUZZ_CORPUS_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("LEGALFUZZ_CORPUS_N: %v", err)
		}
	}
	cases, byCase, have := judgedCorpus(t, n)
	silenced := map[string]int{} // domain + why -> disagreements silenced
	findings := map[string]int{}
	for _, c := range cases {
		for _, d := range policy.PolicyFor(c.Domain).Evaluate(c, byCase[c.ID]) {
			if !d.Finding() {
				silenced[c.Domain+"\x00"+d.Expected]++
				for _, v := range []oracles.Verdict{d.A, d.B} {
					if v.Kind == oracles.Error || v.Kind == oracles.Timeout {
						t.Errorf("case %s: expectation %q silences %s's %s: %s", c.ID, d.Expected, v.Oracle, v.Kind, v.Diagnostic)
					}
				}
			}
			if os.Getenv("LEGALFUZZ_DUMP") != "" {
				sig := policy.SignatureOf(d)
				findings[fmt.Sprintf("%-5v %s %s %s %s %s | %s", d.Finding(), c.Domain, sig.Tool, sig.Kind, sig.Stage, sig.Rule, diag.Title(sig.Diag))]++
			}
		}
	}
	var lines []string
	for k, n := range findings {
		lines = append(lines, fmt.Sprintf("%5d %s", n, k))
	}
	sort.Strings(lines)
	if len(lines) > 0 {
		t.Logf("disagreements (finding?, domain, tool, kind, stage, rule | title):\n%s", strings.Join(lines, "\n"))
	}
	for _, p := range policy.Builtin() {
		for _, e := range p.Expected {
			if !installed(have, e.Side()) || !slices.ContainsFunc(e.Oracles, func(o string) bool { return installed(have, o) }) {
				t.Logf("%s: expectation for %v vs %s not checked: not installed here", p.Domain, e.Oracles, e.Side())
				continue
			}
			if e.When != nil && !exercised(cases, byCase, p.Domain, e) {
				t.Logf("%s: expectation for %v when %s not exercised: no case of the corpus meets it with a disagreement of its oracles", p.Domain, e.Oracles, e.Condition)
				continue
			}
			if silenced[p.Domain+"\x00"+e.Why] == 0 {
				t.Errorf("%s: expectation for %v vs %s on %v silenced nothing over %d cases: dead (%s)", p.Domain, e.Oracles, e.Side(), e.Rules, len(cases), e.Why)
			}
		}
	}
}

// installed reports whether an oracle a policy names (an installed
// oracle's base included) judged here.
func installed(have map[string]bool, name string) bool {
	for o := range have {
		if oracles.Matches(name, o) {
			return true
		}
	}
	return false
}

// exercised reports whether a conditional expectation had the chance to
// silence something: on a case of the domain that meets its condition,
// one of its oracles disagreed with another.
func exercised(cases []domain.Case, byCase map[string][]oracles.Verdict, domainName string, e policy.Expectation) bool {
	names := func(v oracles.Verdict) bool {
		return slices.ContainsFunc(e.Oracles, func(o string) bool { return oracles.Matches(o, v.Oracle) })
	}
	for _, c := range cases {
		if c.Domain != domainName || !e.When(c.Value) {
			continue
		}
		for _, d := range policy.PolicyFor(domainName).Evaluate(c, byCase[c.ID]) {
			if names(d.A) || names(d.B) {
				return true
			}
		}
	}
	return false
}
