package batch

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// Predict is the verdict spec/ptxisa gives c: Accept or Reject, or "" when
// the set has no rules for c's domain. It only shapes the plan: the tool's
// own output decides every verdict, so a wrong prediction costs a run.
func Predict(c domain.Case) oracles.Kind {
	j, err := spec.JudgeValue(spec.PTXISA, c.Domain, c.Value)
	switch {
	case err != nil:
		return ""
	case j.Accept:
		return oracles.Accept
	}
	return oracles.Reject
}
