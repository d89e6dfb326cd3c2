package repro

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
)

// IssueFile is the bundle's upstream issue: what a maintainer of the
// deviating tool can act on as is.
const IssueFile = "issue.md"

// maxFrames bounds the stack frames an issue quotes: the crashing
// function and the callers that say how it was reached.
const maxFrames = 8

// WriteIssue writes issue.md into a written bundle's folder: a title in
// the tool's terms tagged with the component that owns the bug, where to
// file it and whether to, the minimal input file, the one command that
// shows the bug, the tool's answer (with the top frames of its stack dump
// for a crash, from running repro.sh) against the expected one with the
// documentation it comes from, and the versions that reproduce. It
// returns the file's path.
func WriteIssue(ctx context.Context, bd Bundle) (string, error) {
	b := bd.Bucket
	sig := b.Signature
	f := filingOf(sig.Tool)
	tool := bd.Observed
	if bd.Expected.Oracle == sig.Tool {
		tool = bd.Expected
	}
	class := policy.ClassOf(sig)
	subject := subjectOf(bd, f)
	c := componentOf(f, tool.Rule, subject, class)
	var t strings.Builder
	fmt.Fprintf(&t, "# %s\n\n", title(bd, tool, f, subject, c, class))
	fmt.Fprintf(&t, "Found by legalfuzz (bucket `%s`, class %s). %s\n\n", b.Key, class, versionLine(b, bd.mainLines, f))
	fmt.Fprintf(&t, "**Filing:** %s\n\n", filing(b, c, class))
	if name := inputOf(bd, sig.Tool, f); name != "" {
		if text, err := os.ReadFile(filepath.Join(bd.Dir, name)); err == nil {
			fmt.Fprintf(&t, "## Input (`%s`)\n\n```\n%s```\n\n", name, ensureNewline(string(text)))
		}
	}
	if cmds := issueCommands(bd, sig.Tool); cmds != "" {
		fmt.Fprintf(&t, "## Command\n\n```sh\n%s```\n\n", ensureNewline(cmds))
	}
	fmt.Fprintf(&t, "## Actual\n\n%s (%s) says **%s**", tool.Oracle, tool.Version, tool.Kind)
	if tool.Rule != "" {
		fmt.Fprintf(&t, " at stage `%s`", tool.Rule)
	}
	if tool.Value != "" {
		fmt.Fprintf(&t, ", value `%s`", tool.Value) // what it computed: an encoding, a descriptor
	}
	t.WriteString(":\n\n```\n" + ensureNewline(orDefault(tool.Diagnostic, "(no diagnostic: every stage exited 0)")) + "```\n\n")
	if frames := crashFrames(ctx, bd, tool, class); len(frames) > 0 {
		t.WriteString("Top of the stack dump (`./" + ScriptFile + "` prints it whole):\n\n```\n" + strings.Join(frames, "\n") + "\n```\n\n")
	}
	t.WriteString("## Expected\n\n" + expected(bd, tool, f, class) + "\n")
	path := filepath.Join(bd.Dir, IssueFile)
	return path, os.WriteFile(path, []byte(t.String()), 0o644)
}

// crashFrames runs a crash bucket's repro.sh and returns the top frames
// of the stack dump it prints: the stored verdict keeps only the crashing
// function. Nil for other classes, failures with no crash (an error
// printed with exit status 0) and bundles without a script.
func crashFrames(ctx context.Context, bd Bundle, tool oracles.Verdict, class policy.Class) []string {
	if class != policy.Crash || tool.Kind != oracles.Error || oracles.ParseStage(tool.Rule).Fault != "" || bd.Script == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bd.Script)
	cmd.Dir = bd.Dir
	out, _ := cmd.CombinedOutput() // exit status 1 is the bug reproducing
	// repro.sh's step prints a tool's output with each line after "  | ".
	frames := diag.CrashFrames(strings.ReplaceAll("\n"+string(out), "\n  | ", "\n"))
	return frames[:min(len(frames), maxFrames)]
}

// expected says what the tool should have done, at the level it works
// at (the op, the pass, the instruction), then what the documentation
// says of the case, with its source; never legalfuzz's rule IDs.
func expected(bd Bundle, tool oracles.Verdict, f oracles.Filing, class policy.Class) string {
	return should(tool, f, class) + " " + documented(bd, f, oracles.ParseStage(tool.Rule).Fault) + "\n"
}

