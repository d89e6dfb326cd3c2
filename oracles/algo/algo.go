// Package algo turns the algorithms under test of the schedule domain into
// oracles, so what they get wrong flows through campaigns like any other
// disagreement. fenceproxy is seed 002's InjectFenceProxy: it strips the
// schedule's proxy fences, inserts its own, and the result is judged by the
// reference model (the spec/ptxisa rule set).
package algo

import (
	"context"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/fenceproxy"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// FenceProxy is the fenceproxy oracle.
type FenceProxy struct{}

// Name is "fenceproxy".
func (FenceProxy) Name() string { return oracles.FenceProxy }

// Version names the algorithm's source: it is written from seed 002.
func (FenceProxy) Version() string { return "seed-002" }

// Judges reports whether the domain is schedule.
func (FenceProxy) Judges(domainName string) bool { return domainName == sc.Name }

// boundExceeded is the model's rule for an exploration its state bound cut
// short with nothing found.
const boundExceeded = "ptxisa.schedule.bound-exceeded"

// Judge strips and re-inserts each schedule's fences and judges the result
// with the reference model: accept when the model finds it ok, unsupported
// when the model's state bound cut it short, reject with the model's rule
// otherwise. The value counts the fences inserted.
func (f FenceProxy) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := oracles.Verdict{Oracle: f.Name(), Version: f.Version(), Case: c.ID, Domain: c.Domain}
		s, ok := c.Value.(sc.Value)
		if !ok {
			v.Unsupported(reasons.New("domain", "not-schedule", "fenceproxy judges only schedule cases"))
			out[i] = v
			continue
		}
		res, err := fenceproxy.Reinsert(s)
		if err != nil {
			// The pass's output does not fit the schedule IR (e.g. more ops
			// per role than it holds): our limit, not the algorithm's failure.
			v.Unsupported(reasons.New("output", "beyond-schedule-ir", "InjectFenceProxy's output cannot be represented: %v", err))
			out[i] = v
			continue
		}
		j, err := rules.JudgeValue(rules.PTXISA, sc.Name, res.V)
		if err != nil {
			return nil, err
		}
		v.Value = fmt.Sprintf("%d fences", len(res.Fences))
		switch {
		case j.Accept:
			v.Kind, v.Rule = oracles.Accept, "fenceproxy.ok"
		case j.Rule.ID == boundExceeded:
			// The model gave up on the output: no verdict on the pass.
			v.Unsupported(reasons.New("output", "model-bound", "after InjectFenceProxy: %s", j.Diagnostic))
		default:
			v.Kind, v.Rule, v.Diagnostic = oracles.Reject, "fenceproxy."+j.Rule.ID, "after InjectFenceProxy: "+j.Diagnostic
		}
		out[i] = v
	}
	return out, nil
}

// Status describes the fenceproxy oracle for `legalfuzz oracles`.
func (f FenceProxy) Status() oracles.Status {
	return oracles.Status{Name: f.Name(), Version: f.Version(), Available: true, Domains: []string{sc.Name},
		Reason: "algorithm under test (seed 002's InjectFenceProxy), judged by the reference model"}
}
