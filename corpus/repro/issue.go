package repro

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// IssueFile is the bundle's upstream issue: what a maintainer of the
// deviating tool can act on as is.
const IssueFile = "issue.md"

// inputFiles are the rendered inputs a tool family reads, by family.
var inputFiles = map[string]string{"mlir": "case.mlir", "ptxas": "case.ptx", "llc": "case.ll", "llvm-mc": "case.s", "cuda": "case.ptx"}

// projects name the upstream of a tool family, as its tracker would.
var projects = map[string]string{"mlir": "[MLIR][NVGPU]", "llc": "[NVPTX]", "ptxas": "ptxas", "llvm-mc": "[AMDGPU][MC]", "cuda": "CUDA driver"}

// classWords say what a class of bug looks like in an issue title.
var classWords = map[policy.Class]string{
	policy.Crash:         "fails on",
	policy.Miscompile:    "miscompiles",
	policy.TooPermissive: "accepts invalid",
	policy.TooStrict:     "rejects valid",
	policy.Limitation:    "does not support",
	policy.Disputed:      "disagrees on",
}

// WriteIssue writes issue.md into a written bundle's folder: a title in
// the tool's terms, the minimal input file, the one command that shows
// the bug, the tool's answer against the expected one with the PTX ISA
// section it comes from, and the versions that reproduce. It returns the
// file's path.
func WriteIssue(bd Bundle) (string, error) {
	b := bd.Bucket
	sig := b.Signature
	in, _ := oracles.Lookup(sig.Tool)
	tool := bd.Observed
	if bd.Expected.Oracle == sig.Tool {
		tool = bd.Expected
	}
	class := policy.ClassOf(sig)
	var t strings.Builder
	fmt.Fprintf(&t, "# %s %s %s: %s\n\n", orDefault(projects[in.Family], sig.Tool), classWords[class], sig.Domain, headline(tool, sig))
	fmt.Fprintf(&t, "Found by legalfuzz (bucket `%s`, class %s). %s\n\n", b.Key, class, versionLine(b, bd.mainLines))
	if name := inputFiles[in.Family]; name != "" {
		if text, err := os.ReadFile(filepath.Join(bd.Dir, name)); err == nil {
			fmt.Fprintf(&t, "## Input (`%s`)\n\n```\n%s```\n\n", name, ensureNewline(string(text)))
		}
	}
	if cmds := commandsOf(bd.Dir, sig.Tool); cmds != "" {
		fmt.Fprintf(&t, "## Command\n\n```sh\n%s```\n\n", ensureNewline(cmds))
	}
	fmt.Fprintf(&t, "## Actual\n\n%s (%s) says **%s**", tool.Oracle, tool.Version, tool.Kind)
	if tool.Rule != "" {
		fmt.Fprintf(&t, " at stage `%s`", tool.Rule)
	}
	t.WriteString(":\n\n```\n" + ensureNewline(orDefault(tool.Diagnostic, "(no diagnostic: every stage exited 0)")) + "```\n\n")
	t.WriteString("## Expected\n\n" + expected(sig) + "\n")
	path := filepath.Join(bd.Dir, IssueFile)
	return path, os.WriteFile(path, []byte(t.String()), 0o644)
}

// expected says what the PTX ISA says of the case, from spec/ptxisa's rule
// and its source.
func expected(sig policy.Signature) string {
	for _, r := range spec.Rules() {
		if r.ID == sig.Rule {
			return fmt.Sprintf("The case is invalid: %s (`%s`, %s).\n", r.Message, r.ID, r.Source)
		}
	}
	if sig.Rule != "" && sig.SpecKind != oracles.Reject {
		return fmt.Sprintf("The case is valid PTX by the PTX ISA (legalfuzz's `%s` rule set accepts it); it should compile to the instruction it names.\n", sig.Rule)
	}
	return "See the tool's own documentation; legalfuzz's PTX ISA rules did not decide this case.\n"
}

// headline is the title's last part: the tool's first line of
// diagnostic, else the rule spec/ptxisa decided with.
func headline(tool oracles.Verdict, sig policy.Signature) string {
	if d := strings.TrimSpace(tool.Diagnostic); d != "" {
		return strings.TrimSpace(strings.SplitN(d, "\n", 2)[0])
	}
	return "accepted although " + sig.Rule + " rejects it"
}

// versionLine says which versions reproduce, whether LLVM main still
// does, and which commit of main that is.
func versionLine(b store.Bucket, mainLines []string) string {
	found := b.FoundIn()
	if found == "" {
		return "Not yet replayed on other versions."
	}
	line := "Versions: " + found + "."
	switch {
	case b.FixedUpstream():
		line += " LLVM main no longer shows it: fixed upstream, still in the releases marked reproduces."
	case b.NewestReproduces():
		line += " **The newest version tested still reproduces it.**"
	}
	for _, m := range mainLines {
		line += " " + m + "."
	}
	return line
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
