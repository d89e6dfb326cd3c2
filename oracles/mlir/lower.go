package mlir

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Lowering is the tool chain after the verifier.
type Lowering struct {
	Translate, Link, LLC tool.Tool
	// Ptxas assembles llc's PTX; a zero Path stops the lowering at llc.
	Ptxas tool.Tool
}

// Pipeline lowers a case's module to the LLVM dialect: the nvgpu ops to
// nvvm, the nvvm ops without an LLVM intrinsic to inline PTX, and the rest
// of each gpu.module to LLVM (toolchains.md's working pipeline, with the
// target already on the gpu.module).
const Pipeline = "builtin.module(convert-nvgpu-to-nvvm,gpu-kernel-outlining,convert-vector-to-scf," +
	"convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,expand-strided-metadata,lower-affine," +
	"convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,gpu.module(strip-debuginfo," +
	"convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts))"

// irMarker separates mlir-translate's output modules.
const irMarker = "; -----"

// piece is a case in the lowering with its current text.
type piece struct {
	j    *job
	text string
}

// lower takes the cases the verifier accepted through the lowering steps.
func (o *Oracle) lower(ctx context.Context, jobs []*job) error {
	var ps []piece
	for _, j := range jobs {
		if j.v.Kind == oracles.Accept {
			ps = append(ps, piece{j: j, text: j.text})
		}
	}
	in := ps
	lowerStage := stage{name: stageLowering, tool: o.Opt, args: []string{timingFlag, "--pass-pipeline=" + Pipeline}, marker: SplitMarker}
	ps, err := o.step(ctx, lowerStage, ps, func(p piece, out string) (string, error) {
		p.j.host, _, _ = strings.Cut(out, "\n  gpu.module @")
		return deviceModule(p, out, o.spelling.VectorAsmOK())
	})
	if err != nil {
		return err
	}
	if err := o.namePasses(ctx, in); err != nil {
		return err
	}
	translate := stage{name: stageTranslate, tool: o.Lower.Translate, args: []string{"--mlir-to-llvmir"}, marker: irMarker}
	ps, err = o.step(ctx, translate, ps, readValue)
	if err != nil {
		return err
	}
	for _, group := range byTarget(ps) {
		for batch := range slices.Chunk(group, o.batchSize()) {
			if err := o.backend(ctx, batch); err != nil {
				return err
			}
		}
	}
	for _, p := range in {
		convict(p.j.v)
	}
	return nil
}

// setFault records a fault of MLIR's that legalfuzz found in a stage's
// output.
func setFault(v *oracles.Verdict, prefix string, f *faultError) {
	v.Kind, v.Rule, v.Diagnostic = oracles.Error, f.stage.String(), prefix+f.msg
}

// step runs a split stage over the pieces, records the failures, and passes
// the survivors' output through next (which may fail a case itself).
func (o *Oracle) step(ctx context.Context, st stage, ps []piece, next func(piece, string) (string, error)) ([]piece, error) {
	var kept []piece
	for batch := range slices.Chunk(ps, o.batchSize()) {
		ts := make([]string, len(batch))
		for i, p := range batch {
			ts[i] = p.text
		}
		res, err := o.runSplit(ctx, st, ts)
		if err != nil {
			return nil, err
		}
		for i, p := range batch {
			if res[i].outcome != passed {
				setVerdict(p.j.v, st.name, res[i])
				continue
			}
			text, err := next(p, res[i].out)
			var f *faultError
			if errors.As(err, &f) {
				setFault(p.j.v, st.prefix(), f)
				continue
			}
			if err != nil {
				setVerdict(p.j.v, st.name, chunkResult{outcome: crashed, diag: st.prefix() + err.Error()})
				continue
			}
			kept = append(kept, piece{j: p.j, text: text})
		}
	}
	return kept, nil
}

// deviceModule cuts the lowered gpu.module's body out of mlir-opt's output
// as a plain module, the form mlir-translate reads.
func deviceModule(p piece, out string, vectorAsmOK bool) (string, error) {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "  gpu.module @"):
			in = true
			b.WriteString("module {\n")
		case in && line == "  }":
			b.WriteString("}\n")
			if err := unconverted(b.String()); err != nil {
				return "", err
			}
			return b.String(), checkConstraints(b.String(), vectorAsmOK)
		case in:
			b.WriteString(line + "\n")
		}
	}
	return "", fmt.Errorf("no gpu.module in the lowered output of %s", render.KernelName(p.j.c))
}

// inlineAsm matches the template and constraint strings of an
// llvm.inline_asm and the rest of its line (operands and types).
var (
	inlineAsm  = regexp.MustCompile(`(?m)llvm\.inline_asm[^"]*"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"(.*)$`)
	constraint = regexp.MustCompile(`^(?:(?:=|\+)&?\*?[bhrlfdn]|\*?[bhrlfdn]|[0-9]+|~?\{[^}]*\})$`)
)

// errJunkConstraint is charged to the lowering: LLVM 19's PTX builder (the
// nvvm ops lowered to inline PTX, such as wgmma) has no register constraint
// for a vector operand (the vector<2xf16> pairs of an f16 wgmma
// accumulator) and writes uninitialized bytes instead, so what llvm-link or
// llc would say depends on those bytes.
var errJunkConstraint = errors.New("llvm.inline_asm for wgmma with a vector operand has no valid constraint (uninitialized bytes in the constraint string)")

// checkConstraints refuses wgmma inline assembly with vector-typed
// operands (unless vectorAsmOK: MLIR 22 writes "=f" for them, which llc-22
// and ptxas take), and any whose constraints are not the ones the
// lowerings write (b h r l f d n, tied operand numbers, clobbers).
func checkConstraints(module string, vectorAsmOK bool) error {
	for _, m := range inlineAsm.FindAllStringSubmatch(module, -1) {
		if !vectorAsmOK && strings.Contains(m[1], "wgmma") && strings.Contains(m[3], "vector<") {
			return errJunkConstraint
		}
		if m[2] == "" {
			continue
		}
		for _, c := range strings.Split(m[2], ",") {
			if !constraint.MatchString(c) {
				return errJunkConstraint
			}
		}
	}
	return nil
}

// storedValue finds the constant a value-computing kernel stores through
// its result pointer.
var storedValue = regexp.MustCompile(`store i64 (-?\d+), ptr addrspace\(1\)`)

// readValue records, for kernels that compute a value, the constant they
// store; the LLVM IR is passed on unchanged.
func readValue(p piece, ir string) (string, error) {
	if !p.j.value {
		return ir, nil
	}
	m := storedValue.FindStringSubmatch(ir)
	if m == nil {
		return "", fmt.Errorf("no constant result stored by %s (the descriptor did not fold)", render.KernelName(p.j.c))
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return "", fmt.Errorf("stored result %q: %w", m[1], err)
	}
	p.j.v.Value = fmt.Sprintf("0x%016x", uint64(n))
	return ir, nil
}

// byTarget groups pieces by target (llc and ptxas take one per run), in a
// stable order.
func byTarget(ps []piece) [][]piece {
	idx := map[target.Target]int{}
	var groups [][]piece
	for _, p := range ps {
		t := p.j.target
		i, ok := idx[t]
		if !ok {
			i = len(groups)
			idx[t] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], p)
	}
	return groups
}
