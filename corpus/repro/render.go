package repro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/amdgpu"
	"github.com/legalfuzz/legalfuzz/oracles/cuda"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Rendered input files.
const (
	PTXFile    = "case.ptx"
	MLIRFile   = "case.mlir"
	LLFile     = "case.ll"
	DriverFile = "case.driver.json"
	AsmFile    = "case.s"
)

// render writes the input oracle name was given for c and returns the
// command lines (and comments) that run the tool on it.
func render(ctx context.Context, w *writer, c domain.Case, name string, twoLLC bool, orcs []oracles.Oracle) []string {
	switch {
	case name == ptxas.PTXAS124.Name || name == ptxas.PTXAS13.Name:
		return renderPTXAS(w, c, name)
	case name == oracles.SASS:
		return renderSASS(w, c)
	case name == cuda.JITName:
		return append(renderPTX(w, c), "# the driver's JIT (cuModuleLoadDataEx) compiles "+PTXFile+" on a GPU machine; legalfuzz check runs it there")
	case name == cuda.DriverName:
		return renderDriver(w, c)
	case name == cuda.GPUName:
		if c.Domain == tmadesc.Name {
			return append(renderDriver(w, c), "# the gpu oracle then runs a TMA load with this tensor map; legalfuzz check runs it on a GPU machine")
		}
		return append(renderPTX(w, c), "# the gpu oracle runs kernels built from "+PTXFile+" and compares what they compute; legalfuzz check runs them on a GPU machine")
	case isMLIR(name):
		return renderMLIR(ctx, w, c, name)
	case mlir.IsPassJudge(name):
		return renderPasses(ctx, w, c, name)
	case oracles.Matches(oracles.LLC, name):
		return renderLLC(ctx, w, c, name, twoLLC, orcs)
	case oracles.Matches(amdgpu.Name, name):
		return renderAMDGPU(w, c, name)
	case strings.HasPrefix(name, "spec/"):
		return []string{"# " + name + " is legalfuzz's own rule set (oracles/spec), judged in process: legalfuzz check above"}
	case strings.HasPrefix(name, "exec:"):
		return []string{fmt.Sprintf("# %s is your verifier: it gets %s's value over legalfuzz-exec/1; replay with", name, CaseFile),
			fmt.Sprintf("legalfuzz --oracle %s=COMMAND check --domain %s %s", name, c.Domain, CaseFile)}
	}
	return []string{"# " + name + " runs in process (no external input); legalfuzz check above replays it"}
}

// llcOf lists the pair's llc oracles.
func llcOf(p policy.Pair) []string {
	var out []string
	for _, n := range pairOracles(p) {
		if oracles.Matches(oracles.LLC, n) {
			out = append(out, n)
		}
	}
	return out
}

// renderPTX writes the case's PTX module, as package ptx renders it for
// every PTX tool. It returns a note when PTX cannot spell the case.
func renderPTX(w *writer, c domain.Case) []string {
	text, err := ptxModule(c)
	if err != nil {
		return []string{"# " + PTXFile + " not written: " + err.Error()}
	}
	w.file(PTXFile, text)
	return nil
}

// ptxModule renders the case as a one-entry PTX module for its target.
func ptxModule(c domain.Case) (string, error) {
	if !ptx.Renders(c.Domain) {
		return "", fmt.Errorf("no PTX renderer for domain %s", c.Domain)
	}
	e, err := ptx.Render(c)
	if err != nil {
		return "", err
	}
	text, _, err := ptx.Module([]ptx.Entry{e})
	return text, err
}

// renderPTXAS writes the module ptxas assembles and its command line.
func renderPTXAS(w *writer, c domain.Case, name string) []string {
	if notes := renderPTX(w, c); notes != nil {
		return notes
	}
	cfg, which := ptxas.PTXAS124, "CUDA 12.4's ptxas"
	if name == ptxas.PTXAS13.Name {
		cfg, which = ptxas.PTXAS13, "CUDA 13's ptxas"
	}
	args := ptxas.New(cfg, tool.Tool{}).CommandArgs(c.Value.Target().Arch, PTXFile)
	return []string{"# " + which, "ptxas " + strings.Join(args, " ")}
}

// renderDriver writes a tmadesc case's cuTensorMapEncode* call parameters.
func renderDriver(w *writer, c domain.Case) []string {
	v, ok := c.Value.(tmadesc.Value)
	if !ok {
		return []string{"# no driver call for domain " + c.Domain}
	}
	call := cuda.NewTensorMapCall(v)
	data, err := json.MarshalIndent(map[string]any{"entry": call.Entry, "call": call, "c": call.String()}, "", "  ")
	if err != nil {
		return []string{"# " + DriverFile + " not written: " + err.Error()}
	}
	w.file(DriverFile, string(data)+"\n")
	return []string{"# the driver call (parameters in " + DriverFile + "), made on a GPU machine by legalfuzz check:", "# " + call.String()}
}

