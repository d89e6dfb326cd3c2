package replay

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// scriptTool is a program repro.sh runs: the shell variable that holds it,
// the environment variable legalfuzz reads for it, and where to look.
type scriptTool struct {
	Var  string
	Spec tool.Spec
}

// Script is repro.sh being written: the tools it needs and its steps.
type Script struct {
	tools []scriptTool
	lines []string
}

// Need adds a tool (once) and returns the shell expansion that runs it.
func (s *Script) Need(v string, spec tool.Spec) string {
	for _, t := range s.tools {
		if t.Var == v {
			return `"$` + v + `"`
		}
	}
	s.tools = append(s.tools, scriptTool{Var: v, Spec: spec})
	return `"$` + v + `"`
}

// Add appends shell lines.
func (s *Script) Add(lines ...string) { s.lines = append(s.lines, lines...) }

// Text is the script: the header comments, the helpers, the tools located
// (the path found when the bundle was written, the legalfuzz environment
// variable first, the plain name on PATH last), then the steps.
func (s *Script) Text(ctx context.Context, header []string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	b.WriteString(prelude)
	for _, t := range s.tools {
		cands := []string{}
		if found, err := tool.Locate(ctx, t.Spec); err == nil {
			cands = append(cands, tool.ShellQuote(found.Path))
		}
		cands = append(cands, t.Spec.Files...)
		fmt.Fprintf(&b, "%s=$(find_tool %s %s) || cannot \"%s not found: install it (%s) or set %s\"\n",
			t.Var, envName(t.Spec), strings.Join(cands, " "), t.Spec.Name, t.Spec.Install, envName(t.Spec))
	}
	for _, l := range s.lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Commands are the script's steps as a person types them: the tools by
// name, the scratch files in the current folder; what issue.md shows.
func (s *Script) Commands() []string {
	r := []string{`"$work/`, ``, `" `, ` `}
	for _, t := range s.tools {
		r = append(r, `"$`+t.Var+`"`, t.Spec.Name)
	}
	plain := strings.NewReplacer(r...)
	var out []string
	for _, l := range s.lines {
		if strings.HasPrefix(l, "step ") {
			_, cmd, _ := strings.Cut(strings.TrimPrefix(l, "step "), " ")
			out = append(out, strings.TrimSuffix(plain.Replace(cmd+" "), " "))
		} else if strings.HasPrefix(l, "awk ") {
			out = append(out, strings.TrimSuffix(plain.Replace(l+" "), " "))
		}
	}
	return out
}

// envName is the variable that points legalfuzz (and repro.sh) at a tool.
func envName(s tool.Spec) string {
	if s.Env == "" {
		return "LEGALFUZZ_TOOL_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(s.Name))
	}
	return s.Env
}

// prelude holds repro.sh's helpers. step runs one command with its output
// kept in $work/NAME.out; said looks for the bug's words in it; clean is
// a step that exited 0 and printed no error (mlir-opt can print an error
// and exit 0); crashed is a signal or an LLVM stack dump.
const prelude = `#
# Exit status (git bisect run's convention): 1 the bug reproduces, 0 it does not,
# 125 this machine cannot tell (a tool is missing, or an earlier step failed otherwise).
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/legalfuzz-repro.XXXXXX") || exit 125
trap 'rm -rf "$work"' EXIT
cd "$here" || exit 125

reproduces() { echo "repro: REPRODUCES: $*"; exit 1; }
fixed() { echo "repro: does not reproduce: $*"; exit 0; }
cannot() { echo "repro: cannot tell: $*" >&2; exit 125; }
find_tool() {
	eval "v=\${$1:-}"
	shift
	if [ -n "$v" ]; then
		[ -x "$v" ] || return 1
		echo "$v"
		return 0
	fi
	for t in "$@"; do
		if p=$(command -v "$t" 2>/dev/null) && [ -x "$p" ]; then echo "$p"; return 0; fi
	done
	return 1
}
step() {
	name=$1
	shift
	echo "+ $*"
	"$@" >"$work/$name.out" 2>&1
	rc=$?
	sed -n '1,30s/^/  | /p' "$work/$name.out"
	echo "  (exit $rc)"
}
said() { grep -qF -- "$2" "$work/$1.out"; }
crashed() { [ "$rc" -ge 128 ] || grep -qE 'PLEASE submit a bug report|Stack dump|LLVM ERROR' "$work/$1.out"; }
clean() { [ "$rc" -eq 0 ] && ! grep -qiE '(^|: )(error|fatal)( |:)' "$work/$1.out"; }

`

// Placeholder matches what diag.Normalize put in place of the parts of a
// message that vary (paths, positions, names): the bug's words are the
// longest stretch between them.
var Placeholder = regexp.MustCompile(`FILE:LINE:COL|FILE:LINE|FILE|LINE:COL|%V|@SYM|\^BB|HEX|ENTRY|\btN\b|'C'|\?`)

// stagePrefix is the stage name the mlir oracle puts before a lowering
// step's message ("lowering: ", "llc: ", "ptx: " for the emitted PTX).
var stagePrefix = regexp.MustCompile(`^(?:verify|lowering|translate|link|llc|ptxas|ptx): `)

// Words picks from a stored (normalized) diagnostic the literal text that
// the tool prints when the bug shows: its message cut at the first varying
// part. Empty when nothing literal is left.
func Words(diagnostic string) string {
	best := ""
	for _, part := range Placeholder.Split(Message(diagnostic), -1) {
		if part = strings.TrimSpace(part); len(part) > len(best) {
			best = part
		}
	}
	if len(best) < 8 {
		return ""
	}
	return best
}

// Message is the first line of a stored (normalized) diagnostic as the
// tool said it: without the stage, location and "error:" prefixes.
func Message(diagnostic string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(diagnostic), "\n", 2)[0])
	line = stagePrefix.ReplaceAllString(line, "")
	for _, p := range []string{"within split at FILE:LINE offset :LINE:COL: ", "FILE:LINE:COL: ", "<stdin>:LINE:COL: ", "ptxas FILE, line LINE; "} {
		line = strings.TrimPrefix(line, p)
	}
	for _, p := range []string{"error: ", "error   : ", "ptxas fatal   : ", "ptxas error   : ", "fatal error: "} {
		if i := strings.Index(line, p); i >= 0 && i < 20 {
			line = line[i+len(p):]
		}
	}
	return line
}

// Outcome says how repro.sh judges the deviating tool's last step: what
// it must have done for the bug to show.
func Outcome(v oracles.Verdict) string {
	switch v.Kind {
	case oracles.Accept, oracles.Result:
		return "accept"
	case oracles.Error, oracles.Timeout:
		return "crash"
	}
	return "reject"
}
