package replay

import (
	"context"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// Lit is a Planner whose replay is also a lit test of the bucket
// (corpus/repro's WriteTests): the RUN lines that state the correct
// outcome on the installation in, and the lit feature that marks its
// version (mlir-opt-19), which XFAIL lines name.
type Lit interface {
	LitRun(ctx context.Context, c Case, legal bool, in toolchain.Installation) (feature string, run []string)
}

// Checked wraps a RUN command with the check of the correct outcome: a
// legal case passes without an error; an illegal one is refused: an error
// in words and a failing exit status, not a crash (LLVM's not fails on a
// signal) and not an exit 0 (mlir-opt can print an error and exit 0,
// leaving the op it could not convert in its output).
func Checked(cmd string, legal bool) string {
	if legal {
		return cmd + " 2>&1 | %FileCheck %s --allow-empty"
	}
	return "%not " + cmd + " 2>&1 | %FileCheck %s --check-prefix=REFUSED"
}

// LitSub is the lit substitution of an installation's tool: %{llc_22}.
// The braces keep one label from being the start of another's.
func LitSub(name string, in toolchain.Installation) string {
	return "%{" + strings.ReplaceAll(name, "-", "_") + "_" + in.Label + "}"
}

// WrongLine is the emitted instruction a wrong-value bucket names, or "".
func WrongLine(obs oracles.Verdict) string {
	if oracles.ParseStage(obs.Rule).Fault != oracles.WrongValue {
		return ""
	}
	return valuecheck.EmittedLine(obs.Diagnostic)
}
