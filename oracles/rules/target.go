package rules

import (
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// archIn reports whether t's architecture is one of names ("sm_100a", ...).
func archIn(t target.Target, names ...string) bool {
	return slices.Contains(names, t.Arch.String())
}

// ptxAtLeast reports whether t's PTX ISA version is at least p (84 = 8.4).
func ptxAtLeast(t target.Target, p target.PTX) bool { return t.PTX >= p }

// targetPTXCheck is the first ptxisa rule of every domain: a PTX ISA version
// older than the target's first one, or newer than a rename that retired it
// (sm_101 became sm_110 in PTX ISA 9.0), cannot name the target at all.
func targetPTXCheck[V domain.Value](domainName string) Check[V] {
	return Check[V]{
		Rule: ptxRule(domainName, "target-ptx-version", "PTX ISA version does not know the .target",
			"PTX ISA 1.3 (PTX versions and targets); PTX ISA 9.0 release notes (sm_101 renamed sm_110); ptx-facts: CUDA -> PTX ISA table"),
		Fires:  func(v V) bool { return !v.Target().Names() },
		Detail: func(v V) string { return ": " + v.Target().String() },
	}
}
