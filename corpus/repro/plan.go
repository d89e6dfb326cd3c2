package repro

import (
	"context"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/registry"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// plan writes repro.sh's steps for the deviating tool's verdict on the
// bundle's case, as the tool's oracle says to replay it (its
// Reproduction): tools with an input file run the smallest command that
// shows the bug; the rest, and a seed's algorithm under test, replay
// through legalfuzz check.
func plan(ctx context.Context, bd Bundle) *replay.Script {
	s := &replay.Script{}
	c := replayCase(bd)
	rep := bd.reproductions[bd.Observed.Oracle]
	if rep.Input == "" || !fileIn(bd.Dir, rep.Input) || policy.ClassOf(bd.Bucket.Signature) == policy.SeedEvidence {
		replay.Check(s, c)
		return s
	}
	p, planner := reproducerOf(bd.Observed.Oracle).(replay.Planner)
	switch {
	case rep.Replay == oracles.ReplayPlan && planner:
		p.Plan(ctx, s, c)
	case rep.Replay == oracles.ReplaySteps:
		planSteps(s, c, rep.Steps)
	case rep.Replay == oracles.ReplayStages:
		planStages(s, c, rep.Steps)
	default:
		replay.Check(s, c)
	}
	return s
}

// replayCase is what an oracle's replay needs of the bundle.
func replayCase(bd Bundle) replay.Case {
	in, _ := toolchain.In(bd.found, bd.Observed.Oracle)
	return replay.Case{Case: bd.Case, Observed: bd.Observed, Reference: bd.Reference, Dir: bd.Dir, Installation: in}
}

// reproducerOf is the named oracle's family's reproducer, nil for an
// oracle that runs in process.
func reproducerOf(name string) oracles.Reproducer {
	r, _ := registry.Reproducer(name)
	return r
}

// planSteps runs the oracle's steps, the last one under test: a wrong
// value is judged by what the code it emitted computes, the rest by what
// the tool did (replay.JudgeLast).
func planSteps(s *replay.Script, c replay.Case, steps []oracles.Step) {
	last := steps[len(steps)-1]
	for _, st := range steps[:len(steps)-1] {
		s.Add(stepLine(s, st), fmt.Sprintf(`clean %s || cannot "%s failed before the step under test"`, st.Name, st.Name))
	}
	s.Add(stepLine(s, last))
	if oracles.ParseStage(c.Observed.Rule).Fault == oracles.WrongValue && last.Output != "" {
		s.Add(fmt.Sprintf(`clean %s || cannot "%s refused the case"`, last.Name, last.Name))
		replay.WrongValue(s, c, strings.Trim(last.Output, `"`))
		return
	}
	replay.JudgeLast(s, last.Name, c.Observed, last.Output)
}

// stepLine is repro.sh's line that runs one step.
func stepLine(s *replay.Script, st oracles.Step) string {
	return "step " + st.Name + " " + s.Need(st.Var, st.Tool) + " " + strings.Join(st.Args, " ")
}
