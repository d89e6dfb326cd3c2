package policy_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
)

// judgedBy maps every oracle the registry knows, available here or not, to
// the domains it judges (statuses say so either way).
func judgedBy(t *testing.T) map[string][]string {
	t.Helper()
	found, err := registry.Discover(context.Background(), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { found.Close() })
	out := map[string][]string{}
	for _, st := range found.Statuses {
		if _, ok := oracles.Lookup(st.Name); !ok {
			t.Errorf("the registry discovers %q, which the oracle catalog does not list", st.Name)
		}
		out[st.Name] = st.Domains
	}
	for _, in := range oracles.Catalog() {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(out)), func(name string) bool { return oracles.Matches(in.Name, name) }) {
			t.Errorf("the catalog lists %q, which the registry never discovers", in.Name)
		}
	}
	return out
}

// judging lists the domains the oracles a policy's name names judge.
func judging(judged map[string][]string, name string) []string {
	var out []string
	for o, doms := range judged {
		if oracles.Matches(name, o) {
			out = append(out, doms...)
		}
	}
	return out
}

// TestPoliciesCoverWhatOraclesJudge: an oracle that judges a domain is
// compared there (spec/seed feeds the claims matrix; spec/ptxisa is the
// reference, compared only when a tool judges the domain too), and every
// pair a policy checks can fire: both sides judge the domain.
func TestPoliciesCoverWhatOraclesJudge(t *testing.T) {
	judged := judgedBy(t)
	for _, d := range fuzz.Domains() {
		p := policy.PolicyFor(d.Name)
		used := map[string]bool{oracles.SpecSeed: true, oracles.SpecPTXISA: true} // the claims matrix's, and the reference
		for _, pr := range p.Checked() {
			used[pr.A], used[pr.B] = true, true
			for _, side := range []string{pr.A, pr.B} {
				if !slices.Contains(judging(judged, side), d.Name) {
					t.Errorf("%s: pair %s can never fire: %s does not judge %s", d.Name, pr, side, d.Name)
				}
			}
		}
		for name, doms := range judged {
			if slices.Contains(doms, d.Name) && !slices.ContainsFunc(slices.Collect(maps.Keys(used)), func(u string) bool { return oracles.Matches(u, name) }) {
				t.Errorf("%s judges %s, but the domain's policy never compares it", name, d.Name)
			}
		}
	}
}
