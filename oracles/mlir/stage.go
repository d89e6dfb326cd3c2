package mlir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// The stages a verdict's Rule names (see oracles.Stage): where the case was
// decided, and, for a fault of MLIR's that no tool put in words, how it
// showed ("ptxas/refused", "pass:convert-nvgpu-to-nvvm/exit-0",
// "ptx/dropped").
const (
	// stageVerify: mlir-opt's parser and verifiers. MLIR 19 cannot parse
	// without verifying (22's --mlir-very-unsafe-disable-verifier-on-parsing
	// is new), and its nvgpu verifiers mostly emit plain errors, not
	// "'op' op ..." ones, so the two are one stage here.
	stageVerify = "verify"
	// stageLowering names the lowering run as a whole, before the pass
	// that decided is known (and its diagnostics' prefix).
	stageLowering  = "lowering"
	stageTranslate = "translate"
	stageLink      = "link"
	stageLLC       = "llc"
	stagePtxas     = "ptxas"
	// stagePTX: the emitted PTX checked against what the op asked for.
	stagePTX = "ptx"
)

// passStage is the stage of one pass of Pipeline.
func passStage(pass string) string { return "pass:" + pass }

// exitZeroNote ends the diagnostic of a chunk whose stage printed an error
// and carried on as if it had succeeded (exit status 0, or output written
// for the chunk). The note is a line of its own so that the diagnostic's
// title stays the tool's words.
const exitZeroNote = "(the error was printed with exit status 0: the stage went on as if it had succeeded)"

// faultError is a fault of MLIR's found in a stage's output by legalfuzz
// itself: an op left unconverted, code the op asked for missing from the
// PTX.
type faultError struct {
	stage oracles.Stage
	msg   string
}

func (e *faultError) Error() string { return e.msg }

// dialectPass is the pass of Pipeline that converts each source dialect.
var dialectPass = map[string]string{"nvgpu": "convert-nvgpu-to-nvvm"}

// leftOp finds an op of a source dialect in lowered output.
var leftOp = regexp.MustCompile(`(?m)^\s*(?:%[\w#:, ]+= )?"?((nvgpu)\.[\w.]+)`)

// unconverted reports an op of a source dialect the lowering left in its
// output although it exited 0.
func unconverted(module string) error {
	m := leftOp.FindStringSubmatch(module)
	if m == nil {
		return nil
	}
	return &faultError{stage: oracles.Stage{Name: passStage(dialectPass[m[2]]), Fault: oracles.Unconverted},
		msg: fmt.Sprintf("'%s' left unconverted by the lowering, which exited 0", m[1])}
}

// downstream are the stages that read MLIR's output: what they refuse,
// MLIR emitted.
var downstream = []string{stageTranslate, stageLink, stageLLC, stagePtxas}

// convict settles the verdict of a case that entered the lowering: MLIR's
// verifier accepted it, so a later tool refusing MLIR's own output is
// MLIR's fault, an Error whatever the spec says; an error printed with
// exit status 0 is one too. What the lowering itself refused in its own
// words is the verifier's fault as well (it let through what the same
// installation cannot lower): an Error at the pass that refused, titled
// by the pass's words.
func convict(v *oracles.Verdict) {
	st := oracles.ParseStage(v.Rule)
	if st.Fault != "" {
		return
	}
	switch {
	case strings.HasSuffix(v.Diagnostic, exitZeroNote):
		v.Kind, v.Rule = oracles.Error, oracles.Stage{Name: st.Name, Fault: oracles.ExitZero}.String()
	case v.Kind == oracles.Reject && slices.Contains(downstream, st.Name):
		v.Kind, v.Rule = oracles.Error, oracles.Stage{Name: st.Name, Fault: oracles.Refused}.String()
	case v.Kind == oracles.Reject && (st.Name == stageLowering || strings.HasPrefix(st.Name, passStage(""))):
		v.Kind, v.Rule = oracles.Error, oracles.Stage{Name: st.Name, Fault: oracles.PassRefused}.String()
	}
}

// irDumpAfter heads mlir-opt's IR dump after a pass (--mlir-print-ir-after-all,
// --mlir-print-ir-after-failure): "// -----// IR Dump After
// ConvertNVGPUToNVVMPass Failed (convert-nvgpu-to-nvvm) //----- //" up to
// 22, "... Failed: convert-nvgpu-to-nvvm //----- //" from 23 on, where a
// pass with options prints them after its name ("canonicalize{...}").
var irDumpAfter = regexp.MustCompile(`IR Dump After \S+(?: Failed)?(?: \(([\w.-]+)\)|: ([\w.-]+)[{ ])`)

// passOf runs the lowering of one module again with the IR printed after
// every pass and names the pass during which the first error was printed:
// the pass whose dump follows it. "" when that cannot be told.
func (o *Oracle) passOf(ctx context.Context, module string) (string, error) {
	dir, err := os.MkdirTemp("", "legalfuzz-mlir-pass-")
	if err != nil {
		return "", fmt.Errorf("mlir pass: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "case.mlir")
	if err := os.WriteFile(path, []byte(module), 0o644); err != nil {
		return "", fmt.Errorf("mlir pass: %w", err)
	}
	// A pass that fails prints its dump only with the second flag, which
	// silences the first; so one run with each, the second when needed.
	for _, flag := range []string{"--mlir-print-ir-after-all", "--mlir-print-ir-after-failure"} {
		r, err := o.Opt.Run(ctx, o.timeout(), nil, "--pass-pipeline="+Pipeline, flag, "-o", os.DevNull, path)
		if err != nil {
			return "", fmt.Errorf("mlir pass: %w", err)
		}
		if pass := passAfterError(string(r.Stderr)); pass != "" {
			return pass, nil
		}
	}
	return "", nil
}

// passAfterError names the pass whose IR dump first follows an error line.
func passAfterError(stderr string) string {
	i := strings.Index(stderr, ": error: ")
	if i < 0 {
		return ""
	}
	if m := irDumpAfter.FindStringSubmatch(stderr[i:]); m != nil {
		return m[1] + m[2]
	}
	return ""
}

// namePasses gives each case the lowering refused (or erred on at exit
// status 0) the pass that did so.
func (o *Oracle) namePasses(ctx context.Context, ps []piece) error {
	for _, p := range ps {
		v := p.j.v
		if v.Rule != stageLowering || (v.Kind != oracles.Reject && !strings.HasSuffix(v.Diagnostic, exitZeroNote)) {
			continue
		}
		pass, err := o.passOf(ctx, p.text)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			continue
		}
		if pass != "" {
			v.Rule = passStage(pass)
		}
	}
	return nil
}
