package rules

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// selfChecks are exact checks of a domain's closed-form predicates: brute
// force where the space is small (enumerated address bits, layout cosize),
// round trips where the claim is an encoding. A failure is a bug in a rule
// set, never a seed-vs-ptxisa disagreement.
var selfChecks = map[string][]func(v any) error{}

// registerSelfCheck adds a check of one domain's values, V; a value of
// another type fails it (a case filed under the wrong domain), no panic.
func registerSelfCheck[V any](domainName string, check func(V) error) {
	selfChecks[domainName] = append(selfChecks[domainName], func(v any) error {
		tv, err := domain.As[V](v)
		if err != nil {
			return err
		}
		return check(tv)
	})
}

// SelfCheck runs the domain's exact checks on v.
func SelfCheck(domainName string, v any) error {
	for _, check := range selfChecks[domainName] {
		if err := check(v); err != nil {
			return fmt.Errorf("spec self-check %s: %w", domainName, err)
		}
	}
	return nil
}
