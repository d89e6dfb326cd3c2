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
		for !ll && i+1 < len(lines) && i-start < maxJoin && continues(code, stripComment(lines[i+1], ll)) {
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

// continues reports whether an op goes on over the next line: brackets
// left open, or a type list or attribute dictionary begun or to come
// (": ...", "-> ...", "{...}").
func continues(code, next string) bool {
	if name, _ := opName(next, false); name != "" {
		return false
	}
	code, next = strings.TrimSpace(code), strings.TrimSpace(next)
	return depth(code) > 0 || strings.HasSuffix(code, ":") || strings.HasSuffix(code, ",") || strings.HasSuffix(code, "->") ||
		strings.HasPrefix(next, ":") || strings.HasPrefix(next, "->") || strings.HasPrefix(next, "{")
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
