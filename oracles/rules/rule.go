// Package rules is legalfuzz's own reference verifier, in two rule sets
// judged side by side: "seed" implements the seed documents' verifiers as
// written, quirks included, and "ptxisa" answers the same questions from the
// PTX ISA and the CUDA driver documentation. Where they disagree the seed
// makes a claim that the real tools must settle.
//
// It knows no oracle family: the spec family (oracles/spec) judges cases
// with it as the oracles spec/seed and spec/ptxisa; other families, the
// batch engine's predictions, policies, witnesses and the store's tallies
// ask it directly (JudgeValue, FiringRules, Rules).
package rules

import (
	"fmt"
	"sort"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Set names a rule set.
type Set string

const (
	// Seed is the seeds' verifiers as written.
	Seed Set = "seed"
	// PTXISA is the same questions answered from the PTX ISA and driver docs.
	PTXISA Set = "ptxisa"
)

// Sets lists the rule sets in report order.
var Sets = []Set{Seed, PTXISA}

// Rule is one legality rule with its provenance. A rule lives here once; the
// reports and the claims matrix read it from here.
type Rule struct {
	// ID is "<set>.<domain>.<name>", stable across releases.
	ID     string `json:"id"`
	Set    Set    `json:"set"`
	Domain string `json:"domain"`
	// Message is the diagnostic, verbatim from the source for seed rules.
	Message string `json:"message"`
	// Source is the seed file and section, or the PTX ISA / driver section.
	Source string `json:"source"`
	// Doubtful, when set, says why the rule's claim is in doubt.
	Doubtful string `json:"doubtful,omitempty"`
}

// seedRule and ptxRule build a rule of their set; the ID follows from the
// set, the domain and the rule's name, so no rule spells its own prefix.
func seedRule(domainName, name, msg, source, doubt string) *Rule {
	return &Rule{ID: "seed." + domainName + "." + name, Set: Seed, Domain: domainName, Message: msg, Source: source, Doubtful: doubt}
}

func ptxRule(domainName, name, msg, source string) *Rule {
	return &Rule{ID: "ptxisa." + domainName + "." + name, Set: PTXISA, Domain: domainName, Message: msg, Source: source}
}

// Judgment is one rule set's answer about one value.
type Judgment struct {
	Accept bool
	// Rule is the rule that fired; nil on accept.
	Rule *Rule
	// Diagnostic is the fired rule's message plus any detail it appends.
	Diagnostic string
	// Value is the computed answer on accept (an opcode index, a descriptor).
	Value string
	// Passed are the rules checked and held before the decision.
	Passed []*Rule
}

// Check is a rule with its predicate over values of type V.
type Check[V any] struct {
	*Rule
	// Fires reports whether v violates the rule.
	Fires func(v V) bool
	// Detail, if set, is appended to Message when the rule fires (e.g. the
	// serialized swizzle after "unsupported swizzle, got ").
	Detail func(v V) string
}

// Ladder is a fail-first rule set for one domain: checks run in order and the
// first that fires decides. Later checks are not reached, as in the seeds.
type Ladder[V any] struct {
	Set    Set
	Domain string
	Checks []Check[V]
	// Value computes the answer carried by an accept verdict; may be nil.
	Value func(v V) string
}

// Judge walks the ladder over v.
func (l *Ladder[V]) Judge(v V) Judgment {
	var passed []*Rule
	for _, c := range l.Checks {
		if c.Fires(v) {
			diag := c.Message
			if c.Detail != nil {
				diag += c.Detail(v)
			}
			return Judgment{Rule: c.Rule, Diagnostic: diag, Passed: passed}
		}
		passed = append(passed, c.Rule)
	}
	j := Judgment{Accept: true, Passed: passed}
	if l.Value != nil {
		j.Value = l.Value(v)
	}
	return j
}

// Firing lists every rule of the ladder that v breaks, in ladder order: the
// first is the one Judge reports, the rest are what a fail-first walk never
// reaches. A check may lean on the checks before it (umma's core-matrix
// row divides by a size an earlier rule refuses at zero); past a rule that
// fired, a check that cannot be evaluated breaks nothing it can say.
func (l *Ladder[V]) Firing(v V) []*Rule {
	var fired []*Rule
	for _, c := range l.Checks {
		if len(fired) == 0 && c.Fires(v) || len(fired) > 0 && firesPast(c, v) {
			fired = append(fired, c.Rule)
		}
	}
	return fired
}

// firesPast evaluates a check that a fail-first walk would not reach,
// recovering from a fault of one that assumes the earlier rules hold.
func firesPast[V any](c Check[V], v V) (fired bool) {
	defer func() {
		if recover() != nil {
			fired = false
		}
	}()
	return c.Fires(v)
}

// Rules lists the ladder's rules in order.
func (l *Ladder[V]) Rules() []*Rule {
	rules := make([]*Rule, len(l.Checks))
	for i, c := range l.Checks {
		rules[i] = c.Rule
	}
	return rules
}

// ID names the ladder: "<set>.<domain>". Accept verdicts carry it as their rule.
func (l *Ladder[V]) ID() string { return string(l.Set) + "." + l.Domain }

// judge is a ladder with its value type erased, for the registry.
type judge interface {
	ID() string
	Rules() []*Rule
	setDomain() (Set, string)
	judgeAny(v any) (Judgment, error)
	firingAny(v any) ([]*Rule, error)
}

func (l *Ladder[V]) judgeAny(v any) (Judgment, error) {
	tv, err := domain.As[V](v)
	if err != nil {
		return Judgment{}, fmt.Errorf("spec %s: %w", l.ID(), err)
	}
	return l.Judge(tv), nil
}

func (l *Ladder[V]) firingAny(v any) ([]*Rule, error) {
	tv, err := domain.As[V](v)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", l.ID(), err)
	}
	return l.Firing(tv), nil
}

