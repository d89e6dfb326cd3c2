package sass

import (
	"context"
	"strings"

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
	rep.Replay = oracles.ReplayStages
	rep.Steps = []oracles.Step{
		{Name: "ptxas", Var: "PTXAS", Tool: ptxas.PTXAS124.Spec, Args: AssembleArgs(arch, cubinFile, oracles.PTXFile), Input: oracles.PTXFile, Output: cubinFile},
		{Name: "nvdisasm", Var: "NVDISASM", Tool: NVDisasm, Args: NVDisasmArgs(cubinFile), Input: cubinFile},
		{Name: "cuobjdump", Var: "CUOBJDUMP", Tool: CUObjdump, Args: CUObjdumpArgs(cubinFile), Input: cubinFile},
	}
	return rep
}

// Filing files the disassemblers' bugs with NVIDIA.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Component: oracles.Component{Tag: "NVIDIA (nvdisasm)", Name: "nvdisasm and cuobjdump", Tracker: "NVIDIA"},
		Tool: "nvdisasm", Subject: ptx.Subject}
}
