// Package spelltest checks a renderer's reasons for not spelling a value
// against the ones it declares (oracles.Reasons), over the values the
// structured generator makes: the mechanism behind render coverage, shared
// by every renderer's tests.
package spelltest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mutate"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Generated returns the domain's seeds and the values the structured
// generator makes from them: 3,000, or 300 with -short. The seed is
// logged; SPELLTEST_SEED overrides it.
func Generated(t testing.TB, domainName string) []domain.Case {
	t.Helper()
	n := 3000
	if testing.Short() {
		n = 300
	}
	d, ok := fuzz.Lookup(domainName)
	if !ok {
		t.Fatalf("no domain %s", domainName)
	}
	f, err := mutate.Describe(d)
	if err != nil {
		t.Fatalf("describe %s: %v", domainName, err)
	}
	seed := uint64(1)
	if s, err := strconv.ParseUint(os.Getenv("SPELLTEST_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("%s: seed %d (SPELLTEST_SEED overrides)", domainName, seed)
	rnd := rand.New(rand.NewPCG(seed, 27))
	var cases []domain.Case
	for _, v := range d.Seeds() {
		cases = append(cases, domain.NewCase(domainName, v))
	}
	for range n {
		if v, _, err := f.Generate(rnd); err == nil {
			cases = append(cases, domain.NewCase(domainName, v))
		}
	}
	return cases
}

// Tally counts the cases a renderer spelled and, per reason, those it did
// not.
type Tally struct {
	Cases, Spelled int
	Reasons        map[oracles.Reason]int
}

// CheckDeclared renders every case with render and fails the test for an
// error that is not a NoSpelling of a declared reason (undeclared reasons
// carry no gap) or a harness error. It returns the tally.
func CheckDeclared(t testing.TB, declared oracles.Reasons, cases []domain.Case, render func(domain.Case) error) Tally {
	t.Helper()
	tl := Tally{Reasons: map[oracles.Reason]int{}}
	for _, c := range cases {
		tl.Cases++
		err := render(c)
		if err == nil {
			tl.Spelled++
			continue
		}
		ns, ok := oracles.AsNoSpelling(err)
		if !ok {
			t.Errorf("%s %s: render: %v", c.Domain, c.ID, err)
			continue
		}
		if !declared.Declared(ns.Reason) {
			t.Errorf("%s %s: reason %s=%s (%q) is not declared", c.Domain, c.ID, ns.Field, ns.Class, ns.Detail)
		}
		tl.Reasons[ns.Reason]++
	}
	return tl
}
