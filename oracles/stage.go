package oracles

import (
	"slices"
	"strings"
)

// Fault says how a staged tool chain (MLIR: parse, verify, each pass,
// translate, llc, ptxas) failed a case it did not reject in its own words.
// It follows the stage in an Error verdict's Rule, "STAGE/FAULT": the stage
// is where the fault showed, the tool at fault is the oracle itself. When a
// tool accepts a case and a later tool rejects that tool's own output, the
// first tool is wrong, whatever the spec says: such verdicts are never
// agreement and never expected.
type Fault string

const (
	// Refused: a later tool of the chain refused the chain's own output
	// (mlir-translate, llc or ptxas on what MLIR lowered). The stage names
	// the tool that refused.
	Refused Fault = "refused"
	// ExitZero: the stage printed an error and exited 0, as if it had
	// succeeded.
	ExitZero Fault = "exit-0"
	// Unconverted: the lowering exited 0 but left an op of the source
	// dialect in its output.
	Unconverted Fault = "unconverted"
	// PassRefused: the tool's verifier accepted the case and a pass of the
	// same installation's lowering refused it in its own words: the
	// verifier lets through what its own lowering cannot handle, a bug of
	// the verifier whatever the spec says of the case. The stage names the
	// pass (MLIR's chain), or the later tool of the same installation that
	// refused what the verifier accepted (the nvvm-op judges: translate,
	// llc).
	PassRefused Fault = "pass-refused"
	// Dropped: the chain emitted code without the instruction the op asked
	// for, or with fewer or smaller ones: work silently lost.
	Dropped Fault = "dropped"
	// WrongValue: the chain emitted the instruction the op asked for, but
	// with another type, qualifier, immediate or descriptor than the op
	// means: the kernel computes something else.
	WrongValue Fault = "value"
	// InvalidIR: a pass exited 0 with output the verifier rejects.
	InvalidIR Fault = "invalid-ir"
	// Disagree: two tools that read the same output (nvdisasm and cuobjdump
	// on one cubin) printed different instructions for it.
	Disagree Fault = "disagree"
)

// faults are the Fault values a Rule may end with.
var faults = []Fault{Refused, ExitZero, Unconverted, PassRefused, Dropped, WrongValue, InvalidIR, Disagree}

// Stage is where a staged tool decided a case, and how it failed there
// when it did not decide in its own words.
type Stage struct {
	// Name is the stage: "parse", "verify", "pass:NAME", "translate",
	// "llc", "ptxas", "ptx" (the emitted PTX checked against the op).
	Name  string
	Fault Fault
}

// String is the stage as a verdict's Rule spells it: "NAME" or
// "NAME/FAULT".
func (s Stage) String() string {
	if s.Fault == "" {
		return s.Name
	}
	return s.Name + "/" + string(s.Fault)
}

// ParseStage reads a Rule written by Stage.String; a rule without a known
// fault suffix is a stage name alone.
func ParseStage(rule string) Stage {
	if i := strings.LastIndexByte(rule, '/'); i > 0 {
		for _, f := range faults {
			if rule[i+1:] == string(f) {
				return Stage{Name: rule[:i], Fault: f}
			}
		}
	}
	return Stage{Name: rule}
}

// chainOrder is the order in which a staged chain runs its stages (every
// pass is part of the lowering): a case decided at one never reached the
// ones after it.
var chainOrder = []string{"parse", "verify", "lowering", "translate", "link", "llc", "ptx", "ptxas"}

// Before reports whether s runs before t in the chain. Stages outside it
// (a one-stage tool's) are in no order: neither comes before the other.
func (s Stage) Before(t Stage) bool {
	i, j := slices.Index(chainOrder, s.step()), slices.Index(chainOrder, t.step())
	return i >= 0 && j >= 0 && i < j
}

// step is the stage's place in chainOrder: a pass is the lowering.
func (s Stage) step() string {
	if strings.HasPrefix(s.Name, "pass:") {
		return "lowering"
	}
	return s.Name
}
