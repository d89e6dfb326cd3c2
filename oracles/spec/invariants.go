package spec

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// CheckInvariants verifies the invariants every value of every domain must keep, and
// returns the judgments of the rule sets that have rules for the domain. A seed-vs-ptxisa disagreement is
// not an error here (it is data for the campaign); a broken invariant is:
// a canonical or JSON round trip that changes the value, an invalid target,
// a nondeterministic judgment, or a rule set contradicting its own
// brute-force check.
func CheckInvariants(d domain.Domain, v domain.Value) (map[Set]Judgment, error) {
	if _, err := domain.RoundTrip(d, v); err != nil {
		return nil, err
	}
	if err := domain.JSONRoundTrip(d, v); err != nil {
		return nil, err
	}
	if !v.Target().Valid() {
		return nil, fmt.Errorf("%s: invalid target %v", d.Name, v.Target())
	}
	judgments := map[Set]Judgment{}
	for _, set := range Sets {
		if !slices.Contains(Domains(set), d.Name) {
			continue // a domain no seed speaks about has only the ptxisa set (waitcntasm)
		}
		j1, err := JudgeValue(set, d.Name, v)
		if err != nil {
			return nil, err
		}
		j2, _ := JudgeValue(set, d.Name, v)
		if !reflect.DeepEqual(j1, j2) {
			return nil, fmt.Errorf("%s: %s judged the same value two ways: %+v then %+v", d.Name, set, j1, j2)
		}
		judgments[set] = j1
	}
	if err := SelfCheck(d.Name, v); err != nil {
		return nil, err
	}
	return judgments, nil
}
