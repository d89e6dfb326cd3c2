package sass

import (
	"context"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
)

// Reproducer replays the sass oracle's round trip by hand, so that the log
// shows each tool's own words: ptxas writes the cubin, nvdisasm and
// cuobjdump read it.
type Reproducer struct{}

// cubinFile is where a replay has ptxas write the cubin.
const cubinFile = `"$work/case.cubin"`

// Reproduce writes the module the sass oracle assembles and its three
// command lines.
func (Reproducer) Reproduce(_ context.Context, r oracles.ReproRequest) oracles.Reproduction {
	rep := ptx.Reproduction(r.Case)
	if rep.Input == "" {
		return rep
	}
	arch := r.Case.Value.Target().Arch.String()
	rep.Commands = []string{"# CUDA 12.4's ptxas, then both disassemblers on its cubin",
		"ptxas " + strings.Join(AssembleArgs(arch, "case.cubin", oracles.PTXFile), " "),
		"nvdisasm " + strings.Join(NVDisasmArgs("case.cubin"), " "),
		"cuobjdump " + strings.Join(CUObjdumpArgs("case.cubin"), " ")}
	rep.Commands = append(rep.Commands, typedCommands(r.Case)...)
	rep.Replay = oracles.ReplayStages
	rep.Steps = []oracles.Step{
		{Name: "ptxas", Var: "PTXAS", Tool: ptxas.PTXAS124.Spec, Args: AssembleArgs(arch, cubinFile, oracles.PTXFile), Input: oracles.PTXFile, Output: cubinFile},
		{Name: "nvdisasm", Var: "NVDISASM", Tool: NVDisasm, Args: NVDisasmArgs(cubinFile), Input: cubinFile},
		{Name: "cuobjdump", Var: "CUOBJDUMP", Tool: CUObjdump, Args: CUObjdumpArgs(cubinFile), Input: cubinFile},
	}
	return rep
}

// typedCommands shows, for a case whose PTX holds an instruction the
// SASS spells with its types (step 5, sass/value), what ptxas 12.4 must
// spell it as, and the listing's lines to compare.
func typedCommands(c domain.Case) []string {
	e, err := ptx.Render(c)
	if err != nil {
		return nil
	}
	want, families := expected(e.Text, e.Target.Arch)
	if len(want) == 0 {
		return nil
	}
	return []string{"# the SASS the PTX's typed instructions must assemble to (docs/sass.md, \"Types in the SASS\"): " + strings.Join(want, "; "),
		"nvdisasm " + strings.Join(NVDisasmArgs("case.cubin"), " ") + " | grep -E '" + strings.Join(families, "|") + "'"}
}

// disassemblers is the component of the disassemblers' bugs.
var disassemblers = oracles.Component{Tag: "NVIDIA (nvdisasm)", Name: "nvdisasm and cuobjdump", Tracker: "NVIDIA"}

// Filing files the disassemblers' bugs with NVIDIA, and a wrong type in the
// SASS (sass/value, which both listings show alike) as ptxas's.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Component: disassemblers, ComponentOf: func(st oracles.Stage, _ string) oracles.Component {
		if st.Fault == oracles.WrongValue {
			return ptxas.Reproducer{}.Filing().Component
		}
		return disassemblers
	}, Tool: "nvdisasm", Subject: ptx.Subject}
}
