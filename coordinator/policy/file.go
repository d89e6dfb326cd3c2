package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// File is the JSON form of a user's policy file (docs/policy.md): policies
// whose judges, pairs and expectations are added to the built-in ones of
// their domains. It is how a user's exec:NAME verifier takes part in
// agreement, and so makes findings.
type File struct {
	Policies []Policy `json:"policies"`
}

// Load reads a policy file and returns the built-in set with its additions.
// Unknown fields, domains, oracles and aspects are errors naming the entry,
// and so is an expectation without rules or a reason.
func Load(path string) (Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Set{}, fmt.Errorf("policy file: %w", err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Set{}, fmt.Errorf("policy file %s: %w", path, err)
	}
	set, err := Set{}.With(f.Policies)
	if err != nil {
		return Set{}, fmt.Errorf("policy file %s: %w", path, err)
	}
	return set, nil
}

// With returns the set with the additions merged into their domains.
func (s Set) With(additions []Policy) (Set, error) {
	out := Set{byDomain: map[string]Policy{}}
	for _, d := range fuzz.Domains() {
		out.byDomain[d.Name] = s.For(d.Name)
	}
	for i, add := range additions {
		if err := add.validate(); err != nil {
			return Set{}, fmt.Errorf("policies[%d] (%s): %w", i, add.Domain, err)
		}
		p := out.byDomain[add.Domain]
		for _, j := range add.Judges {
			if !slices.Contains(p.Judges, j) {
				p.Judges = append(slices.Clip(p.Judges), j)
			}
		}
		p.Pairs = append(slices.Clip(p.Pairs), add.Pairs...)
		p.Expected = append(slices.Clip(p.Expected), add.Expected...)
		out.byDomain[add.Domain] = p
	}
	return out, nil
}

// validate checks an addition names real things and justifies what it
// expects.
func (p Policy) validate() error {
	if _, ok := fuzz.Lookup(p.Domain); !ok {
		return fmt.Errorf("unknown domain %q", p.Domain)
	}
	for _, name := range p.oracles() {
		if _, ok := oracles.Lookup(name); !ok {
			return fmt.Errorf("unknown oracle %q (see legalfuzz oracles; your own verifiers are exec:NAME)", name)
		}
	}
	for _, pr := range p.Pairs {
		if pr.On != OnVerdict && pr.On != OnValue && pr.On != OnAnswer && pr.On != OnCrash {
			return fmt.Errorf("pair %s~%s: on must be %q, %q, %q or %q", pr.A, pr.B, OnVerdict, OnValue, OnAnswer, OnCrash)
		}
	}
	for _, e := range p.Expected {
		if len(e.Rules) == 0 || e.Why == "" {
			return errors.New("an expectation needs the spec/ptxisa rules it covers and a why")
		}
	}
	return nil
}
