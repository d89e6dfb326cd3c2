// Package signal turns what the judges said about a case into the features
// that steer generation: syzkaller's loop with the tools' verdicts in place
// of kernel coverage (ptxas and the NVIDIA driver are closed; their
// diagnostics are what they give us). Features are a pure function of a
// case's verdicts, so a resumed campaign recomputes exactly what it stored.
package signal

import (
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// VectorPrefix starts a verdict-vector feature: which oracle said what.
const VectorPrefix = "vector|"

// VerdictFeature is the feature of one verdict: oracle|kind|rule, plus, for
// a tool, |title of its diagnostic. A spec rule set's rule IDs already name
// its messages, so its diagnostics (which may quote the value) add nothing;
// a tool's Rule is its stage, and its diagnostic is normalized by the one
// normalizer that bucket signatures use, so one failed check is one feature
// whatever the value. A Result's observed data is not part of it: every
// value would be a feature.
func VerdictFeature(v oracles.Verdict) string {
	f := v.Oracle + "|" + string(v.Kind) + "|" + v.Rule
	if v.Kind == oracles.Result || v.Kind == oracles.Accept || isSpec(v.Oracle) {
		return f
	}
	return f + "|" + diag.Title(v.Diagnostic)
}

// isSpec reports whether the oracle is one of legalfuzz's reference rule sets.
func isSpec(oracle string) bool {
	info, ok := oracles.Lookup(oracle)
	return ok && info.Family == "spec"
}

// VectorFeature is the cross-oracle feature of a case: its verdicts as a
// sorted oracle:kind list.
func VectorFeature(vs []oracles.Verdict) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Oracle + ":" + string(v.Kind)
	}
	slices.Sort(parts)
	return VectorPrefix + strings.Join(parts, ",")
}

// Complete reports whether vs holds a verdict of every oracle in enqueued:
// only then is the verdict vector the case's final one. A case enqueued for
// no oracle is never complete.
func Complete(vs []oracles.Verdict, enqueued []string) bool {
	if len(enqueued) == 0 {
		return false
	}
	for _, o := range enqueued {
		if !slices.ContainsFunc(vs, func(v oracles.Verdict) bool { return v.Oracle == o }) {
			return false
		}
	}
	return true
}

// Features are all the features of a case: one per verdict, and the verdict
// vector once the case has the verdicts of every oracle it was enqueued
// for; sorted, without duplicates.
func Features(vs []oracles.Verdict, enqueued []string) []string {
	out := make([]string, 0, len(vs)+1)
	for _, v := range vs {
		out = append(out, VerdictFeature(v))
	}
	if Complete(vs, enqueued) {
		out = append(out, VectorFeature(vs))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