// should says what the tool should have done instead.
func should(v oracles.Verdict, f oracles.Filing, class policy.Class) string {
	st := oracles.ParseStage(v.Rule)
	switch {
	case st.Fault == oracles.Dropped:
		return "The lowering must emit all the work the op asks for, or the verifier must reject the op."
	case st.Fault == oracles.WrongValue:
		return "The lowering must emit instructions that compute what the op means (their types, qualifiers and operands), or the verifier must reject the op."
	case st.Fault == oracles.Refused:
		return "What the verifier accepts, the lowering must turn into output " + f.StageTools[st.Name] + " accepts; what it cannot lower, the verifier must reject."
	case st.Fault == oracles.Unconverted:
		return "The lowering must convert the op or fail; it must not exit 0 with the op left in its output."
	case st.Fault == oracles.PassRefused:
		return "What the verifier accepts, the lowering must lower; what the lowering refuses, the verifier must reject."
	case st.Fault == oracles.ExitZero:
		return "A pass that reports an error must fail (a non-zero exit status), not go on as if it had succeeded."
	case class == policy.Crash:
		return "The tool must not crash: it should reject the input with a diagnostic or compile it."
	case class == policy.Miscompile:
		return "The tool should compute the value the documentation gives."
	case class == policy.TooPermissive && f.Verifier:
		return "The verifier should reject the op."
	case class == policy.TooPermissive:
		return "The tool should reject the input with an error."
	case class == policy.TooStrict:
		return "The tool should accept the input."
	}
	return ""
}

// documented says what the documentation legalfuzz checks says of the
// case: the rule it breaks, with the case's values and the rule's source,
// or that none forbids it. Where the lowering dropped work the rule is
// the instruction's, not the op's: the op is legal, one instruction
// cannot do all of it.
func documented(bd Bundle, f oracles.Filing, fault oracles.Fault) string {
	docs := orDefault(f.Docs, "the PTX ISA and the CUDA driver documentation")
	ref := bd.Reference
	switch {
	case ref.Oracle == "":
		return "legalfuzz's reading of " + docs + " did not judge this input."
	case ref.Kind != oracles.Reject && fault == oracles.WrongValue:
		return "The input is valid: no rule of " + docs + " that legalfuzz checks forbids it, and the instruction must compute what the op means: the value Actual names as wanted."
	case ref.Kind != oracles.Reject:
		return "The input is valid: no rule of " + docs + " that legalfuzz checks forbids it."
	}
	rule := violation(bd)
	if r := ruleOf(bd.Bucket.Signature.Rule); r != nil {
		rule += " (" + r.Source + ")"
	}
	switch fault {
	case oracles.Dropped:
		return "One instruction cannot do all of it (" + rule + "), so the lowering must emit several."
	case oracles.WrongValue:
		// The rule is why the case is invalid, seldom why the value is
		// wrong (a misaligned buffer does not excuse a wrong data type).
		return "The input breaks a rule (" + rule + "), but the verifier accepted it, so what the lowering emits must still compute what the op means (the value Actual names as wanted), or the verifier must reject the op."
	}
	return "The input is invalid: " + rule + "."
}

// filing says where to file the bucket, and whether to: only what the
// newest version tested still shows is worth a maintainer's time.
func filing(b store.Bucket, c oracles.Component, class policy.Class) string {
	newest := newestJudged(b)
	switch {
	case c.Tracker == "":
		return "Do not file upstream: the deviating oracle is legalfuzz's own (a rule set, a seed algorithm under test, a user's verifier)."
	case class == policy.Disputed:
		return "Do not file yet: two tools disagree and the documentation legalfuzz checks does not say which is right."
	case class == policy.Limitation:
		return "Do not file as a bug: the tool states this limitation in its own words (a feature request at most)."
	case b.FixedUpstream():
		return "Fixed on LLVM main: do not file."
	case newest.Oracle == "":
		return "Not replayed on other versions: check the newest release before filing with " + tracker(c) + "."
	case !b.NewestReproduces():
		return "Does not reproduce on the newest version tested (" + newest.Label() + "): do not file."
	}
	line := "File with " + tracker(c) + ": it reproduces on the newest version tested (" + newest.Label() + ")."
	if last := b.Versions[len(b.Versions)-1]; !last.Tells() {
		line += " Newer versions cannot tell (" + last.Label() + " among them): check them by hand first."
	}
	return line
}

// tracker says whose tracker takes the component's issues.
func tracker(c oracles.Component) string {
	if c.Tracker == "NVIDIA" {
		return "NVIDIA (" + c.Name + "), not LLVM"
	}
	return "LLVM (https://github.com/llvm/llvm-project/issues), component " + c.Name
}

