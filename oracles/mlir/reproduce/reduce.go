package reproduce

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/replay"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// mlirText is what the bundles' reducer asks of case.mlir, the same for
// the mlir oracles and the pass judges (replay.Validator, replay.Editor).
type mlirText struct{}

// Validity checks a reduced case.mlir (replay.Validator): the
// installation's mlir-opt verifies the candidate cleanly; where the bug
// is the verifier's own (a crash or a refusal at "verify"), it verifies
// the candidate without the op under test, the op whose removal makes the
// bug go and leaves a module the verifier accepts.
func (mlirText) Validity(ctx context.Context, c replay.Case, name string, lines []string) replay.Validity {
	in := c.Installation
	if in.Dir == "" || filepath.Ext(name) != filepath.Ext(oracles.MLIRFile) {
		return replay.Validity{}
	}
	opt, err := tool.Locate(ctx, mlir.ToolsOf(in).Opt)
	if err != nil {
		return replay.Validity{}
	}
	clean := func(lines []string) bool { return replay.RunsClean(ctx, opt.Path, oracles.MLIRFile, lines) }
	if stage, fault := replayStage(c.Observed.Rule); stage != "verify" || fault != "" || replay.Outcome(c.Observed) == "accept" {
		if !clean(lines) {
			return replay.Validity{}
		}
		return replay.Validity{Valid: clean, What: "mlir-opt " + in.Label + " verifies it"}
	}
	op := opUnderTest(lines, clean)
	if op == "" {
		return replay.Validity{}
	}
	isOp := func(l string) bool { m := mlirOpLine.FindStringSubmatch(l); return m != nil && m[1] == op }
	return replay.Validity{
		Valid: func(lines []string) bool { return clean(slices.DeleteFunc(slices.Clone(lines), isOp)) },
		Keep:  isOp,
		What:  "mlir-opt " + in.Label + " verifies it without " + op + ", the op under test",
	}
}

// Ops matches a line that runs an nvgpu or nvvm op, in custom or generic
// ("nvgpu.warpgroup.mma"(...)) form, not the #nvvm.target attribute or a
// !nvgpu type (replay.Editor).
func (mlirText) Ops(line string) bool { return mlirOp.MatchString(line) }

// mlirOp is Ops's pattern.
var mlirOp = regexp.MustCompile(`(^|[\s"])(nvgpu|nvvm)\.[a-z]`)

// Edit reduces case.mlir beyond deleting lines (replay.Editor): values
// built from parts made arguments of their function, regions around what
// shows the bug deleted or unwrapped, unused arguments dropped, lines
// deleted again after what those freed, and the indentation every line
// shares taken out.
func (mlirText) Edit(name string, lines []string, keep func(string) bool, test func([]string) bool, reduce func([]string) []string) []string {
	if name != oracles.MLIRFile {
		return lines
	}
	more := dropArguments(unwrap(promoteCasts(lines, keep, test), keep, test), test)
	if !slices.Equal(more, lines) {
		lines = reduce(more)
	}
	return dedent(lines)
}

// mlirOpLine matches a line running an nvgpu or nvvm op, in custom or
// generic form, and names the op.
var mlirOpLine = regexp.MustCompile(`^\s*(?:%[\w#:, ]+= )?"?((?:nvgpu|nvvm)\.[\w.]+)`)

// opUnderTest is the nvgpu or nvvm op whose lines, taken out, leave a
// module the verifier accepts: the op whose verifier crashes or refuses.
// "" when no op does.
func opUnderTest(lines []string, clean func([]string) bool) string {
	tried := map[string]bool{}
	for _, l := range lines {
		m := mlirOpLine.FindStringSubmatch(l)
		if m == nil || tried[m[1]] {
			continue
		}
		tried[m[1]] = true
		rest := slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
			n := mlirOpLine.FindStringSubmatch(l)
			return n != nil && n[1] == m[1]
		})
		if clean(rest) {
			return m[1]
		}
	}
	return ""
}

// castLine is a value the renderer built from parts and cast to the type
// the op takes: %v3 = builtin.unrealized_conversion_cast %v2 : !llvm.ptr to T.
var castLine = regexp.MustCompile(`^\s*(%\w+) = builtin\.unrealized_conversion_cast .* to (\S.*?)\s*$`)

// funcLine opens a function whose arguments can take one more value.
var funcLine = regexp.MustCompile(`^\s*(?:gpu\.func|func\.func) @[\w.$-]+\(`)

