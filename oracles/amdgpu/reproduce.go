package amdgpu

import (
	"context"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Reproducer replays an amdgpu-mc oracle's verdicts: llvm-mc of its
// installation on the assembly it was given.
type Reproducer struct{}

// Reproduce writes the assembly (a waitcnt program's, as the lowering
// under test makes it) and llvm-mc's command line.
func (Reproducer) Reproduce(ctx context.Context, r oracles.ReproRequest) oracles.Reproduction {
	mc := "llvm-mc" // of the oracle's installation
	var rep oracles.Reproduction
	var cpu string
	switch v := r.Case.Value.(type) {
	case waitcntasm.Value:
		cpu = v.CPU.String()
		rep.Files = []oracles.ReproFile{{Name: oracles.AsmFile, Text: v.Text() + "\n"}}
		rep.Commands = []string{mc + " " + strings.Join(Args(cpu), " ") + " < " + oracles.AsmFile,
			"# the round trip: the listed encoding's bytes through " + mc + " -arch=amdgcn -mcpu=" + cpu +
				" -disassemble, and the disassembly through the first command again"}
	case waitcnt.Value:
		asm, err := lower.Asm(v, lower.Lower(v))
		if err != nil {
			return oracles.NotWritten(oracles.AsmFile, err.Error())
		}
		cpu = v.GPU.String()
		rep.Files = []oracles.ReproFile{{Name: oracles.AsmFile, Text: strings.Join(asm, "\n") + "\n"}}
		rep.Commands = []string{mc + " " + strings.Join(Args(cpu), " ") + " < " + oracles.AsmFile}
	default:
		return oracles.Reproduction{Commands: []string{"# no assembly for domain " + r.Case.Domain}}
	}
	rep.Input = oracles.AsmFile
	if in, ok := toolchain.In(r.Oracles, r.Name); ok {
		rep.Replay = oracles.ReplaySteps
		rep.Steps = []oracles.Step{{Name: "mc", Var: "LLVM_MC", Tool: in.Spec("llvm-mc"),
			Args: append(Args(cpu), oracles.AsmFile), Input: oracles.AsmFile}}
	}
	return rep
}

// Filing files llvm-mc's bugs with LLVM's AMDGPU assembler.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: oracles.AsmFile, Component: oracles.Component{Tag: "[AMDGPU][MC]", Name: "AMDGPU assembler (MC)", Tracker: "LLVM"},
		Tool: "llvm-mc", Docs: "the AMDGPU assembler syntax documentation", Subject: asmInstruction}
}

// asmInstruction is the first line of the bundle's assembly that is an
// instruction, not a directive, a label or a comment.
func asmInstruction(read func(string) string, _, _ string) string {
	for _, line := range strings.Split(read(oracles.AsmFile), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "//") &&
			!strings.HasPrefix(line, ";") && !strings.HasSuffix(line, ":") {
			return line
		}
	}
	return ""
}
