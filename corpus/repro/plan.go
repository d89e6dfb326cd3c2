package repro

import (
	"context"
	"errors"
	"fmt"
	"github.com/legalfuzz/legalfuzz/corpus"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// instruction is the PTX a lowered case of a domain must hold for a tool's
// accept to mean it emitted the operation (not that it dropped it).
var instruction = map[string]string{
	"mma": "mma.", "wgmma": "wgmma.", "tmadesc": "cp.async.bulk.tensor", "tmamode": "cp.async.bulk.tensor",
	"ldsm": "matrix.sync", "cpasync": "cp.async", "kindword": "tcgen05.mma", "blockscale": "mma",
}

// plan writes repro.sh's steps for the deviating tool's verdict on the
// bundle's case, as the tool's oracle says to replay it (its
// Reproduction): tools with an input file run the smallest command that
// shows the bug; the rest, and a seed's algorithm under test, replay
// through legalfuzz check.
func plan(ctx context.Context, bd Bundle, dir string) *script {
	s := &script{}
	rep := bd.reproductions[bd.Observed.Oracle]
	if rep.Input == "" || !fileIn(dir, rep.Input) || policy.ClassOf(bd.Bucket.Signature) == policy.SeedEvidence {
		planCheck(s, bd)
		return s
	}
	switch rep.Replay {
	case oracles.ReplayMLIR:
		planMLIR(ctx, s, bd, dir)
	case oracles.ReplayPasses:
		planPasses(ctx, s, bd)
	case oracles.ReplaySteps:
		planSteps(s, bd, dir, rep.Steps)
	case oracles.ReplayStages:
		planStages(s, bd, rep.Steps)
	default:
		planCheck(s, bd)
	}
	return s
}

// planSteps runs the oracle's steps, the last one under test: a wrong
// value is judged by what the code it emitted computes, the rest by what
// the tool did (judgeLast).
func planSteps(s *script, bd Bundle, dir string, steps []oracles.Step) {
	last := steps[len(steps)-1]
	for _, st := range steps[:len(steps)-1] {
		s.add(stepLine(s, st), fmt.Sprintf(`clean %s || cannot "%s failed before the step under test"`, st.Name, st.Name))
	}
	s.add(stepLine(s, last))
	if _, fault := replayStage(bd.Observed.Rule); fault == oracles.WrongValue && last.Output != "" {
		s.add(fmt.Sprintf(`clean %s || cannot "%s refused the case"`, last.Name, last.Name))
		wrongValueCheck(s, bd, dir, strings.Trim(last.Output, `"`))
		return
	}
	judgeLast(s, last.Name, bd.Observed, last.Output)
}

// stepLine is repro.sh's line that runs one step.
func stepLine(s *script, st oracles.Step) string {
	return "step " + st.Name + " " + s.need(st.Var, st.Tool) + " " + strings.Join(st.Args, " ")
}

// judgeLast ends the script on the deviating tool's last step: the bug
// shows when it did what the observed verdict says (said the same words,
// crashed, or accepted and emitted the instruction into out).
func judgeLast(s *script, name string, obs oracles.Verdict, out string) {
	switch outcome(obs) {
	case "crash":
		s.add(fmt.Sprintf(`crashed %s && reproduces "%s crashed, as it did in the campaign"`, name, name),
			fmt.Sprintf(`fixed "%s did not crash"`, name))
	case "reject":
		w := words(obs.Diagnostic)
		if w == "" {
			s.add(fmt.Sprintf(`clean %s || reproduces "%s refused the case"`, name, name),
				fmt.Sprintf(`fixed "%s accepted the case"`, name))
			return
		}
		s.add(fmt.Sprintf(`said %s %s && reproduces "%s said: %s"`, name, corpus.ShellQuote(w), name, shEsc(w)),
			fmt.Sprintf(`clean %s && fixed "%s accepted the case"`, name, name),
			fmt.Sprintf(`fixed "%s refused the case, but not with the bucket's words"`, name))
	default:
		s.add(fmt.Sprintf(`clean %s || fixed "%s refused the case"`, name, name))
		if instr := instruction[obs.Domain]; instr != "" && out != "" {
			s.add(fmt.Sprintf(`grep -qF %s %s || fixed "%s accepted but emitted no %s"`, corpus.ShellQuote(instr), out, name, instr))
		}
		s.add(fmt.Sprintf(`reproduces "%s accepted the case"`, name))
	}
}

// shEsc escapes text for a double-quoted sh string.
func shEsc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s)
}

