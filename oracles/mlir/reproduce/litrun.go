package reproduce

import (
	"context"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// LitRun is the RUN lines of an MLIR bucket (replay.Lit) on an installation: the
// stage that fails, the smallest command as in repro.sh; a legal case the
// wgmma lowering cannot compile runs the chain through llc.
func (Reproducer) LitRun(ctx context.Context, c replay.Case, legal bool, in toolchain.Installation) (string, []string) {
	return fmt.Sprintf("mlir-opt-%d", in.Major), mlirRun(ctx, c, legal, in)
}

// mlirRun is LitRun's RUN lines.
func mlirRun(ctx context.Context, c replay.Case, legal bool, in toolchain.Installation) []string {
	obs := c.Observed
	tools := mlir.ToolsOf(in)
	opt := replay.LitSub("mlir-opt", in)
	stage, fault := replayStage(obs.Rule)
	switch {
	case stage == "verify" && fault == "":
		return []string{replay.Checked(opt+" %s -o /dev/null", legal)}
	case stage == "lowering" && fault == "" && replay.Outcome(obs) != "accept":
		if flag, ok := shortestPasses(ctx, c.Dir, tools.Opt, showsFor(obs)); ok {
			return []string{replay.Checked(opt+" "+flag+" %s -o /dev/null", legal)}
		}
	}
	pipeline := opt + " --pass-pipeline='" + mlir.Pipeline + "' %s"
	if !legal {
		// Legality is the verifier's and the lowering's to check: an
		// illegal case must be refused before it becomes LLVM IR.
		return []string{replay.Checked(pipeline+" -o /dev/null", false)}
	}
	t := mlirTarget(c.Dir, c.Case.Value.Target())
	run := []string{
		replay.Checked(pipeline+" -o %t.lowered.mlir", true),
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' %t.lowered.mlir > %t.device.mlir`,
		replay.LitSub("mlir-translate", in) + " --mlir-to-llvmir %t.device.mlir -o %t.ll",
	}
	line := replay.WrongLine(c.Observed)
	if line == "" {
		return append(run, replay.Checked(replay.LitSub("llc", in)+" "+strings.Join(mlir.LLCArgs(t, "%t.ll", "/dev/null"), " "), true))
	}
	// The wrong value is in what llc emits (or in the host code's call):
	// the test evaluates it and checks that the line the bucket names is
	// gone.
	assign, onHost := valuecheck.Input(line)
	input := "%t.ptx"
	if onHost {
		input = "%t.lowered.mlir"
	}
	return append(run, replay.Checked(replay.LitSub("llc", in)+" "+strings.Join(mlir.LLCArgs(t, "%t.ll", "%t.ptx"), " "), true),
		"awk -v '"+assign+"' -f %S/"+replay.ValuesAwk+" "+input+" | %FileCheck %s --check-prefix=VALUE --allow-empty")
}