// newestJudged is the newest version the bucket was replayed on that ran
// the stage under test; zero when none did.
func newestJudged(b store.Bucket) store.VersionVerdict {
	for i := len(b.Versions) - 1; i >= 0; i-- {
		if b.Versions[i].Tells() {
			return b.Versions[i]
		}
	}
	return store.VersionVerdict{}
}

// versionLine says what each version did with the case (reproduces,
// fixed, passes it on, stops earlier, fails otherwise, cannot judge it),
// whether the bug is a regression, whether LLVM main still has it, and
// which commit of main that is.
func versionLine(b store.Bucket, mainLines []string, f oracles.Filing) string {
	if len(b.Versions) == 0 {
		return "Not yet replayed on other versions."
	}
	under := oracles.ParseStage(b.Signature.Stage)
	var groups = map[string][]string{}
	var each []string
	for _, v := range b.Versions {
		at := oracles.ParseStage(v.Rule)
		switch v.Outcome {
		case store.DecidedLater:
			each = append(each, fmt.Sprintf("not in %s (%s lets the case through, %s %s it)", v.Label(), stageName(under, f), stageName(at, f), verb(v.Kind)))
		case store.StopsEarlier:
			each = append(each, fmt.Sprintf("%s cannot tell (%s %s the case before %s runs)", v.Label(), stageName(at, f), verb(v.Kind), stageName(under, f)))
		case store.Differs:
			each = append(each, fmt.Sprintf("%s fails otherwise (%s %s the case)", v.Label(), stageName(at, f), verb(v.Kind)))
		default:
			groups[v.Outcome] = append(groups[v.Outcome], v.Label())
		}
	}
	var parts []string
	if l := groups[store.Reproduces]; len(l) > 0 {
		parts = append(parts, "reproduces in "+and(l))
	}
	if l := groups[store.Fixed]; len(l) > 0 {
		parts = append(parts, "fixed in "+and(l))
	}
	parts = append(parts, each...)
	if l := groups[store.CannotJudge]; len(l) > 0 {
		parts = append(parts, and(l)+" cannot judge the case (no spelling of it, or no verdict)")
	}
	line := "Found in: " + strings.Join(parts, "; ") + "."
	if b.Regression() {
		line = "**Regression:** " + strings.Join(parts, "; ") + "."
	}
	switch {
	case b.FixedUpstream():
		line += " LLVM main no longer shows it: fixed upstream, still in the releases it reproduces in."
	case b.NewestReproduces():
		line += " **The newest version tested still reproduces it.**"
	}
	for _, m := range mainLines {
		line += " " + m + "."
	}
	return line
}

// stageName names a stage of the family's chain as its maintainers would:
// the verifier, the pass, the tool (Filing.StageTools).
func stageName(st oracles.Stage, f oracles.Filing) string {
	switch {
	case st.Name == "verify":
		return "the verifier"
	case st.Name == "lowering":
		return "the lowering"
	case strings.HasPrefix(st.Name, "pass:"):
		return strings.TrimPrefix(st.Name, "pass:")
	case f.StageTools[st.Name] != "":
		return f.StageTools[st.Name]
	case st.Name == "":
		return "the tool"
	}
	return st.Name
}

// verb says what a stage did with a case, by the verdict's kind.
func verb(k oracles.Kind) string {
	switch k {
	case oracles.Reject:
		return "refuses"
	case oracles.Accept, oracles.Result:
		return "accepts"
	}
	return "fails on"
}

// and joins labels as a sentence does: "22, 23 and trunk".
func and(labels []string) string {
	if len(labels) < 2 {
		return strings.Join(labels, "")
	}
	return strings.Join(labels[:len(labels)-1], ", ") + " and " + labels[len(labels)-1]
}

// issueCommands are the commands issue.md shows: repro.sh's steps, the
// shortest stage sequence that shows the bug, after the line that says
// which installation's tools they are; else the tool's block of
// commands.txt.
func issueCommands(bd Bundle, tool string) string {
	block := commandsOf(bd.Dir, tool)
	if len(bd.commands) == 0 {
		return block
	}
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if strings.HasPrefix(l, "# the tools of ") {
			out = append(out, l)
		}
	}
	return strings.Join(append(out, bd.commands...), "\n")
}

// commandsOf cuts the tool's block out of the bundle's commands.txt: the
// lines after "# TOOL" up to the next blank line.
func commandsOf(dir, tool string) string {
	text, err := os.ReadFile(filepath.Join(dir, CommandsFile))
	if err != nil {
		return ""
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(text), "\n") {
		switch {
		case line == "# "+tool:
			in = true
		case in && strings.TrimSpace(line) == "":
			return strings.Join(out, "\n")
		case in:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