// renderMLIR writes the module the named MLIR oracle (mlir@LABEL)
// verifies, in its release's spelling, and the verifier's and the
// lowering's command lines with that installation's tools.
func renderMLIR(ctx context.Context, w *writer, c domain.Case, name string) []string {
	in, ok := installation(ctx, name)
	if !ok {
		return []string{"# " + MLIRFile + " not written: " + name + "'s LLVM installation is not on this machine (legalfuzz oracles says why)"}
	}
	o := mlir.NewRelease(name, in.Major, tool.Tool{})
	file, args, err := o.VerifyCommand([]domain.Case{c}, MLIRFile)
	if err != nil {
		return []string{"# " + MLIRFile + " not written: " + err.Error()}
	}
	if len(file) == 0 {
		return []string{"# " + MLIRFile + " not written: " + name + " cannot spell this case (see its verdict)"}
	}
	w.file(MLIRFile, string(file))
	t := c.Value.Target()
	opt, translate, llc := "mlir-opt", "mlir-translate", "llc"
	return []string{
		"# the tools of the LLVM installation " + in.String() + " in " + in.Dir,
		"# the verifier (its verdicts have rule \"verify\"):",
		opt + " " + strings.Join(args, " "),
		"# what the verifier accepts is lowered, one step after another (rules \"lowering\", \"translate\", \"link\", \"llc\", \"ptxas\");",
		"# between the first two steps the gpu.module's body is cut out of case.lowered.mlir as a plain module (repro.sh does it with awk):",
		opt + " --pass-pipeline='" + mlir.Pipeline + "' " + MLIRFile + " -o case.lowered.mlir",
		translate + " --mlir-to-llvmir case.lowered.mlir -o case.mlir.ll",
		llc + " " + strings.Join(mlir.LLCArgs(t, "case.mlir.ll", "case.mlir.ptx"), " "),
		"ptxas " + strings.Join(mlir.PtxasArgs(t, "case.mlir.ptx", "/dev/null"), " "),
	}
}

// renderLLC writes the IR module the llc oracle compiles, with a located
// llc of that name (the rendering depends on the intrinsics it knows).
func renderLLC(ctx context.Context, w *writer, c domain.Case, name string, twoLLC bool, orcs []oracles.Oracle) []string {
	var o *llvm.Oracle
	for _, orc := range orcs {
		if lo, ok := orc.(*llvm.Oracle); ok && lo.Name() == name {
			o = lo
		}
	}
	file := LLFile
	if twoLLC {
		file = "case." + name + ".ll"
	}
	if o == nil {
		return []string{"# " + file + " not written: " + name + " is not available on this machine (legalfuzz oracles says why)"}
	}
	bs, err := o.Batches([]domain.Case{c})
	if err == nil && len(bs) == 0 {
		err = errors.New(name + " cannot judge this case (see its verdict)")
	}
	if err != nil {
		return []string{"# " + file + " not written: " + err.Error()}
	}
	w.file(file, string(bs[0].Module))
	w.llcArgs = bs[0].Args
	return []string{"# llc of LLVM " + o.Version() + " (" + name + ")", "llc " + strings.Join(bs[0].Args, " ") + " < " + file}
}

// renderAMDGPU writes the assembly the lowering under test makes of a
// waitcnt program, as the amdgpu-mc oracle assembles it.
func renderAMDGPU(w *writer, c domain.Case, name string) []string {
	mc := "llvm-mc" // of the installation the oracle's label names
	if a, ok := c.Value.(waitcntasm.Value); ok {
		w.file(AsmFile, a.Text()+"\n")
		args := strings.Join(amdgpu.Args(a.CPU.String()), " ")
		return []string{mc + " " + args + " < " + AsmFile,
			"# the round trip: the listed encoding's bytes through " + mc + " -arch=amdgcn -mcpu=" + a.CPU.String() +
				" -disassemble, and the disassembly through the first command again"}
	}
	v, ok := c.Value.(waitcnt.Value)
	if !ok {
		return []string{"# no assembly for domain " + c.Domain}
	}
	asm, err := lower.Asm(v, lower.Lower(v))
	if err != nil {
		return []string{"# " + AsmFile + " not written: " + err.Error()}
	}
	w.file(AsmFile, strings.Join(asm, "\n")+"\n")
	return []string{mc + " " + strings.Join(amdgpu.Args(v.GPU.String()), " ") + " < " + AsmFile}
}
