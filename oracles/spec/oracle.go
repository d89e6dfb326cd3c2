// Package spec is the spec family: the oracles spec/seed and spec/ptxisa,
// which judge cases in process with legalfuzz's own rule sets
// (oracles/rules), and their reproducer. No other family imports it;
// what they share with it is the rules package.
package spec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Set names the rule set an oracle judges with; Seed and PTXISA are the
// two (rules.Sets).
type Set = rules.Set

// The rule sets, as New takes them.
const (
	Seed   = rules.Seed
	PTXISA = rules.PTXISA
)

// Oracle judges cases with one rule set, in process.
type Oracle struct {
	set Set
}

// New returns the oracle for set; its name is "spec/<set>".
func New(set Set) *Oracle { return &Oracle{set: set} }

// Name is "spec/seed" or "spec/ptxisa".
func (o *Oracle) Name() string { return "spec/" + string(o.set) }

// Version hashes the set's rules (IDs and messages), so a verdict records
// exactly which rules judged it.
func (o *Oracle) Version() string {
	h := sha256.New()
	for _, r := range rules.Rules() {
		if r.Set == o.set {
			h.Write([]byte(r.ID + "\x00" + r.Message + "\x00"))
		}
	}
	return "rules-" + hex.EncodeToString(h.Sum(nil)[:6])
}

// Judges reports whether the set has rules for the domain.
func (o *Oracle) Judges(domainName string) bool {
	return slices.Contains(rules.Domains(o.set), domainName)
}

// Judge judges each case; a domain without rules is Unsupported.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	version := o.Version()
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := o.judgeOne(c)
		if err != nil {
			return nil, err
		}
		v.Version = version
		out[i] = v
	}
	return out, nil
}

func (o *Oracle) judgeOne(c domain.Case) (oracles.Verdict, error) {
	v := oracles.Verdict{Oracle: o.Name(), Case: c.ID, Domain: c.Domain}
	if !o.Judges(c.Domain) {
		v.Kind = oracles.Unsupported
		v.Diagnostic = "no " + string(o.set) + " rules for domain " + c.Domain
		return v, nil
	}
	j, err := rules.JudgeValue(o.set, c.Domain, c.Value)
	if err != nil {
		return v, err
	}
	return fromJudgment(v, o.set, c.Domain, j), nil
}

// fromJudgment fills a verdict from a rule set's judgment. The rules that
// passed are not carried: whoever needs rule coverage re-judges the case,
// which costs less than shipping and storing the list with every verdict.
func fromJudgment(v oracles.Verdict, set Set, domainName string, j rules.Judgment) oracles.Verdict {
	if j.Accept {
		v.Kind = oracles.Accept
		v.Rule = string(set) + "." + domainName
		v.Value = j.Value
		return v
	}
	v.Kind = oracles.Reject
	v.Rule = j.Rule.ID
	v.Diagnostic = j.Diagnostic
	return v
}

// All returns the oracle of every set with its status, in Sets order: the
// reference oracles a worker runs when no external tool is wanted (tests,
// benchmarks).
func All() ([]oracles.Oracle, []oracles.Status) {
	var orcs []oracles.Oracle
	var statuses []oracles.Status
	for _, set := range rules.Sets {
		o := New(set)
		orcs = append(orcs, o)
		statuses = append(statuses, oracles.Status{Name: o.Name(), Version: o.Version(), Available: true, Domains: rules.Domains(set)})
	}
	return orcs, statuses
}
