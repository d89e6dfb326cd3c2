package ptxas

import (
	"context"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Reproducer replays the ptxas family's verdicts (ptxas, ptxas13): ptxas
// on the case's PTX module, judged by what it said.
type Reproducer struct{}

// Reproduce writes the module ptxas assembles and its command line.
func (Reproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	rep := ptx.Reproduction(r.Case)
	if rep.Input == "" {
		return rep
	}
	cfg, which := PTXAS124, "CUDA 12.4's ptxas"
	if r.Name == PTXAS13.Name {
		cfg, which = PTXAS13, "CUDA 13's ptxas"
	}
	args := New(cfg, tool.Tool{}).CommandArgs(r.Case.Value.Target().Arch, oracles.PTXFile)
	rep.Commands = []string{"# " + which, "ptxas " + strings.Join(args, " ")}
	rep.Replay = oracles.ReplaySteps
	rep.Steps = []oracles.Step{{Name: "ptxas", Var: "PTXAS", Tool: cfg.Spec, Args: args, Input: oracles.PTXFile}}
	return rep
}

// Filing files ptxas's bugs with NVIDIA.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: oracles.PTXFile, Component: oracles.Component{Tag: "NVIDIA (ptxas)", Name: "ptxas", Tracker: "NVIDIA"},
		Tool: "ptxas", Subject: ptx.Subject}
}
