package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// JudgeLast ends the script on the deviating tool's last step: the bug
// shows when it did what the observed verdict says (said the same words,
// crashed, or accepted and emitted the instruction into out).
func JudgeLast(s *Script, name string, obs oracles.Verdict, out string) {
	switch Outcome(obs) {
	case "crash":
		s.Add(fmt.Sprintf(`crashed %s && reproduces "%s crashed, as it did in the campaign"`, name, name),
			fmt.Sprintf(`fixed "%s did not crash"`, name))
	case "reject":
		w := Words(obs.Diagnostic)
		if w == "" {
			s.Add(fmt.Sprintf(`clean %s || reproduces "%s refused the case"`, name, name),
				fmt.Sprintf(`fixed "%s accepted the case"`, name))
			return
		}
		s.Add(fmt.Sprintf(`said %s %s && reproduces "%s said: %s"`, name, tool.ShellQuote(w), name, Escape(w)),
			fmt.Sprintf(`clean %s && fixed "%s accepted the case"`, name, name),
			fmt.Sprintf(`fixed "%s refused the case, but not with the bucket's words"`, name))
	default:
		s.Add(fmt.Sprintf(`clean %s || fixed "%s refused the case"`, name, name))
		if instr := instruction[obs.Domain]; instr != "" && out != "" {
			s.Add(fmt.Sprintf(`grep -qF %s %s || fixed "%s accepted but emitted no %s"`, tool.ShellQuote(instr), out, name, instr))
		}
		s.Add(fmt.Sprintf(`reproduces "%s accepted the case"`, name))
	}
}

// Escape escapes text for a double-quoted sh string.
func Escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s)
}

// WrongValue ends a wrong-value replay: the bundle's values.awk
// (emitted.Awk) prints the instructions the check reads in ptx (or the
// host call in the lowered module) with the values of their operands, and
// the one the finding names must be among them.
func WrongValue(s *Script, c Case, ptx string) {
	if _, err := WriteValuesAwk(c.Dir); err != nil {
		s.Add(`cannot "the bundle has no values.awk"`)
		return
	}
	line := valuecheck.EmittedLine(c.Observed.Diagnostic)
	assign, onHost := valuecheck.Input(line)
	comment, input := `# the `+strings.TrimPrefix(assign, "op=")+` instructions, each operand replaced by its value (param0+2: the kernel's first argument plus 2)`, ptx
	if onHost {
		comment, input = `# the host's call of `+strings.TrimPrefix(assign, "callee=")+`, each argument replaced by its value (? for a run-time value), an array by what the host stores in it`, "$work/lowered.mlir"
	}
	s.Add(comment,
		fmt.Sprintf(`awk -v %s -f %s "%s" >"$work/values.txt"`, tool.ShellQuote(assign), ValuesAwk, input),
		`cat "$work/values.txt"`,
		fmt.Sprintf(`grep -qxF %s "$work/values.txt" && reproduces "%s"`, tool.ShellQuote(line), Escape(Message(c.Observed.Diagnostic))),
		`fixed "the PTX no longer holds that instruction"`)
}

// Check replays an oracle that runs inside legalfuzz (its rule sets,
// the seed algorithms under test, the driver and the GPU, an exec
// verifier) with legalfuzz check: the bug shows when the deviating oracle
// still says what it said, and the reference too.
func Check(s *Script, c Case) {
	lf := s.Need("LEGALFUZZ", legalfuzzSpec())
	s.Add(`step check `+lf+` check --json --domain `+c.Case.Domain+" "+oracles.CaseFile,
		`[ "$rc" -le 1 ] || cannot "legalfuzz check failed"`)
	for _, v := range []oracles.Verdict{c.Reference, c.Observed} {
		if v.Oracle == "" {
			continue
		}
		line := fmt.Sprintf(`"oracle":"%s"`, v.Oracle)
		s.Add(fmt.Sprintf(`grep -F '%s' "$work/check.out" >"$work/%s.line" || cannot "%s gave no verdict here"`, line, fileSafe(v.Oracle), v.Oracle),
			fmt.Sprintf(`grep -qF '"verdict":"%s"' "$work/%s.line" || fixed "%s no longer says %s"`, v.Kind, fileSafe(v.Oracle), v.Oracle, v.Kind))
	}
	s.Add(fmt.Sprintf(`reproduces "%s says %s where %s says %s"`, c.Observed.Oracle, c.Observed.Kind, c.Reference.Oracle, c.Reference.Kind))
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

// ValuesAwk is the evaluator of emitted PTX (emitted.Awk) that a lit
// suite, and a wrong-value bucket's bundle, run on llc's output.
const ValuesAwk = "values.awk"

// WriteValuesAwk writes ValuesAwk into dir and returns its path.
func WriteValuesAwk(dir string) (string, error) {
	path := filepath.Join(dir, ValuesAwk)
	return path, os.WriteFile(path, []byte(emitted.Awk+"\n"), 0o644)
}
