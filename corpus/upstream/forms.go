package upstream

import (
	"path/filepath"
	"regexp"
	"strings"
)

var (
	// llvmCall finds an NVVM intrinsic call (not a declaration).
	llvmCall = regexp.MustCompile(`\bcall\b[^@]*@(llvm\.nvvm\.[\w.]+)\(`)
	// mlirOp finds an nvgpu or nvvm operation, custom or generic form: not
	// a type (!nvgpu.), an attribute (#nvvm.) or a discardable attribute
	// name (nvvm.kernel, nvvm.maxntid = ...).
	mlirOp = regexp.MustCompile(`(?:^|[\s=(,])"?((?:nvgpu|nvvm)\.[a-z][\w.]*)"?`)
	// runCPU and runPTX are llc's -mcpu=sm_XX and -mattr=+ptxNN.
	runCPU = regexp.MustCompile(`-mcpu=(sm_\w+)`)
	runPTX = regexp.MustCompile(`\+ptx(\d)(\d+)\b`)
)

// maxJoin bounds the lines one form may span.
const maxJoin = 64

// forms splits a test file into its NVVM calls (.ll, one line each) or
// nvgpu/nvvm ops (.mlir), one form each, comments (FileCheck lines) left
// out. An op goes on over the next lines while its brackets stay open or
// its types are still to come, up to the next op: an op that never closes
// is read as far as it goes and loses no other.
func forms(path, text string) []form {
	ll := filepath.Ext(path) == ".ll"
	lines := strings.Split(text, "\n")
	tgt, ptx := runTarget(lines)
	var out []form
	for i := 0; i < len(lines); i++ {
		code := stripComment(lines[i], ll)
		name, at := opName(code, ll)
		if name == "" {
			continue
		}
		start := i
		code = code[at:]
		for !ll && i+1 < len(lines) && i-start < maxJoin && continues(code, lines[i+1]) {
			i++
			code += " " + strings.TrimSpace(stripComment(lines[i], ll))
		}
		out = append(out, form{path: path, line: start + 1, text: code, target: tgt, ptx: ptx})
	}
	return out
}

// opName finds the form a line starts: the intrinsic or op name and where
// the form's text begins.
func opName(code string, ll bool) (string, int) {
	if ll {
		m := llvmCall.FindStringSubmatchIndex(code)
		if m == nil {
			return "", 0
		}
		return code[m[2]:m[3]], m[2]
	}
	for _, m := range mlirOp.FindAllStringSubmatchIndex(code, -1) {
		rest := strings.TrimLeft(code[m[1]:], " ")
		if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
			continue // an attribute name: nvvm.maxntid = ...
		}
		if strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, "}") {
			continue // a unit attribute: {llvm.byval = i32, nvvm.grid_constant}
		}
		return code[m[2]:m[3]], m[2]
	}
	return "", 0
}

// runTarget is the first RUN line's llc target and PTX ISA version
// ("sm_90a", "8.0"), "" where it names none.
func runTarget(lines []string) (string, string) {
	for _, l := range lines {
		if !strings.Contains(l, "RUN:") {
			continue
		}
		m := runCPU.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if p := runPTX.FindStringSubmatch(l); p != nil {
			return m[1], p[1] + "." + p[2]
		}
		return m[1], ""
	}
	return "", ""
}

// stripComment drops a line's comment: ; in LLVM IR, // in MLIR, outside
// string literals.
func stripComment(line string, ll bool) string {
	in := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '"':
			in = !in
		case in:
		case ll && line[i] == ';':
			return line[:i]
		case !ll && strings.HasPrefix(line[i:], "//"):
			return line[:i]
		}
	}
	return line
}

// continues reports whether an op goes on over the next line: not into
// a blank line or the next op or statement; on while its brackets are
// open, its type list is still to come (": ...", "-> ...") or its
// attributes follow ("{...}", a keyword line).
func continues(code, next string) bool {
	code, next = strings.TrimSpace(code), strings.TrimSpace(stripComment(next, false))
	if name, _ := opName(next, false); name != "" || next == "" {
		return false
	}
	switch {
	case depth(code) > 0, strings.HasPrefix(next, ":"), strings.HasPrefix(next, "->"), strings.HasPrefix(next, "{"),
		strings.HasSuffix(code, ":"), strings.HasSuffix(code, ","), strings.HasSuffix(code, "->"):
		return true
	}
	return !typed(code) && !statement.MatchString(next)
}

// statement finds a line that starts a statement of its own: a result
// assignment, an op name, a block's end or label, a return.
var statement = regexp.MustCompile(`^(%[\w#:]+\s*(,\s*%[\w#:]+)*\s*=|[a-z_]\w*\.[a-z_]|}|\^|"|return\b|func\b|module\b)`)

// typed reports whether an op's text has its type list: a colon outside
// brackets and strings.
func typed(code string) bool {
	d, in := 0, false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case c == '"':
			in = !in
		case in:
		case c == '(' || c == '[' || c == '{' || c == '<':
			d++
		case c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || code[i-1] != '-')):
			d--
		case c == ':' && d == 0:
			return true
		}
	}
	return false
}

// depth is how many (, [ and { a text leaves open.
func depth(s string) int {
	d := 0
	for _, r := range s {
		switch r {
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		}
	}
	return d
}

// args splits a call's or op's operand list, the text after its opening
// parenthesis, into top-level comma-separated parts; ok is false when the
// list never closes.
func args(s string) (parts []string, ok bool) {
	d, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[', '{', '<':
			d++
		case ')', ']', '}', '>':
			if r == ')' && d == 0 {
				if p := strings.TrimSpace(s[start:i]); p != "" || len(parts) > 0 {
					parts = append(parts, p)
				}
				return parts, true
			}
			d--
		case ',':
			if d == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, false
}