// planMLIR replays the mlir oracle's stages on case.mlir, stopping at the
// stage the bucket names: the verifier alone, the smallest prefix of the
// lowering pipeline that prints the bug's words, or the whole chain to
// ptxas.
func planMLIR(ctx context.Context, s *script, bd Bundle, dir string) {
	obs := bd.Observed
	in, _ := toolchain.Of(ctx, obs.Oracle)
	tools := mlir.ToolsOf(in)
	opt := s.need("MLIR_OPT", tools.Opt)
	stage, fault := replayStage(obs.Rule)
	if outcome(obs) == "accept" {
		stage = "accept"
	}
	if fault == oracles.PassRefused {
		planPassRefused(ctx, s, obs, dir, tools)
		return
	}
	if fault != "" {
		planFault(ctx, s, bd, dir, tools, stage, fault)
		return
	}
	switch stage {
	case "verify":
		s.add(`step verify ` + opt + " " + MLIRFile + " -o /dev/null")
		judgeLast(s, "verify", obs, "")
		return
	case "lowering":
		// The lowering's own words or its crash, shown by the fewest passes
		// that show them; a failure the oracle finds in the lowering's
		// output (LLVM 19's wgmma constraints from uninitialized bytes)
		// shows in the steps after it instead.
		if flag, ok := shortestPasses(ctx, dir, tools.Opt, showsFor(obs)); ok {
			s.add(`step lowering ` + opt + " " + flag + " " + MLIRFile + ` -o "$work/lowered.mlir"`)
			judgeLast(s, "lowering", obs, "")
			return
		}
	}
	t := mlirTarget(dir, bd.Case.Value.Target())
	s.add(`step verify `+opt+" "+MLIRFile+" -o /dev/null",
		`clean verify || fixed "the verifier refused the case"`,
		`step lowering `+opt+` --pass-pipeline='`+mlir.Pipeline+`' `+MLIRFile+` -o "$work/lowered.mlir"`)
	if stage == "lowering" {
		s.add(`clean lowering || reproduces "the lowering failed"`)
	} else {
		s.add(`clean lowering || cannot "the lowering failed before the stage under test"`)
	}
	s.add(`# the lowered gpu.module's body, as a plain module: what mlir-translate reads`,
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' "$work/lowered.mlir" >"$work/device.mlir"`)
	if stage == "lowering" {
		// The lowering "passed" with output that llc cannot compile (LLVM
		// 19's wgmma constraints from uninitialized bytes).
		s.add(`step translate `+s.need("MLIR_TRANSLATE", tools.Translate)+` --mlir-to-llvmir "$work/device.mlir" -o "$work/case.ll"`,
			`clean translate || reproduces "mlir-translate refused the lowering's output"`,
			`step llc `+s.need("LLC", tools.LLC)+" "+strings.Join(mlir.LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " "),
			`clean llc || reproduces "llc refused the lowering's output"`,
			`fixed "the lowering's output compiles"`)
		return
	}
	chain := mlirChain(s, tools, t)
	for _, c := range chain {
		s.add(c.cmd)
		if c.name == stage {
			judgeLast(s, c.name, obs, "")
			return
		}
		s.add(fmt.Sprintf(`clean %s || fixed "%s refused the case"`, c.name, c.name))
		if c.name == "translate" && obs.Value != "" {
			s.add(valueCheck(obs.Value, bd.Reference.Value)...)
			return
		}
		if c.name == obs.Rule {
			s.add("# the campaign's lowering stopped here: " + strings.SplitN(obs.Diagnostic, "\n", 2)[0])
			break
		}
	}
	if instr := instruction[obs.Domain]; instr != "" {
		s.add(fmt.Sprintf(`grep -qF %s "$work/case.ptx" || fixed "every stage passed but the PTX holds no %s"`, corpus.ShellQuote(instr), instr))
	}
	s.add(`reproduces "every stage accepted the case"`)
}

// chainStep is one step of the chain after the lowering, as repro.sh runs it.
type chainStep struct{ name, cmd string }

// mlirChain is the chain after the lowering: mlir-translate, llc, ptxas on
// the lowered gpu.module, for target t.
func mlirChain(s *script, tools mlir.Tools, t target.Target) []chainStep {
	return []chainStep{
		{"translate", `step translate ` + s.need("MLIR_TRANSLATE", tools.Translate) + ` --mlir-to-llvmir "$work/device.mlir" -o "$work/case.ll"`},
		{"llc", `step llc ` + s.need("LLC", tools.LLC) + " " + strings.Join(mlir.LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " ")},
		{"ptxas", `step ptxas ` + s.need("PTXAS", mlir.PtxasSpec) + " " + strings.Join(mlir.PtxasArgs(t, `"$work/case.ptx"`, "/dev/null"), " ")},
	}
}

// replayStage maps the mlir oracle's stage rule ("verify", "pass:NAME",
// "llc/refused", ...) to the step a script replays: every pass is part of
// the lowering; the fault, if any, says how the chain failed there.
func replayStage(rule string) (string, oracles.Fault) {
	st := oracles.ParseStage(rule)
	if strings.HasPrefix(st.Name, "pass:") {
		return "lowering", st.Fault
	}
	return st.Name, st.Fault
}

// planPassRefused replays a verifier gap the tool's own lowering shows: the
// verifier accepts the case and a pass of the lowering (the fewest that
// show it) refuses it in its own words. One mlir-opt run shows both: it
// verifies its input before the first pass, so the pass's words mean the
// verifier passed the case.
func planPassRefused(ctx context.Context, s *script, obs oracles.Verdict, dir string, tools mlir.Tools) {
	opt := s.need("MLIR_OPT", tools.Opt)
	w := words(obs.Diagnostic)
	flag := `--pass-pipeline='` + mlir.Pipeline + `'`
	if f, ok := shortestPasses(ctx, dir, tools.Opt, saysWords(w)); ok && w != "" {
		flag = f
	}
	s.add(`step lowering ` + opt + " " + flag + " " + MLIRFile + ` -o "$work/lowered.mlir"`)
	if w == "" {
		s.add(`clean lowering || reproduces "the verifier accepted the case and the lowering refused it"`,
			`fixed "the lowering lowers the case"`)
		return
	}
	s.add(fmt.Sprintf(`said lowering %s && reproduces "the verifier accepted the case and the lowering said: %s"`, corpus.ShellQuote(w), shEsc(w)),
		`clean lowering && fixed "the lowering lowers the case"`,
		`fixed "the lowering refused the case, but not with the bucket's words"`)
}

// planFault replays a chain that failed without refusing the case in its
// own words: the lowering printed an error but exited 0, or left an nvgpu
// op behind; a later tool refused MLIR's own output; or the PTX lost work.
func planFault(ctx context.Context, s *script, bd Bundle, dir string, tools mlir.Tools, stage string, fault oracles.Fault) {
	obs := bd.Observed
	opt := s.need("MLIR_OPT", tools.Opt)
	if fault == oracles.ExitZero || fault == oracles.Unconverted {
		// One mlir-opt run shows these: the fewest passes that do.
		if flag, ok := shortestPasses(ctx, dir, tools.Opt, showsFor(obs)); ok {
			s.add(`step lowering ` + opt + " " + flag + " " + MLIRFile + ` -o "$work/lowered.mlir"`)
			faultCheck(s, obs, fault)
			return
		}
	}
	s.add(`step verify `+opt+" "+MLIRFile+" -o /dev/null",
		`clean verify || fixed "the verifier refused the case"`,
		`step lowering `+opt+` --pass-pipeline='`+mlir.Pipeline+`' `+MLIRFile+` -o "$work/lowered.mlir"`)
	if fault == oracles.ExitZero || fault == oracles.Unconverted {
		faultCheck(s, obs, fault)
		return
	}
	planChainFault(s, bd, dir, tools, stage, fault)
}

// faultCheck ends a replay of the lowering that printed an error at exit
// status 0 or left an nvgpu op.
func faultCheck(s *script, obs oracles.Verdict, fault oracles.Fault) {
	switch fault {
	case oracles.ExitZero:
		if w := words(obs.Diagnostic); w != "" {
			s.add(fmt.Sprintf(`[ "$rc" -eq 0 ] && said lowering %s && reproduces "the lowering said: %s, and exited 0"`, corpus.ShellQuote(w), shEsc(w)))
		}
		s.add(`fixed "the lowering no longer prints an error with exit status 0"`)
		return
	case oracles.Unconverted:
		s.add(`clean lowering || fixed "the lowering now refuses the case"`,
			`grep -q 'nvgpu\.' "$work/lowered.mlir" && reproduces "the lowering exited 0 and left an nvgpu op"`,
			`fixed "the lowering converts every nvgpu op"`)
	}
}

// planChainFault replays a fault that shows after the lowering: a later
// tool refused MLIR's output, or its PTX lacks work.
func planChainFault(s *script, bd Bundle, dir string, tools mlir.Tools, stage string, fault oracles.Fault) {
	obs := bd.Observed
	if stage == "link" {
		stage = "llc" // the chain here has no llvm-link: llc reads the IR and refuses it in the same words
	}
	s.add(`clean lowering || fixed "the lowering now refuses the case"`,
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' "$work/lowered.mlir" >"$work/device.mlir"`)
	t := mlirTarget(dir, bd.Case.Value.Target())
	chain := mlirChain(s, tools, t)
	for _, c := range chain {
		s.add(c.cmd)
		if c.name == "llc" && (fault == oracles.Dropped || fault == oracles.WrongValue) {
			s.add(`clean llc || cannot "llc refused MLIR's output"`)
			if fault == oracles.WrongValue {
				wrongValueCheck(s, bd, dir, "$work/case.ptx")
			} else {
				droppedCheck(s, bd)
			}
			return
		}
		if c.name == stage && fault == oracles.Refused {
			s.add(fmt.Sprintf(`clean %s || reproduces "%s refused MLIR's own output"`, c.name, c.name),
				fmt.Sprintf(`fixed "%s accepts MLIR's output"`, c.name))
			return
		}
		s.add(fmt.Sprintf(`clean %s || cannot "%s refused MLIR's output before the stage under test"`, c.name, c.name))
	}
	s.add(`cannot "every stage passed: ` + shEsc(strings.SplitN(obs.Diagnostic, "\n", 2)[0]) + `"`)
}

// droppedCheck ends a dropped-work replay: the PTX llc wrote must hold each
// instruction the op needs, as many times as the mlir oracle counts.
func droppedCheck(s *script, bd Bundle) {
	for _, w := range mlir.Wants(bd.Case) {
		s.add(fmt.Sprintf(`n=$(grep -oE %s "$work/case.ptx" | wc -l)`, corpus.ShellQuote(w.Pattern)),
			fmt.Sprintf(`[ "$n" -lt %d ] && reproduces "the PTX holds $n %s where the op needs %d"`, w.N, shEsc(w.What), w.N))
	}
	s.add(`fixed "the PTX holds every instruction the op needs"`)
}

// wrongValueCheck ends a wrong-value replay: the bundle's values.awk
// (emitted.Awk) prints the instructions the check reads in ptx (or the
// host call in the lowered module) with the values of their operands, and
// the one the finding names must be among them.
func wrongValueCheck(s *script, bd Bundle, dir, ptx string) {
	if _, err := writeValuesAwk(dir); err != nil {
		s.add(`cannot "the bundle has no values.awk"`)
		return
	}
	line := valuecheck.EmittedLine(bd.Observed.Diagnostic)
	assign, onHost := valuecheck.Input(line)
	comment, input := `# the `+strings.TrimPrefix(assign, "op=")+` instructions, each operand replaced by its value (param0+2: the kernel's first argument plus 2)`, ptx
	if onHost {
		comment, input = `# the host's call of `+strings.TrimPrefix(assign, "callee=")+`, each argument replaced by its value (? for a run-time value), an array by what the host stores in it`, "$work/lowered.mlir"
	}
	s.add(comment,
		fmt.Sprintf(`awk -v %s -f %s "%s" >"$work/values.txt"`, corpus.ShellQuote(assign), ValuesAwk, input),
		`cat "$work/values.txt"`,
		fmt.Sprintf(`grep -qxF %s "$work/values.txt" && reproduces "%s"`, corpus.ShellQuote(line), shEsc(message(bd.Observed.Diagnostic))),
		`fixed "the PTX no longer holds that instruction"`)
}

// valueCheck ends a miscompile: the translated module stores the value
// the tool computed, not the reference's.
func valueCheck(observed, expected string) []string {
	dec := func(h string) string {
		n, err := strconv.ParseUint(strings.TrimPrefix(h, "0x"), 16, 64)
		if err != nil {
			return h
		}
		return strconv.FormatInt(int64(n), 10)
	}
	return []string{
		fmt.Sprintf(`grep -qF 'store i64 %s, ptr addrspace(1)' "$work/case.ll" && reproduces "the lowering computes %s, the reference %s"`, dec(observed), observed, expected),
		fmt.Sprintf(`fixed "the lowering no longer computes %s"`, observed),
	}
}

// nvvmTarget is the target the mlir oracle rendered the case's gpu.module
// for (it may raise the case's PTX version to the first one that has the
// operation).
var nvvmTarget = regexp.MustCompile(`#nvvm\.target<chip = "(sm_\w+)", features = "\+ptx(\d+)"`)

// mlirTarget is the target written into case.mlir, else t.
func mlirTarget(dir string, t target.Target) target.Target {
	text, err := os.ReadFile(filepath.Join(dir, MLIRFile))
	if err != nil {
		return t
	}
	m := nvvmTarget.FindStringSubmatch(string(text))
	if m == nil {
		return t
	}
	a, errA := target.ParseArch(m[1])
	n, errP := strconv.Atoi(m[2])
	if errA != nil || errP != nil {
		return t
	}
	return target.Target{Arch: a, PTX: target.PTX(n)}
}

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
	w := words(obs.Diagnostic)
	switch {
	case st.Fault == oracles.ExitZero && w != "":
		return func(out string, rc int) bool { return rc == 0 && strings.Contains(out, w) }
	case st.Fault == oracles.Unconverted:
		return func(out string, rc int) bool { return rc == 0 && leftNVGPU.MatchString(out) }
	case st.Fault != "":
		return nil
	case outcome(obs) == "crash":
		return crashes
	case outcome(obs) == "reject" && w != "":
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
		cmd := exec.CommandContext(ctx, opt.Path, "--pass-pipeline=builtin.module("+strings.Join(passes, ",")+")", MLIRFile)
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

// planCheck replays an oracle that runs inside legalfuzz (its rule sets,
// the seed algorithms under test, the driver and the GPU, an exec
// verifier) with legalfuzz check: the bug shows when the deviating oracle
// still says what it said, and the reference too.
func planCheck(s *script, bd Bundle) {
	lf := s.need("LEGALFUZZ", legalfuzzSpec())
	s.add(`step check `+lf+` check --json --domain `+bd.Case.Domain+" "+CaseFile,
		`[ "$rc" -le 1 ] || cannot "legalfuzz check failed"`)
	for _, v := range []oracles.Verdict{bd.Reference, bd.Observed} {
		if v.Oracle == "" {
			continue
		}
		line := fmt.Sprintf(`"oracle":"%s"`, v.Oracle)
		s.add(fmt.Sprintf(`grep -F '%s' "$work/check.out" >"$work/%s.line" || cannot "%s gave no verdict here"`, line, fileSafe(v.Oracle), v.Oracle),
			fmt.Sprintf(`grep -qF '"verdict":"%s"' "$work/%s.line" || fixed "%s no longer says %s"`, v.Kind, fileSafe(v.Oracle), v.Oracle, v.Kind))
	}
	s.add(fmt.Sprintf(`reproduces "%s says %s where %s says %s"`, bd.Observed.Oracle, bd.Observed.Kind, bd.Reference.Oracle, bd.Reference.Kind))
}

// fileSafe turns an oracle name into a file name.
func fileSafe(name string) string {
	return strings.NewReplacer("/", "_", ":", "_").Replace(name)
}

// legalfuzzSpec finds the legalfuzz binary: this one, else PATH.
func legalfuzzSpec() tool.Spec {
	files := []string{"legalfuzz"}
	if exe, err := os.Executable(); err == nil && strings.Contains(filepath.Base(exe), "legalfuzz") && !strings.HasSuffix(exe, ".test") {
		files = append([]string{exe}, files...)
	}
	return tool.Spec{Name: "legalfuzz", Env: "LEGALFUZZ", Files: files, VersionArgs: []string{"version"},
		Version: func(out string) (string, bool) { return strings.TrimSpace(out), strings.HasPrefix(out, "legalfuzz") },
		Install: "go install github.com/legalfuzz/legalfuzz/cmd/legalfuzz@latest"}
}
