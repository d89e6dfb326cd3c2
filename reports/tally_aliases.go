// Package reports renders what campaigns and judge runs found: the rule
// agreement matrix, disagreement listings, the claims matrix and full reports
// (HTML with inline SVG plots, Markdown, JSON, JUnit XML) read from a store.
package reports

import (
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/reports/tally"
)

// The matrices are computed by package tally, which the store folds each
// settled case into; a report shows them under these names.
type (
	Matrix        = tally.Matrix
	MatrixBuilder = tally.MatrixBuilder
	Row           = tally.Row
	Cell          = tally.Cell
	Claim         = tally.Claim
	ClaimVerdict  = tally.ClaimVerdict
	ClaimCounts   = tally.ClaimCounts
	Witness       = tally.Witness
	ToolTally     = tally.ToolTally
	ToolHint      = tally.ToolHint
	RuleCoverage  = tally.RuleCoverage
)

// The claim verdicts and their definition (see tally.ClaimsDefinition).
const (
	Confirmed        = tally.Confirmed
	Contradicted     = tally.Contradicted
	Unverified       = tally.Unverified
	ClaimsDefinition = tally.ClaimsDefinition
)

// BuildMatrix tallies verdicts by case (see tally.BuildMatrix).
func BuildMatrix(byCase map[string][]oracles.Verdict) Matrix { return tally.BuildMatrix(byCase) }