// promoteCasts turns each cast value into an argument of its function
// when test still holds: the parts it was built from become dead lines
// for ReduceLines to delete, as a maintainer would write the value as an
// argument of its type.
func promoteCasts(lines []string, keep func(string) bool, test func([]string) bool) []string {
	for i := 0; i < len(lines); i++ {
		m := castLine.FindStringSubmatch(lines[i])
		if m == nil || keep(lines[i]) {
			continue
		}
		f := i - 1
		for f >= 0 && !funcLine.MatchString(lines[f]) {
			f--
		}
		if f < 0 {
			continue
		}
		head, ok := withArgument(lines[f], m[1]+": "+m[2])
		if !ok {
			continue
		}
		cand := slices.Clone(lines)
		cand[f] = head
		cand = slices.Delete(cand, i, i+1)
		if test(cand) {
			lines, i = cand, i-1
		}
	}
	return lines
}

// withArgument adds an argument to a function's opening line: after the
// last of its arguments, found by matching parentheses.
func withArgument(line, arg string) (string, bool) {
	open := funcLine.FindStringIndex(line)[1] - 1
	depth := 0
	for i := open; i < len(line); i++ {
		switch line[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				sep := ", "
				if i == open+1 {
					sep = ""
				}
				return line[:i] + sep + arg + line[i:], true
			}
		}
	}
	return line, false
}

// unwrap deletes a region around what shows the bug, or only the lines
// that open and close it, when test still holds: a function or module
// that line deletion cannot take out in one piece.
func unwrap(lines []string, keep func(string) bool, test func([]string) bool) []string {
	for i := 0; i < len(lines); i++ {
		if !strings.HasSuffix(strings.TrimSpace(lines[i]), "{") || keep(lines[i]) {
			continue
		}
		j := closing(lines, i)
		if j < 0 {
			continue
		}
		if whole := slices.Delete(slices.Clone(lines), i, j+1); !slices.ContainsFunc(lines[i:j+1], keep) && test(whole) {
			lines, i = whole, i-1
			continue
		}
		cand := slices.Delete(slices.Clone(lines), j, j+1)
		cand = slices.Delete(cand, i, i+1)
		if test(cand) {
			lines, i = cand, i-1
		}
	}
	return lines
}

// argument is one argument of a function's opening line.
var argument = regexp.MustCompile(`(%\w+): `)

// dropArguments deletes the arguments of a function that no other line
// uses, when test still holds.
func dropArguments(lines []string, test func([]string) bool) []string {
	for i, l := range lines {
		if !funcLine.MatchString(l) {
			continue
		}
		for _, m := range argument.FindAllStringSubmatch(l, -1) {
			if used(lines, i, m[1]) {
				continue
			}
			head, ok := withoutArgument(lines[i], m[1])
			cand := slices.Clone(lines)
			cand[i] = head
			if ok && test(cand) {
				lines = cand
			}
		}
	}
	return lines
}

// used reports whether a line other than lines[def] names the value.
func used(lines []string, def int, name string) bool {
	use := regexp.MustCompile(regexp.QuoteMeta(name) + `\b`)
	for i, l := range lines {
		if i != def && use.MatchString(l) {
			return true
		}
	}
	return false
}

// withoutArgument takes one argument out of a function's opening line,
// with the comma before or after it.
func withoutArgument(line, name string) (string, bool) {
	open := funcLine.FindStringIndex(line)[1]
	start := strings.Index(line[open:], name+": ")
	if start < 0 {
		return line, false
	}
	start += open
	depth, end := 0, -1
	for k := start; k < len(line) && end < 0; k++ {
		switch line[k] {
		case '(', '<', '[', '{':
			depth++
		case ')', '>', ']', '}':
			if depth == 0 {
				end = k
			}
			depth--
		case ',':
			if depth == 0 {
				end = k
			}
		}
	}
	switch {
	case end < 0:
		return line, false
	case line[end] == ',':
		return line[:start] + strings.TrimLeft(line[end+1:], " "), true
	case start > open:
		return strings.TrimRight(strings.TrimSuffix(strings.TrimRight(line[:start], " "), ","), " ") + line[end:], true
	}
	return line[:start] + line[end:], true
}

// closing is the line that closes the region lines[i] opens, or -1.
func closing(lines []string, i int) int {
	depth := 0
	for j := i; j < len(lines); j++ {
		depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
		if depth == 0 {
			if j > i && strings.TrimSpace(lines[j]) == "}" {
				return j
			}
			return -1
		}
	}
	return -1
}

// dedent takes out the indentation every line shares: what was left of
// the regions that held the lines.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, strings.Repeat(" ", common))
	}
	return out
}
