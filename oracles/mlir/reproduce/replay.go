package reproduce

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// planMLIR replays the mlir oracle's stages on case.mlir, stopping at the
// stage the bucket names: the verifier alone, the smallest prefix of the
// lowering pipeline that prints the bug's words, or the whole chain to
// ptxas.
func planMLIR(ctx context.Context, s *replay.Script, c replay.Case) {
	obs := c.Observed
	tools := mlir.ToolsOf(c.Installation)
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
		`step lowering `+opt+` --pass-pipeline='`+mlir.Pipeline+`' `+oracles.MLIRFile+` -o "$work/lowered.mlir"`)
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
			`step llc `+s.Need("LLC", tools.LLC)+" "+strings.Join(mlir.LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " "),
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
func mlirChain(s *replay.Script, tools mlir.Tools, t target.Target) []chainStep {
	return []chainStep{
		{"translate", `step translate ` + s.Need("MLIR_TRANSLATE", tools.Translate) + ` --mlir-to-llvmir "$work/device.mlir" -o "$work/case.ll"`},
		{"llc", `step llc ` + s.Need("LLC", tools.LLC) + " " + strings.Join(mlir.LLCArgs(t, `"$work/case.ll"`, `"$work/case.ptx"`), " ")},
		{"ptxas", `step ptxas ` + s.Need("PTXAS", mlir.PtxasSpec) + " " + strings.Join(mlir.PtxasArgs(t, `"$work/case.ptx"`, "/dev/null"), " ")},
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
func planPassRefused(ctx context.Context, s *replay.Script, obs oracles.Verdict, dir string, tools mlir.Tools) {
	opt := s.Need("MLIR_OPT", tools.Opt)
	w := replay.Words(obs.Diagnostic)
	flag := `--pass-pipeline='` + mlir.Pipeline + `'`
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
func planFault(ctx context.Context, s *replay.Script, c replay.Case, tools mlir.Tools, stage string, fault oracles.Fault) {
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
		`step lowering `+opt+` --pass-pipeline='`+mlir.Pipeline+`' `+oracles.MLIRFile+` -o "$work/lowered.mlir"`)
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
func planChainFault(s *replay.Script, c replay.Case, tools mlir.Tools, stage string, fault oracles.Fault) {
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
	for _, w := range render.Wants(c.Case) {
		// grep -E has no non-capturing groups; a group that captures
		// matches the same.
		pattern := strings.ReplaceAll(w.RE.String(), "(?:", "(")
		s.Add(fmt.Sprintf(`n=$(grep -oE %s "$work/case.ptx" | wc -l)`, tool.ShellQuote(pattern)),
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

// planPasses replays a pass judge's verdict: the pipelines before the pass,
// then the pass alone with the verifier off, judged by how it failed in
// the campaign (a crash, output the verifier rejects, an error printed at
// exit status 0, or its own words).
func planPasses(ctx context.Context, s *replay.Script, c replay.Case) {
	obs := c.Observed
	st := oracles.ParseStage(obs.Rule)
	r, ok := mlir.ReplayOf(obs.Oracle, strings.TrimPrefix(st.Name, "pass:"))
	if !ok {
		replay.Check(s, c)
		return
	}
	opt := s.Need("MLIR_OPT", mlir.ToolsOf(c.Installation).Opt)
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
