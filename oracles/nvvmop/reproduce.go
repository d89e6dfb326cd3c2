package nvvmop

import (
	"context"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// The bundle files a reproduction writes: the op in its gpu.module (what
// mlir-opt verifies) and its function alone (what mlir-translate reads).
const (
	VerifyFile    = "case.nvvm-op.mlir"
	TranslateFile = "case.nvvm-op.func.mlir"
)

// Reproducer replays an nvvm-op judge's verdicts: the three command lines
// of its chain on the files it wrote; repro.sh replays the verdict with
// legalfuzz check (the verdict may come from any of the three stages).
type Reproducer struct{}

// Reproduce writes the case's two MLIR files and the chain's commands,
// with the judging installation's tools, and its spelling of the case,
// when it was discovered here.
func (Reproducer) Reproduce(ctx context.Context, r oracles.ReproRequest) oracles.Reproduction {
	v, ok := Value(r.Case)
	if !ok {
		return oracles.NotWritten(VerifyFile, r.Name+" judges only nvvmop cases")
	}
	for _, o := range r.Oracles {
		if j, ok := o.(*Oracle); ok && j.Name() == r.Name {
			if defined, err := j.defines(ctx, v.Op); err == nil && defined {
				v = j.respelled(v)
			}
		}
	}
	opt, translate, llc := "mlir-opt", "mlir-translate", "llc"
	if in, ok := toolchain.In(r.Oracles, r.Name); ok {
		opt, translate, llc = in.Path(opt), in.Path(translate), in.Path(llc)
	}
	return oracles.Reproduction{
		Files: []oracles.ReproFile{{Name: VerifyFile, Text: Verified(v)}, {Name: TranslateFile, Text: Translated(v)}},
		Input: VerifyFile,
		Commands: []string{
			"# " + r.Name + ": mlir-opt verifies the op for its target, then mlir-translate and llc compile it",
			opt + " " + VerifyFile + " -o /dev/null",
			translate + " --mlir-to-llvmir " + TranslateFile + " -o case.nvvm-op.ll",
			llc + " " + strings.Join(LLCArgs(v)[:3], " ") + " case.nvvm-op.ll -o case.nvvm-op.ptx",
		},
	}
}

// genericOp is the op a generic-form file names.
var genericOp = regexp.MustCompile(`"(nvvm\.[\w.]+)"\(`)

// Filing files the family's bugs with MLIR's NVVM dialect: its verifier
// accepts what its own translation and the NVPTX backend refuse.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: VerifyFile, Component: oracles.Component{Tag: "[MLIR][NVVM]", Name: "MLIR, NVVM dialect", Tracker: "LLVM"},
		Verifier: true, StageTools: map[string]string{StageTranslate: "mlir-translate", StageLLC: "llc"},
		Subject: func(read func(string) string, input, _ string) string {
			if m := genericOp.FindStringSubmatch(read(input)); m != nil {
				return m[1]
			}
			return ""
		}}
}
