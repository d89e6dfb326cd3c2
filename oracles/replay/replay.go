// Package replay is what an oracle family writes into a reproducer
// bundle's repro.sh (corpus/repro) when its replay is more than running
// its steps: the script its commands go into, the checks a replay ends on
// (the tool's words, a crash, an accept that emitted the operation, a
// wrong value, legalfuzz check), and what the bundle's reducer asks of the
// family's input text. corpus/repro assembles the bundle and asks the
// family (Planner, Validator, Editor); it knows no family by name.
package replay

import (
	"context"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Case is what a replay is planned for: the bundle's case, the deviating
// tool's verdict and the reference's (spec/ptxisa's, zero when it did not
// judge the case), and the bundle's folder, where the inputs are.
type Case struct {
	Case                domain.Case
	Observed, Reference oracles.Verdict
	Dir                 string
	// Installation is the LLVM installation of the observed oracle, the
	// one it judged with (toolchain.In); zero (no Dir) when it runs none
	// here.
	Installation toolchain.Installation
}

// Planner is a Reproducer whose Reproduction asks for oracles.ReplayPlan:
// it writes repro.sh's steps itself (MLIR's chain, where the fewest passes
// that show a bug are found by running them).
type Planner interface {
	Plan(ctx context.Context, s *Script, c Case)
}

// Validity is what a reduced input must still be for the stage before
// the one that fails: the tool's own parser and verifier judge it, so that
// a reduction never ends on text the tool refuses for another reason.
type Validity struct {
	// Valid reports whether a candidate is such an input; nil checks
	// nothing (no validator here).
	Valid func(lines []string) bool
	// Keep marks lines that must stay (the op under test); nil keeps none.
	Keep func(line string) bool
	// What says how candidates are checked, for the bundle's report.
	What string
}

// Validator is a Reproducer whose tools judge a reduced input valid: the
// input file name of the bundle, its lines as the reducer starts.
type Validator interface {
	Validity(ctx context.Context, c Case, name string, lines []string) Validity
}

// Editor is a Reproducer that reduces its input's text beyond deleting
// lines.
type Editor interface {
	// Ops matches the lines that run the operation under test: they stay
	// when the bug is work the tool dropped or computed wrong.
	Ops(line string) bool
	// Edit shrinks the input file name's lines, which deleting lines
	// (reduce) left, while test holds; reduce deletes lines again after
	// what its edits freed. It returns lines unchanged for a file it does
	// not edit.
	Edit(name string, lines []string, keep func(string) bool, test func([]string) bool, reduce func([]string) []string) []string
}

// instruction is the PTX a lowered case of a domain must hold for a tool's
// accept to mean it emitted the operation (not that it dropped it).
var instruction = map[string]string{
	"mma": "mma.", "wgmma": "wgmma.", "tmadesc": "cp.async.bulk.tensor", "tmamode": "cp.async.bulk.tensor",
	"ldsm": "matrix.sync", "cpasync": "cp.async", "kindword": "tcgen05.mma", "blockscale": "mma",
}

// Instruction is the PTX instruction a case of the domain is about, ""
// when none is known.
func Instruction(domain string) string { return instruction[domain] }
