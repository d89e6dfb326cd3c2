// Package rulestest is what tests check of domain values against the rule
// sets (oracles/rules): the invariants every value keeps, which the
// native fuzz targets and the corpus replays run, and the rule coverage of
// a replay.
package rulestest

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// CheckInvariants verifies the invariants every value of every domain must keep, and
// returns the judgments of the rule sets that have rules for the domain. A seed-vs-ptxisa disagreement is
// not an error here (it is data for the campaign); a broken invariant is:
// a canonical or JSON round trip that changes the value, an invalid target,
// a nondeterministic judgment, or a rule set contradicting its own
// brute-force check.
func CheckInvariants(d domain.Domain, v domain.Value) (map[rules.Set]rules.Judgment, error) {
	if _, err := domain.RoundTrip(d, v); err != nil {
		return nil, err
	}
	if err := domain.JSONRoundTrip(d, v); err != nil {
		return nil, err
	}
	if !v.Target().Valid() {
		return nil, fmt.Errorf("%s: invalid target %v", d.Name, v.Target())
	}
	judgments := map[rules.Set]rules.Judgment{}
	for _, set := range rules.Sets {
		if !slices.Contains(rules.Domains(set), d.Name) {
			continue // a domain no seed speaks about has only the ptxisa set (waitcntasm)
		}
		j1, err := rules.JudgeValue(set, d.Name, v)
		if err != nil {
			return nil, err
		}
		j2, _ := rules.JudgeValue(set, d.Name, v)
		if !reflect.DeepEqual(j1, j2) {
			return nil, fmt.Errorf("%s: %s judged the same value two ways: %+v then %+v", d.Name, set, j1, j2)
		}
		judgments[set] = j1
	}
	if err := rules.SelfCheck(d.Name, v); err != nil {
		return nil, err
	}
	return judgments, nil
}
