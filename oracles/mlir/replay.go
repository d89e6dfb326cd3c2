package mlir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// planMLIR replays the mlir oracle's stages on case.mlir, stopping at the
// stage the bucket names: the verifier alone, the smallest prefix of the
// lowering pipeline that prints the bug's words, or the whole chain to
// ptxas.
func planMLIR(ctx context.Context, s *replay.Script, c replay.Case) {
	obs := c.Observed
	in, _ := toolchain.Of(ctx, obs.Oracle)
	tools := ToolsOf(in)
	opt := s.Need("MLIR_OPT", tools.Opt)
	stage, fault := replayStage(obs.Rule)
	if replay.Outcome(obs) == "accept" {
		stage = "accept"
	}
	if fault == oracles.PassRefused {
		planPassRefused(ctx, s, obs, c.Dir, tools)
		return
	}
	if fault != "" {
		planFault(ctx, s, c, tools, stage, fault)
		return
	}
	switch stage {
	case "verify":
		s.Add(`step verify ` + opt + " " + oracles.MLIRFile + " -o /dev/null")
		replay.JudgeLast(s, "verify", obs, "")
		return
	case "lowering":
		// The lowering's own words or its crash, shown by the fewest passes
		// that show them; a failure the oracle finds in the lowering's
		// output (LLVM 19's wgmma constraints from uninitialized bytes)
		// shows in the steps after it instead.
		if flag, ok := shortestPasses(ctx, c.Dir, tools.Opt, showsFor(obs)); ok {
			s.Add(`step lowering ` + opt + " " + flag + " " + oracles.MLIRFile + ` -o "$work/lowered.mlir"`)
			replay.JudgeLast(s, "lowering", obs, "")
			return
		}
	}
	t := mlirTarget(c.Dir, c.Case.Value.Target())
	s.Add(`step verify `+opt+" "+oracles.MLIRFile+" -o /dev/null",
		`clean verify || fixed "the verifier refused the case"`,
		`step lowering `+opt+` --pass-pipeline='`+Pipeline+`' `+oracles.MLIRFile+` -o "$work/lowered.mlir"`)
	if stage == "lowering" {
		s.Add(`clean lowering || reproduces "the lowering failed"`)
	} else {
		s.Add(`clean lowering || cannot "the lowering failed before the stage under test"`)
	}
	s.Add(`# the lowered gpu.module's body, as a plain module: what mlir-translate reads`,
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' "$work/lowered.mlir" >"$work/device.mlir"`)
	if stage == "lowering" {
		// The lowering "passed" with output that llc cannot compile (LLVM
		// 19's wgmma constraints from uninitialized bytes).
		s.Add(`step translate `+s.Need("MLIR_TRANSLATE", tools.Translate)+` --mlir-to-llvmir "$work/device.mlir" -o "$work/case.ll"`,
			`clean translate || reproduces "mlir-translate refused the lowering's output"`,
			`step llc `+s.Need("LLC", tools.LLC)+" "+strings.Join(LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " "),
			`clean llc || reproduces "llc refused the lowering's output"`,
			`fixed "the lowering's output compiles"`)
		return
	}
	chain := mlirChain(s, tools, t)
	for _, st := range chain {
		s.Add(st.cmd)
		if st.name == stage {
			replay.JudgeLast(s, st.name, obs, "")
			return
		}
		s.Add(fmt.Sprintf(`clean %s || fixed "%s refused the case"`, st.name, st.name))
		if st.name == "translate" && obs.Value != "" {
			s.Add(valueCheck(obs.Value, c.Reference.Value)...)
			return
		}
		if st.name == obs.Rule {
			s.Add("# the campaign's lowering stopped here: " + strings.SplitN(obs.Diagnostic, "\n", 2)[0])
			break
		}
	}
	if instr := replay.Instruction(obs.Domain); instr != "" {
		s.Add(fmt.Sprintf(`grep -qF %s "$work/case.ptx" || fixed "every stage passed but the PTX holds no %s"`, tool.ShellQuote(instr), instr))
	}
	s.Add(`reproduces "every stage accepted the case"`)
}

// chainStep is one step of the chain after the lowering, as repro.sh runs it.
type chainStep struct{ name, cmd string }

// mlirChain is the chain after the lowering: mlir-translate, llc, ptxas on
// the lowered gpu.module, for target t.
func mlirChain(s *replay.Script, tools Tools, t target.Target) []chainStep {
	return []chainStep{
		{"translate", `step translate ` + s.Need("MLIR_TRANSLATE", tools.Translate) + ` --mlir-to-llvmir "$work/device.mlir" -o "$work/case.ll"`},
		{"llc", `step llc ` + s.Need("LLC", tools.LLC) + " " + strings.Join(LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " ")},
		{"ptxas", `step ptxas ` + s.Need("PTXAS", PtxasSpec) + " " + strings.Join(PtxasArgs(t, `"$work/case.ptx"`, "/dev/null"), " ")},
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
func planPassRefused(ctx context.Context, s *replay.Script, obs oracles.Verdict, dir string, tools Tools) {
	opt := s.Need("MLIR_OPT", tools.Opt)
	w := replay.Words(obs.Diagnostic)
	flag := `--pass-pipeline='` + Pipeline + `'`
	if f, ok := shortestPasses(ctx, dir, tools.Opt, saysWords(w)); ok && w != "" {
		flag = f
	}
	s.Add(`step lowering ` + opt + " " + flag + " " + oracles.MLIRFile + ` -o "$work/lowered.mlir"`)
	if w == "" {
		s.Add(`clean lowering || reproduces "the verifier accepted the case and the lowering refused it"`,
			`fixed "the lowering lowers the case"`)
		return
	}
	s.Add(fmt.Sprintf(`said lowering %s && reproduces "the verifier accepted the case and the lowering said: %s"`, tool.ShellQuote(w), replay.Escape(w)),
		`clean lowering && fixed "the lowering lowers the case"`,
		`fixed "the lowering refused the case, but not with the bucket's words"`)
}

// planFault replays a chain that failed without refusing the case in its
// own words: the lowering printed an error but exited 0, or left an nvgpu
// op behind; a later tool refused MLIR's own output; or the PTX lost work.
func planFault(ctx context.Context, s *replay.Script, c replay.Case, tools Tools, stage string, fault oracles.Fault) {
	obs := c.Observed
	opt := s.Need("MLIR_OPT", tools.Opt)
	if fault == oracles.ExitZero || fault == oracles.Unconverted {
		// One mlir-opt run shows these: the fewest passes that do.
		if flag, ok := shortestPasses(ctx, c.Dir, tools.Opt, showsFor(obs)); ok {
			s.Add(`step lowering ` + opt + " " + flag + " " + oracles.MLIRFile + ` -o "$work/lowered.mlir"`)
			faultCheck(s, obs, fault)
			return
		}
	}
	s.Add(`step verify `+opt+" "+oracles.MLIRFile+" -o /dev/null",
		`clean verify || fixed "the verifier refused the case"`,
		`step lowering `+opt+` --pass-pipeline='`+Pipeline+`' `+oracles.MLIRFile+` -o "$work/lowered.mlir"`)
	if fault == oracles.ExitZero || fault == oracles.Unconverted {
		faultCheck(s, obs, fault)
		return
	}
	planChainFault(s, c, tools, stage, fault)
}

// faultCheck ends a replay of the lowering that printed an error at exit
// status 0 or left an nvgpu op.
func faultCheck(s *replay.Script, obs oracles.Verdict, fault oracles.Fault) {
	switch fault {
	case oracles.ExitZero:
		if w := replay.Words(obs.Diagnostic); w != "" {
			s.Add(fmt.Sprintf(`[ "$rc" -eq 0 ] && said lowering %s && reproduces "the lowering said: %s, and exited 0"`, tool.ShellQuote(w), replay.Escape(w)))
		}
		s.Add(`fixed "the lowering no longer prints an error with exit status 0"`)
		return
	case oracles.Unconverted:
		s.Add(`clean lowering || fixed "the lowering now refuses the case"`,
			`grep -q 'nvgpu\.' "$work/lowered.mlir" && reproduces "the lowering exited 0 and left an nvgpu op"`,
			`fixed "the lowering converts every nvgpu op"`)
	}
}

// planChainFault replays a fault that shows after the lowering: a later
// tool refused MLIR's output, or its PTX lacks work.
func planChainFault(s *replay.Script, c replay.Case, tools Tools, stage string, fault oracles.Fault) {
	obs := c.Observed
	if stage == "link" {
		stage = "llc" // the chain here has no llvm-link: llc reads the IR and refuses it in the same words
	}
	s.Add(`clean lowering || fixed "the lowering now refuses the case"`,
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' "$work/lowered.mlir" >"$work/device.mlir"`)
	t := mlirTarget(c.Dir, c.Case.Value.Target())
	chain := mlirChain(s, tools, t)
	for _, st := range chain {
		s.Add(st.cmd)
		if st.name == "llc" && (fault == oracles.Dropped || fault == oracles.WrongValue) {
			s.Add(`clean llc || cannot "llc refused MLIR's output"`)
			if fault == oracles.WrongValue {
				replay.WrongValue(s, c, "$work/case.ptx")
			} else {
				droppedCheck(s, c)
			}
			return
		}
		if st.name == stage && fault == oracles.Refused {
			s.Add(fmt.Sprintf(`clean %s || reproduces "%s refused MLIR's own output"`, st.name, st.name),
				fmt.Sprintf(`fixed "%s accepts MLIR's output"`, st.name))
			return
		}
		s.Add(fmt.Sprintf(`clean %s || cannot "%s refused MLIR's output before the stage under test"`, st.name, st.name))
	}
	s.Add(`cannot "every stage passed: ` + replay.Escape(strings.SplitN(obs.Diagnostic, "\n", 2)[0]) + `"`)
}

// droppedCheck ends a dropped-work replay: the PTX llc wrote must hold each
// instruction the op needs, as many times as the mlir oracle counts.
func droppedCheck(s *replay.Script, c replay.Case) {
	for _, w := range Wants(c.Case) {
		s.Add(fmt.Sprintf(`n=$(grep -oE %s "$work/case.ptx" | wc -l)`, tool.ShellQuote(w.Pattern)),
			fmt.Sprintf(`[ "$n" -lt %d ] && reproduces "the PTX holds $n %s where the op needs %d"`, w.N, replay.Escape(w.What), w.N))
	}
	s.Add(`fixed "the PTX holds every instruction the op needs"`)
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
	text, err := os.ReadFile(filepath.Join(dir, oracles.MLIRFile))
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
// Pipeline that still show the bug, tried on the tools found here:
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
		return "--pass-pipeline='" + Pipeline + "'", true
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
	all := topLevelPasses(Pipeline)
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

// planPasses replays a pass judge's verdict: the pipelines before the pass,
// then the pass alone with the verifier off, judged by how it failed in
// the campaign (a crash, output the verifier rejects, an error printed at
// exit status 0, or its own words).
func planPasses(ctx context.Context, s *replay.Script, c replay.Case) {
	obs := c.Observed
	st := oracles.ParseStage(obs.Rule)
	r, ok := ReplayOf(obs.Oracle, strings.TrimPrefix(st.Name, "pass:"))
	if !ok {
		replay.Check(s, c)
		return
	}
	inst, _ := toolchain.Of(ctx, r.Release)
	opt := s.Need("MLIR_OPT", ToolsOf(inst).Opt)
	in := oracles.MLIRFile
	for i, p := range r.Before {
		out := fmt.Sprintf(`"$work/before%d.mlir"`, i)
		s.Add(fmt.Sprintf(`step before%d %s --pass-pipeline='%s' %s -o %s`, i, opt, p, in, out),
			fmt.Sprintf(`clean before%d || cannot "a pipeline before the pass under test failed"`, i))
		in = out
	}
	s.Add(fmt.Sprintf(`step pass %s --verify-each=false --pass-pipeline='%s' %s -o "$work/pass.mlir"`, opt, r.Pass, in))
	switch st.Fault {
	case oracles.InvalidIR:
		s.Add(`clean pass || fixed "the pass failed instead of writing IR"`,
			`step verify `+opt+` "$work/pass.mlir" -o /dev/null`,
			`clean verify || reproduces "the verifier rejects what the pass wrote"`,
			`fixed "the verifier accepts what the pass wrote"`)
	case oracles.ExitZero:
		if w := replay.Words(obs.Diagnostic); w != "" {
			s.Add(fmt.Sprintf(`[ "$rc" -eq 0 ] && said pass %s && reproduces "the pass said: %s, and exited 0"`, tool.ShellQuote(w), replay.Escape(w)))
		}
		s.Add(`fixed "the pass no longer prints an error with exit status 0"`)
	default:
		replay.JudgeLast(s, "pass", obs, "")
	}
}

// LitRun is the RUN lines of an MLIR bucket (replay.Lit) on an installation: the
// stage that fails, the smallest command as in repro.sh; a legal case the
// wgmma lowering cannot compile runs the chain through llc.
func (Reproducer) LitRun(ctx context.Context, c replay.Case, legal bool, in toolchain.Installation) (string, []string) {
	return fmt.Sprintf("mlir-opt-%d", in.Major), mlirRun(ctx, c, legal, in)
}

// mlirRun is LitRun's RUN lines.
func mlirRun(ctx context.Context, c replay.Case, legal bool, in toolchain.Installation) []string {
	obs := c.Observed
	tools := ToolsOf(in)
	opt := replay.LitSub("mlir-opt", in)
	stage, fault := replayStage(obs.Rule)
	switch {
	case stage == "verify" && fault == "":
		return []string{replay.Checked(opt+" %s -o /dev/null", legal)}
	case stage == "lowering" && fault == "" && replay.Outcome(obs) != "accept":
		if flag, ok := shortestPasses(ctx, c.Dir, tools.Opt, showsFor(obs)); ok {
			return []string{replay.Checked(opt+" "+flag+" %s -o /dev/null", legal)}
		}
	}
	pipeline := opt + " --pass-pipeline='" + Pipeline + "' %s"
	if !legal {
		// Legality is the verifier's and the lowering's to check: an
		// illegal case must be refused before it becomes LLVM IR.
		return []string{replay.Checked(pipeline+" -o /dev/null", false)}
	}
	t := mlirTarget(c.Dir, c.Case.Value.Target())
	run := []string{
		replay.Checked(pipeline+" -o %t.lowered.mlir", true),
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' %t.lowered.mlir > %t.device.mlir`,
		replay.LitSub("mlir-translate", in) + " --mlir-to-llvmir %t.device.mlir -o %t.ll",
	}
	line := replay.WrongLine(c.Observed)
	if line == "" {
		return append(run, replay.Checked(replay.LitSub("llc", in)+" "+strings.Join(LLCArgs(t, "%t.ll", "/dev/null"), " "), true))
	}
	// The wrong value is in what llc emits (or in the host code's call):
	// the test evaluates it and checks that the line the bucket names is
	// gone.
	assign, onHost := valuecheck.Input(line)
	input := "%t.ptx"
	if onHost {
		input = "%t.lowered.mlir"
	}
	return append(run, replay.Checked(replay.LitSub("llc", in)+" "+strings.Join(LLCArgs(t, "%t.ll", "%t.ptx"), " "), true),
		"awk -v '"+assign+"' -f %S/"+replay.ValuesAwk+" "+input+" | %FileCheck %s --check-prefix=VALUE --allow-empty")
}
