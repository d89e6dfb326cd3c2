package reproduce

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// shows tells from one mlir-opt run (its output, stdout and stderr
// together, and its exit status) that the bug showed.
type shows func(out string, rc int) bool

// saysWords shows a bug by the tool's words.
func saysWords(want string) shows {
	return func(out string, _ int) bool { return want != "" && strings.Contains(out, want) }
}

// crashes shows a crash: a signal, or LLVM's stack dump.
func crashes(out string, rc int) bool {
	return rc < 0 || rc >= 128 || strings.Contains(out, "PLEASE submit a bug report") || strings.Contains(out, "Stack dump")
}

// showsFor is how one mlir-opt run shows the deviating verdict of a
// lowering stage: its words, a crash, its words at exit status 0, or an
// nvgpu op left behind at exit status 0. Nil when no single run can.
func showsFor(obs oracles.Verdict) shows {
	st := oracles.ParseStage(obs.Rule)
	w := replay.Words(obs.Diagnostic)
	switch {
	case st.Fault == oracles.ExitZero && w != "":
		return func(out string, rc int) bool { return rc == 0 && strings.Contains(out, w) }
	case st.Fault == oracles.Unconverted:
		return func(out string, rc int) bool { return rc == 0 && leftNVGPU.MatchString(out) }
	case st.Fault != "":
		return nil
	case replay.Outcome(obs) == "crash":
		return crashes
	case replay.Outcome(obs) == "reject" && w != "":
		return saysWords(w)
	}
	return nil
}

// leftNVGPU finds an nvgpu op in mlir-opt's output.
var leftNVGPU = regexp.MustCompile(`(?m)^\s*(?:%[\w#:, ]+= )?"?nvgpu\.[a-z]`)

// shortestPasses is the mlir-opt flag that runs the fewest passes of
// mlir.Pipeline that still show the bug, tried on the tools found here:
// the shortest prefix that shows it, then without each earlier pass it
// does not need; one pass is written --NAME. Without mlir-opt here it is
// the whole pipeline; ok is false when mlir-opt is here and no prefix
// shows the bug.
func shortestPasses(ctx context.Context, dir string, optSpec tool.Spec, show shows) (flag string, ok bool) {
	if show == nil {
		return "", false
	}
	opt, err := tool.Locate(ctx, optSpec)
	if err != nil {
		return "--pass-pipeline='" + mlir.Pipeline + "'", true
	}
	run := func(passes []string) bool {
		cmd := exec.CommandContext(ctx, opt.Path, "--pass-pipeline=builtin.module("+strings.Join(passes, ",")+")", oracles.MLIRFile)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		rc := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			rc = ee.ExitCode()
		} else if err != nil {
			return false
		}
		return show(string(out), rc)
	}
	all := topLevelPasses(mlir.Pipeline)
	var passes []string
	for n := 1; n <= len(all) && passes == nil; n++ {
		if run(all[:n]) {
			passes = slices.Clone(all[:n])
		}
	}
	if passes == nil {
		return "", false
	}
	for i := len(passes) - 2; i >= 0; i-- {
		if cand := slices.Delete(slices.Clone(passes), i, i+1); run(cand) {
			passes = cand
		}
	}
	if len(passes) == 1 && !strings.Contains(passes[0], "(") {
		return "--" + passes[0], true
	}
	return "--pass-pipeline='builtin.module(" + strings.Join(passes, ",") + ")'", true
}

// topLevelPasses splits "builtin.module(a,b,c(d,e))" into a, b, c(d,e).
func topLevelPasses(pipeline string) []string {
	in := strings.TrimSuffix(strings.TrimPrefix(pipeline, "builtin.module("), ")")
	var out []string
	depth, start := 0, 0
	for i, r := range in {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, in[start:i])
				start = i + 1
			}
		}
	}
	return append(out, in[start:])
}
