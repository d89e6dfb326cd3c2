package reproduce

import (
	"context"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Reproducer replays the verdicts of an installation's mlir and mlir-nvvm
// oracles: the module in its release's spelling, the verifier's command
// and the lowering chain's, with that installation's tools.
type Reproducer struct{ mlirText }

// Reproduce writes the module the named oracle verifies and the commands
// of its stages.
func (Reproducer) Reproduce(ctx context.Context, r oracles.ReproRequest) oracles.Reproduction {
	// The replay reads MLIRFile: the other oracle of a pair of two MLIR
	// entry points (mlir@trunk and mlir-nvvm@trunk spell the case apart)
	// writes its module beside it.
	name := oracles.MLIRFile
	if r.Shared && !r.Observed {
		name = "case." + r.Name + ".mlir"
	}
	in, ok := toolchain.In(r.Oracles, r.Name)
	if !ok {
		return oracles.NotWritten(name, r.Name+"'s LLVM installation is not on this machine (legalfuzz oracles says why)")
	}
	o := mlir.NewRelease(r.Name, in.Major, tool.Tool{})
	file, args, err := o.VerifyCommand([]domain.Case{r.Case}, name)
	if err != nil {
		return oracles.NotWritten(name, err.Error())
	}
	if len(file) == 0 {
		return oracles.NotWritten(name, r.Name+" cannot spell this case (see its verdict)")
	}
	t := r.Case.Value.Target()
	opt, translate, llc := "mlir-opt", "mlir-translate", "llc"
	return oracles.Reproduction{
		Files: []oracles.ReproFile{{Name: name, Text: string(file)}}, Input: name, Replay: oracles.ReplayPlan,
		Commands: []string{
			"# the tools of the LLVM installation " + in.String() + " in " + in.Dir,
			"# the verifier (its verdicts have rule \"verify\"):",
			opt + " " + strings.Join(args, " "),
			"# what the verifier accepts is lowered, one step after another (rules \"lowering\", \"translate\", \"link\", \"llc\", \"ptxas\");",
			"# between the first two steps the gpu.module's body is cut out of case.lowered.mlir as a plain module (repro.sh does it with awk):",
			opt + " --pass-pipeline='" + mlir.Pipeline + "' " + name + " -o case.lowered.mlir",
			translate + " --mlir-to-llvmir case.lowered.mlir -o case.mlir.ll",
			llc + " " + strings.Join(mlir.LLCArgs(t, "case.mlir.ll", "case.mlir.ptx"), " "),
			"ptxas " + strings.Join(mlir.PtxasArgs(t, "case.mlir.ptx", "/dev/null"), " "),
		},
	}
}

// Plan replays the verdict's stage on MLIRFile: the verifier alone, the
// fewest passes of the lowering that show the bug, or the chain through
// llc and ptxas.
func (Reproducer) Plan(ctx context.Context, s *replay.Script, c replay.Case) { planMLIR(ctx, s, c) }

// Filing files MLIR's bugs with LLVM, under the dialect of the stage that
// failed or of the op.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: oracles.MLIRFile, ComponentOf: componentOf, Verifier: true, StageTools: stageTools,
		Subject: func(read func(string) string, _, _ string) string { return render.SubjectOp(read(oracles.MLIRFile)) }}
}

// PassesReproducer replays a pass judge's verdicts: the module of the
// release it starts from, then the pipelines before the pass and the pass
// alone. Its filing and case.mlir's reduction are the mlir oracle's: the
// passes are MLIR's. It has no lit test (replay.Lit).
type PassesReproducer struct{ mlirText }

// Reproduce writes the module a pass judge starts from (its release's
// rendering) and says how the judge ran the passes.
func (PassesReproducer) Reproduce(ctx context.Context, r oracles.ReproRequest) oracles.Reproduction {
	name := r.Name
	pr, _ := mlir.ReplayOf(name, "cse")
	r.Name = pr.Release
	rep := Reproducer{}.Reproduce(ctx, r)
	rep.Commands = append(rep.Commands,
		"# "+name+" runs MLIR's GPU passes beyond that lowering on "+oracles.MLIRFile+", each alone with --verify-each=false;",
		"# repro.sh replays the one the bucket names, after the pipelines that bring the module to its input")
	return rep
}

// Filing is the mlir oracle's.
func (PassesReproducer) Filing() oracles.Filing { return Reproducer{}.Filing() }

// Plan replays the pipelines before the pass the verdict names, then the
// pass alone.
func (PassesReproducer) Plan(ctx context.Context, s *replay.Script, c replay.Case) {
	planPasses(ctx, s, c)
}

// stageTools are the tools of the mlir oracle's stages after the lowering.
var stageTools = map[string]string{"translate": "mlir-translate", "link": "llvm-link", "llc": "llc", "ptxas": "ptxas"}

// The components of MLIR a bucket is filed under.
var (
	nvgpuComponent  = oracles.Component{Tag: "[MLIR][NVGPU]", Name: "MLIR, NVGPU dialect", Tracker: "LLVM"}
	nvvmComponent   = oracles.Component{Tag: "[MLIR][NVVM]", Name: "MLIR, NVVM dialect", Tracker: "LLVM"}
	llvmIRComponent = oracles.Component{Tag: "[MLIR][LLVMIR]", Name: "MLIR, LLVM IR translation", Tracker: "LLVM"}
	mlirComponent   = oracles.Component{Tag: "[MLIR]", Name: "MLIR", Tracker: "LLVM"}
)

// componentOf is the stage that failed when it names a dialect's
// conversion or the translation to LLVM IR, else the dialect of the op.
func componentOf(st oracles.Stage, op string) oracles.Component {
	switch {
	case st.Name == "pass:convert-nvgpu-to-nvvm":
		return nvgpuComponent
	case st.Name == "pass:convert-nvvm-to-llvm":
		return nvvmComponent
	case st.Name == "translate" && st.Fault != oracles.Refused:
		// mlir-translate refusing what the lowering made is the op's
		// verifier letting it through; anything else is the translation's.
		return llvmIRComponent
	case strings.HasPrefix(op, "nvgpu."):
		return nvgpuComponent
	case strings.HasPrefix(op, "nvvm."):
		return nvvmComponent
	}
	return mlirComponent
}
