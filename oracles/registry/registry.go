// Package registry finds the oracles available on this machine.
package registry

import (
	"context"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// Found is the result of a discovery: the oracles ready to judge, and the
// status of every oracle legalfuzz knows, available or not.
type Found struct {
	Oracles  []oracles.Oracle
	Statuses []oracles.Status
}

// Discover looks for every oracle. It never fails: a missing tool is a
// Status with its reason.
func Discover(ctx context.Context) Found {
	var f Found
	for _, set := range spec.Sets {
		o := spec.New(set)
		f.add(o, oracles.Status{Name: o.Name(), Version: o.Version(), Available: true, Domains: judged(o)})
	}
	return f
}

func (f *Found) add(o oracles.Oracle, s oracles.Status) {
	if o != nil && s.Available {
		f.Oracles = append(f.Oracles, o)
	}
	f.Statuses = append(f.Statuses, s)
}

// judged lists the domains o can judge.
func judged(o oracles.Oracle) []string {
	var ds []string
	for _, d := range fuzz.Domains() {
		if o.Judges(d.Name) {
			ds = append(ds, d.Name)
		}
	}
	return ds
}