// registry maps "<set>.<domain>" to its ladder.
var registry = map[string]judge{}

// register adds ladders; each domain's rule file calls it from init. A
// duplicate rule or ladder ID is a bug of ours, so it panics at start-up.
func register(js ...judge) {
	seen := map[string]bool{}
	for _, j := range registry {
		for _, r := range j.Rules() {
			seen[r.ID] = true
		}
	}
	for _, j := range js {
		if _, dup := registry[j.ID()]; dup {
			panic("spec: duplicate ladder " + j.ID())
		}
		for _, r := range j.Rules() {
			if seen[r.ID] {
				panic("spec: duplicate rule " + r.ID)
			}
			seen[r.ID] = true
		}
		registry[j.ID()] = j
	}
}

// Rules lists every rule of every set, sorted by ID.
func Rules() []*Rule {
	var all []*Rule
	for _, j := range registry {
		all = append(all, j.Rules()...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a].ID < all[b].ID })
	return all
}

// Domains lists the domains that have rules in set.
func Domains(set Set) []string { return domainsBySet()[set] }

// domainsBySet is computed once: the registry is complete after init.
var domainsBySet = sync.OnceValue(func() map[Set][]string {
	m := map[Set][]string{}
	for _, j := range registry {
		s, d := j.setDomain()
		m[s] = append(m[s], d)
	}
	for _, ds := range m {
		sort.Strings(ds)
	}
	return m
})

func (l *Ladder[V]) setDomain() (Set, string) { return l.Set, l.Domain }

// JudgeValue judges v of the named domain with one rule set.
func JudgeValue(set Set, domainName string, v any) (Judgment, error) {
	j, err := ladder(set, domainName)
	if err != nil {
		return Judgment{}, err
	}
	return j.judgeAny(v)
}

// FiringRules lists every rule of one rule set that v of the named domain
// breaks, in ladder order (Ladder.Firing).
func FiringRules(set Set, domainName string, v any) ([]*Rule, error) {
	j, err := ladder(set, domainName)
	if err != nil {
		return nil, err
	}
	return j.firingAny(v)
}

func ladder(set Set, domainName string) (judge, error) {
	j, ok := registry[string(set)+"."+domainName]
	if !ok {
		return nil, fmt.Errorf("spec: no %s rules for domain %q", set, domainName)
	}
	return j, nil
}
