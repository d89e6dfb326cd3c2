package llvm

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/replay"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Reproducer replays an llc oracle's verdicts: llc of its installation on
// the IR module the oracle compiled.
type Reproducer struct{}

// Reproduce writes the IR module the named llc compiles, rendered with the
// located llc of that name (the rendering depends on the intrinsics it
// knows), and its command line.
func (Reproducer) Reproduce(ctx context.Context, r oracles.ReproRequest) oracles.Reproduction {
	var o *Oracle
	for _, orc := range r.Oracles {
		if lo, ok := orc.(*Oracle); ok && lo.Name() == r.Name {
			o = lo
		}
	}
	file := oracles.LLFile
	if r.Shared {
		file = "case." + r.Name + ".ll"
	}
	if o == nil {
		return oracles.NotWritten(file, r.Name+" is not available on this machine (legalfuzz oracles says why)")
	}
	bs, err := o.Batches([]domain.Case{r.Case})
	if err == nil && len(bs) == 0 {
		err = errors.New(r.Name + " cannot judge this case (see its verdict)")
	}
	if err != nil {
		return oracles.NotWritten(file, err.Error())
	}
	rep := oracles.Reproduction{Files: []oracles.ReproFile{{Name: file, Text: string(bs[0].Module)}}, Input: file,
		Commands: []string{"# llc of LLVM " + o.Version() + " (" + r.Name + ")", "llc " + strings.Join(bs[0].Args, " ") + " < " + file}}
	if in, ok := toolchain.In(r.Oracles, r.Name); ok {
		rep.Replay = oracles.ReplaySteps
		rep.Steps = []oracles.Step{{Name: "llc", Var: "LLC", Tool: in.Spec("llc"),
			Args: append(append([]string(nil), bs[0].Args...), file, "-o", llcPTX), Input: file, Output: llcPTX}}
	}
	return rep
}

// llcPTX is where a replay has llc write its PTX.
const llcPTX = `"$work/llc.ptx"`

// intrinsicName is the first NVVM intrinsic an IR file names.
var intrinsicName = regexp.MustCompile(`\bllvm\.nvvm\.[\w.]+`)

// Filing files llc's bugs with LLVM's NVPTX backend.
func (Reproducer) Filing() oracles.Filing {
	return oracles.Filing{Input: oracles.LLFile, Component: oracles.Component{Tag: "[NVPTX]", Name: "NVPTX backend", Tracker: "LLVM"}, Tool: "llc", Accepts: "compiles",
		Subject: func(read func(string) string, input, _ string) string { return intrinsicName.FindString(read(input)) }}
}

// Validity checks a reduced IR module (replay.Validator): the
// installation's llvm-as reads it.
func (Reproducer) Validity(ctx context.Context, c replay.Case, name string, lines []string) replay.Validity {
	in := c.Installation
	if in.Dir == "" || filepath.Ext(name) != filepath.Ext(oracles.LLFile) {
		return replay.Validity{}
	}
	as, err := in.Locate(ctx, "llvm-as")
	if err != nil || !replay.RunsClean(ctx, as.Path, oracles.LLFile, lines) {
		return replay.Validity{}
	}
	return replay.Validity{Valid: func(lines []string) bool { return replay.RunsClean(ctx, as.Path, oracles.LLFile, lines) },
		What: "llvm-as " + in.Label + " reads it"}
}
