package spec

import "fmt"

// selfChecks are exact checks of a domain's closed-form predicates: brute
// force where the space is small (enumerated address bits, layout cosize),
// round trips where the claim is an encoding. A failure is a bug in a rule
// set, never a seed-vs-ptxisa disagreement.
var selfChecks = map[string][]func(v any) error{}

func registerSelfCheck(domainName string, check func(v any) error) {
	selfChecks[domainName] = append(selfChecks[domainName], check)
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
