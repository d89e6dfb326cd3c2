// Package emitted reads the PTX a compiler emitted for a kernel: each
// instruction with the value every operand holds, as far as the kernel's
// straight-line code determines it.
//
// The lowered kernels legalfuzz judges are short and branch-free: kernel
// parameters are loaded, constants moved, added and shifted, and handed to
// the instructions under test. Knowing those values is what tells a right
// lowering from one that emits the right instruction with a wrong
// descriptor, size or operand. The evaluator works on PTX rather than on
// the LLVM dialect or LLVM IR because PTX is what every installation's
// chain (MLIR 19, 22, 23, trunk, and llc alone) ends in, its syntax has
// not changed across them, and it is what ptxas and the hardware read: a
// value wrong there is wrong for the user.
package emitted

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Value is what the evaluator knows of an operand: a constant, or a
// kernel parameter plus a constant. Unknown values (loads, special
// registers, arithmetic on parameters beyond adding constants) have
// Known false.
type Value struct {
	Known bool
	// Param is the entry parameter the value derives from, or -1 for a
	// constant.
	Param int
	Off   int64
}

// Const is a known constant.
func Const(c int64) Value { return Value{Known: true, Param: -1, Off: c} }

// String spells the value as reproducers print it: "param0+2", "param1",
// "128", "?".
func (v Value) String() string {
	switch {
	case !v.Known:
		return "?"
	case v.Param < 0:
		return strconv.FormatInt(v.Off, 10)
	case v.Off == 0:
		return fmt.Sprintf("param%d", v.Param)
	case v.Off < 0:
		return fmt.Sprintf("param%d%d", v.Param, v.Off)
	}
	return fmt.Sprintf("param%d+%d", v.Param, v.Off)
}

// Inst is one instruction of an entry.
type Inst struct {
	// Opcode is the instruction with its qualifiers:
	// "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16".
	Opcode string
	// Args are the operands as printed; Values what each holds (a braced
	// vector is unknown; an address is what it points at; a tensor
	// operand "[tmap, {c0, c1}]" is its tensor map).
	Args   []string
	Values []Value
	// Elems are, per operand, the values of the elements of a braced
	// vector "{a, b}" or of a tensor operand's coordinates; nil for other
	// operands.
	Elems [][]Value
	// Line is the instruction's line in the entry (1-based).
	Line int
}

// Is reports whether the instruction is op or one of its qualified forms:
// Is("mma.sync") holds for "mma.sync.aligned.m16n8k16.row.col...".
func (in Inst) Is(op string) bool {
	return in.Opcode == op || strings.HasPrefix(in.Opcode, op+".")
}

// Canonical spells the instruction with each register operand replaced by
// its value: the form a reproducer's evaluator prints (see Awk), e.g.
// "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...}, param0+2, param1+128, 1, 1, 1, 0, 0"
// or "cp.async.bulk.tensor.2d... [param1], [param0, {param4, param5}], [param3]".
// A braced vector with an unknown element is "{...}", and so is the
// first operand's, which the instruction writes.
func (in Inst) Canonical() string {
	parts := make([]string, len(in.Args))
	for i, a := range in.Args {
		switch {
		case strings.HasPrefix(a, "{") && i == 0:
			parts[i] = "{...}"
		case strings.HasPrefix(a, "{"):
			parts[i] = vector(in.Elems[i])
		case isRegister(a):
			parts[i] = in.Values[i].String()
		case in.Elems[i] != nil:
			parts[i] = "[" + in.Values[i].String() + ", " + vector(in.Elems[i]) + "]"
		case strings.HasPrefix(a, "["):
			parts[i] = "[" + in.Values[i].String() + "]"
		default:
			parts[i] = a
		}
	}
	return strings.TrimSpace(in.Opcode + " " + strings.Join(parts, ", "))
}

// vector spells a braced vector's values, or "{...}" when one is unknown.
func vector(vs []Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		if !v.Known {
			return "{...}"
		}
		s[i] = v.String()
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Coords are the values of a tensor operand's coordinates, or of a braced
// vector's elements: operand i's Elems.
func (in Inst) Coords(i int) []Value {
	if i < 0 || i >= len(in.Elems) {
		return nil
	}
	return in.Elems[i]
}

var (
	entryHead = regexp.MustCompile(`^\.(?:visible |weak )?\.entry\s+(\w+)`)
	paramRef  = regexp.MustCompile(`^\[\w+_param_(\d+)\]$`)
)

// EntryName reads the name of the entry a line declares.
func EntryName(line string) (string, bool) {
	if line == "" || line[0] != '.' {
		return "", false // most lines: skip the regexp
	}
	if m := entryHead.FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	return "", false
}

// Entries cuts a PTX module into its entries' text, by name.
func Entries(ptx string) map[string]string {
	out := map[string]string{}
	name := ""
	var b strings.Builder
	for _, line := range strings.SplitAfter(ptx, "\n") {
		if n, ok := EntryName(line); ok {
			if name != "" {
				out[name] = b.String()
			}
			name = n
			b.Reset()
		}
		if name != "" {
			b.WriteString(line)
		}
	}
	if name != "" {
		out[name] = b.String()
	}
	return out
}

// Eval evaluates an entry's instructions in order. An instruction may span
// lines (llc breaks mma.sync's operands over several); braces (the scopes
// inline assembly opens), directives and labels are skipped; a guarded
// instruction ("@p ...") is kept, its result unknown afterwards.
func Eval(entry string) []Inst {
	regs := map[string]Value{}
	var out []Inst
	pending, first := "", 0
	for n, line := range strings.Split(entry, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || line == "{" || line == "}" {
			continue
		}
		if pending == "" {
			first = n + 1
		}
		pending += " " + line
		for {
			stmt, rest, ok := strings.Cut(pending, ";")
			if !ok {
				break
			}
			pending = rest
			if in, ok := parse(stmt); ok {
				in.Line = first
				out = append(out, evalInst(regs, in, strings.HasPrefix(strings.TrimSpace(stmt), "@")))
			}
			first = n + 1
		}
	}
	return out
}

// evalInst fills in the instruction's operand values and records what it
// writes.
func evalInst(regs map[string]Value, in Inst, guarded bool) Inst {
	in.Values = make([]Value, len(in.Args))
	in.Elems = make([][]Value, len(in.Args))
	for i, a := range in.Args {
		in.Values[i], in.Elems[i] = compound(regs, a)
	}
	if len(in.Args) == 0 {
		return in
	}
	for _, dst := range destinations(in.Args[0]) {
		regs[dst] = Value{}
	}
	if v, ok := result(in); ok && !guarded && isRegister(in.Args[0]) {
		regs[in.Args[0]] = v
	}
	return in
}

// parse splits one statement into opcode and operands; directives,
// declarations, labels and braces are not instructions.
func parse(stmt string) (Inst, bool) {
	s := strings.TrimSpace(stmt)
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ":") || strings.HasPrefix(s, ")") {
		return Inst{}, false
	}
	if strings.HasPrefix(s, "@") {
		if i := strings.IndexAny(s, " \t"); i > 0 {
			s = strings.TrimSpace(s[i:])
		}
	}
	op, rest, _ := strings.Cut(strings.Join(strings.Fields(s), " "), " ")
	return Inst{Opcode: op, Args: splitArgs(rest)}, true
}

// splitArgs splits operands at the commas outside braces and brackets.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(s[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

// isRegister reports a register operand: "%rd3", "%r12", or a named
// predicate like the "p" inline assembly declares.
func isRegister(a string) bool {
	if strings.HasPrefix(a, "%") {
		return true
	}
	return a != "" && (a[0] >= 'a' && a[0] <= 'z' || a[0] >= 'A' && a[0] <= 'Z' || a[0] == '_')
}

// destinations lists the registers an instruction's first operand writes
// (a braced vector writes each).
func destinations(a string) []string {
	if !strings.HasPrefix(a, "{") {
		if isRegister(a) {
			return []string{a}
		}
		return nil
	}
	var out []string
	for _, r := range splitArgs(strings.Trim(a, "{}")) {
		if isRegister(r) {
			out = append(out, r)
		}
	}
	return out
}

// compound is an operand's value and, for a braced vector or a tensor
// operand "[tmap, {c0, c1}]", its elements' values.
func compound(regs map[string]Value, a string) (Value, []Value) {
	if inner, ok := strings.CutPrefix(a, "{"); ok {
		return Value{}, elements(regs, strings.TrimSuffix(inner, "}"))
	}
	inner, ok := strings.CutPrefix(a, "[")
	if !ok {
		return operand(regs, a), nil
	}
	parts := splitArgs(strings.TrimSuffix(strings.TrimSpace(inner), "]"))
	if len(parts) != 2 || !strings.HasPrefix(parts[1], "{") {
		return operand(regs, a), nil
	}
	return operand(regs, parts[0]), elements(regs, strings.Trim(parts[1], "{} "))
}

// elements are the values of a vector's comma-separated elements.
func elements(regs map[string]Value, inner string) []Value {
	parts := splitArgs(inner)
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = operand(regs, p)
	}
	return out
}

// operand is an operand's value: an integer immediate, a known register,
// or a parameter reference.
func operand(regs map[string]Value, a string) Value {
	if m := paramRef.FindStringSubmatch(a); m != nil {
		p, _ := strconv.Atoi(m[1])
		return Value{Known: true, Param: p}
	}
	if isRegister(a) {
		return regs[a]
	}
	if inner, ok := strings.CutPrefix(a, "["); ok {
		return address(regs, strings.TrimSuffix(inner, "]"))
	}
	if c, err := strconv.ParseInt(a, 0, 64); err == nil {
		return Const(c)
	}
	if c, err := strconv.ParseUint(a, 0, 64); err == nil {
		return Const(int64(c))
	}
	return Value{}
}

// address is the value of an address operand's inside: a register, a
// constant, or a register plus a constant.
func address(regs map[string]Value, inner string) Value {
	base, off, plus := strings.Cut(inner, "+")
	v := operand(regs, strings.TrimSpace(base))
	if !plus || !v.Known {
		return v
	}
	c := operand(regs, strings.TrimSpace(off))
	if !c.Known || c.Param >= 0 {
		return Value{}
	}
	v.Off += c.Off
	return v
}

// result is what an instruction writes to its destination, where the
// evaluator can say: moves, conversions and loads of parameters copy;
// additions and subtractions of constants keep a parameter's identity;
// the rest of integer arithmetic folds constants.
func result(in Inst) (Value, bool) {
	v := in.Values
	base := strings.SplitN(in.Opcode, ".", 2)[0]
	switch {
	case base == "ld" && strings.HasPrefix(in.Opcode, "ld.param") && len(v) == 2:
		return v[1], v[1].Known
	case base == "mov" && len(v) == 2:
		return truncate(in.Opcode, v[1]), v[1].Known
	case isCvta(in.Opcode) && len(v) == 2:
		return v[1], v[1].Known
	case base == "cvt" && len(v) == 2:
		// cvt.DST.SRC: the value takes the destination's width.
		q := strings.Split(in.Opcode, ".")
		return truncate("cvt."+q[len(q)-2], v[1]), v[1].Known
	case base == "setp" && len(v) == 3 && v[1].Known && v[2].Known && v[1].Param < 0 && v[2].Param < 0:
		return compare(in.Opcode, v[1].Off, v[2].Off)
	case base == "setp" && len(v) == 3 && isBool(v[1]) && v[2] == Const(0) && strings.HasPrefix(in.Opcode, "setp.ne."):
		// An i1 parameter becomes a predicate as param != 0.
		return v[1], true
	case base == "and" && len(v) == 3 && isBool(v[1]) && v[2] == Const(1):
		// llc loads an i1 parameter as a byte and keeps its low bit.
		return v[1], true
	}
	if len(v) != 3 || !v[1].Known || !v[2].Known {
		return Value{}, false
	}
	a, b := v[1], v[2]
	switch base {
	case "add":
		switch {
		case a.Param < 0:
			return truncate(in.Opcode, Value{Known: true, Param: b.Param, Off: a.Off + b.Off}), true
		case b.Param < 0:
			return truncate(in.Opcode, Value{Known: true, Param: a.Param, Off: a.Off + b.Off}), true
		}
		return Value{}, false
	case "sub":
		if b.Param < 0 {
			return truncate(in.Opcode, Value{Known: true, Param: a.Param, Off: a.Off - b.Off}), true
		}
		return Value{}, false
	}
	if a.Param >= 0 || b.Param >= 0 {
		return Value{}, false
	}
	var c int64
	switch base {
	case "mul":
		c = a.Off * b.Off
	case "shl":
		c = a.Off << uint64(b.Off&63)
	case "shr":
		c = int64(uint64(a.Off) >> uint64(b.Off&63))
	case "and":
		c = a.Off & b.Off
	case "or":
		c = a.Off | b.Off
	case "xor":
		c = a.Off ^ b.Off
	default:
		return Value{}, false
	}
	return truncate(in.Opcode, Const(c)), true
}

// isCvta reports a conversion between the generic space and the global
// or shared space. Global addresses are the same in the generic space; a
// shared address made generic (cvta.shared) lies in a window the
// evaluator does not model, and the kernels convert it straight back
// (cvta.to.shared, cvta.to.shared::cluster: the executing CTA's own
// shared::cta addresses are its shared::cluster ones), so each keeps the
// value.
func isCvta(opcode string) bool {
	for _, p := range []string{"cvta.to.global", "cvta.global", "cvta.to.shared", "cvta.shared"} {
		if opcode == p || strings.HasPrefix(opcode, p+".") || strings.HasPrefix(opcode, p+"::") {
			return true
		}
	}
	return false
}

// isBool reports a parameter itself, as an i1 parameter is read.
func isBool(v Value) bool { return v.Known && v.Param >= 0 && v.Off == 0 }

// compare folds a setp of two constants to 1 or 0.
func compare(opcode string, a, b int64) (Value, bool) {
	var t bool
	switch strings.Split(opcode, ".")[1] {
	case "eq":
		t = a == b
	case "ne":
		t = a != b
	case "lt":
		t = a < b
	case "le":
		t = a <= b
	case "gt":
		t = a > b
	case "ge":
		t = a >= b
	default:
		return Value{}, false
	}
	if t {
		return Const(1), true
	}
	return Const(0), true
}

// truncate wraps a constant to the width the opcode's last type qualifier
// names; parameters are kept as they are (their offsets are small).
func truncate(opcode string, v Value) Value {
	if v.Param >= 0 {
		return v
	}
	q := opcode[strings.LastIndexByte(opcode, '.')+1:]
	if len(q) < 2 {
		return v
	}
	bits, err := strconv.Atoi(q[1:])
	if err != nil || bits >= 64 || bits <= 0 {
		return v
	}
	mask := int64(1)<<bits - 1
	c := v.Off & mask
	if q[0] == 's' && c>>(bits-1) != 0 {
		c -= 1 << bits
	}
	return Const(c)
}

// Awk is Eval for a reproducer, as a POSIX awk program: run with
// -v op=OPCODE on a PTX file, it prints Canonical of every instruction
// whose opcode is OPCODE or starts with OPCODE and a dot, one a line; run
// with -v callee=NAME on LLVM dialect, it prints HostCall's Call.String of
// the first call of NAME (see hostAwk). It
// knows what lowered kernels use: parameter loads, moves, additions and
// subtractions of decimal constants, setp of two constants, braced vectors
// and tensor operands "[tmap, {c0, c1}]".
const Awk = `function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function args(s, out,  i, c, d, n, st) {
	n = 0; d = 0; st = 1
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "{" || c == "[") d++
		else if (c == "}" || c == "]") d--
		else if (c == "," && d == 0) { out[++n] = trim(substr(s, st, i - st)); st = i + 1 }
	}
	c = trim(substr(s, st)); if (c != "") out[++n] = c
	return n
}
function vec(s,  e, m, i, r, x) {
	s = trim(s); s = substr(s, 2, length(s) - 2)
	m = args(s, e); r = ""
	for (i = 1; i <= m; i++) { x = val(e[i]); if (x == "?") return "{...}"; r = r (i > 1 ? ", " : "") x }
	return "{" r "}"
}
function tensor(s,  p) {
	s = trim(s); s = trim(substr(s, 2, length(s) - 2))
	args(s, p)
	return "[" val(p[1]) ", " vec(p[2]) "]"
}
` + hostAwk + `
function parts(v,  s, n) {
	P = -1; C = 0
	if (v == "?") return 0
	if (v ~ /^param/) {
		s = substr(v, 6); n = match(s, /[+-]/)
		if (n) { P = substr(s, 1, n - 1) + 0; C = substr(s, n) + 0 } else P = s + 0
	} else C = v + 0
	return 1
}
function show(p, c) {
	if (p < 0) return sprintf("%d", c)
	if (c == 0) return "param" p
	if (c < 0) return "param" p sprintf("%d", c)
	return "param" p "+" sprintf("%d", c)
}
function val(a,  b, o) {
	if (a ~ /^\[[A-Za-z0-9_]*_param_[0-9]+\]$/) { sub(/^.*_param_/, "", a); sub(/\]$/, "", a); return "param" a }
	if (a ~ /^\[/) {
		a = substr(a, 2, length(a) - 2); b = a; o = ""
		if (index(a, "+")) { b = substr(a, 1, index(a, "+") - 1); o = substr(a, index(a, "+") + 1) }
		b = val(b)
		if (o == "") return b
		if (!parts(b)) return "?"
		p1 = P; c1 = C
		if (!parts(val(o)) || P >= 0) return "?"
		return show(p1, c1 + C)
	}
	if (a ~ /^[%A-Za-z_]/) return (a in reg) ? reg[a] : "?"
	if (a ~ /^-?[0-9]+$/) return a
	return "?"
}
callee != "" { host(); next }
{
	sub(/\/\/.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "")
	if ($0 == "" || $0 == "{" || $0 == "}") next
	buf = buf " " $0
	if (buf !~ /;/) next
	line = buf; buf = ""
	sub(/;.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line); gsub(/[ \t]+/, " ", line)
	if (line == "" || line ~ /^\./ || line ~ /:$/) next
	opc = line; sub(/[ \t].*/, "", opc)
	rest = line; if (!sub(/^[^ \t]+[ \t]+/, "", rest)) rest = ""
	n = args(rest, a)
	for (i = 1; i <= n; i++) v[i] = val(a[i])
	split(opc, q, ".")
	r = "?"
	if (n == 2 && (q[1] == "mov" || q[1] == "cvt" || opc ~ /^ld\.param/ || opc ~ /^cvta\.(to\.)?(global|shared)[.:]/)) r = v[2]
	if (n == 3 && (q[1] == "add" || q[1] == "sub") && parts(v[2])) {
		p1 = P; c1 = C
		if (parts(v[3])) {
			if (q[1] == "sub") C = -C
			if (P < 0) r = show(p1, c1 + C)
			else if (p1 < 0 && q[1] == "add") r = show(P, c1 + C)
		}
	}
	if (n == 3 && q[1] == "and" && v[2] ~ /^param[0-9]+$/ && v[3] == "1") r = v[2]
	if (n == 3 && q[1] == "setp" && q[2] == "ne" && v[2] ~ /^param[0-9]+$/ && v[3] == "0") r = v[2]
	if (n == 3 && q[1] == "setp" && parts(v[2]) && P < 0) {
		c1 = C
		if (parts(v[3]) && P < 0) {
			if (q[2] == "ne") r = (c1 != C) ? "1" : "0"
			if (q[2] == "eq") r = (c1 == C) ? "1" : "0"
		}
	}
	if (opc == op || index(opc, op ".") == 1) {
		out = opc
		for (i = 1; i <= n; i++) {
			s = a[i]
			if (s ~ /^\{/) s = (i == 1) ? "{...}" : vec(s)
			else if (s ~ /^\[.*,[ \t]*\{/) s = tensor(s)
			else if (s ~ /^\[/) s = "[" v[i] "]"
			else if (s ~ /^[%A-Za-z_]/) s = v[i]
			out = out (i == 1 ? " " : ", ") s
		}
		print out
	}
	if (n >= 1 && a[1] ~ /^\{/) { m = args(substr(a[1], 2, length(a[1]) - 2), d); for (i = 1; i <= m; i++) reg[d[i]] = "?" }
	if (n >= 1 && a[1] ~ /^[%A-Za-z_]/) reg[a[1]] = r
}`

// hostAwk is HostCall as awk functions: host() reads one line of LLVM
// dialect, keeping constants, allocas, element pointers and stores, and
// prints the first call of callee with its arguments' values.
const hostAwk = `function ssa(l,  n) { n = l; sub(/ = .*/, "", n); return n }
function host(  l, n, c, p, i, v, a, k, x, s, j) {
	l = trim($0)
	if (l ~ /^%[A-Za-z0-9_.#]+ = llvm\.mlir\.constant\(-?[0-9]+ : [A-Za-z0-9_]+\)/) {
		c = l; sub(/^[^(]*\(/, "", c); sub(/ :.*/, "", c); hc[ssa(l)] = c + 0; return
	}
	if (l ~ /^%[A-Za-z0-9_.#]+ = arith\.constant -?[0-9]+ : [A-Za-z0-9_]+/) {
		c = l; sub(/^.*arith\.constant /, "", c); sub(/ :.*/, "", c); hc[ssa(l)] = c + 0; return
	}
	if (l ~ /^%[A-Za-z0-9_.#]+ = llvm\.alloca /) { n = ssa(l); ho[n] = n; hi[n] = 0; return }
	if (l ~ /^%[A-Za-z0-9_.#]+ = llvm\.getelementptr (inbounds )?%[A-Za-z0-9_.#]+\[-?[0-9]+\]/) {
		p = l; sub(/^.*getelementptr (inbounds )?/, "", p); i = p; sub(/\[.*/, "", p); sub(/^[^[]*\[/, "", i); sub(/\].*/, "", i)
		if (p in ho) { n = ssa(l); ho[n] = ho[p]; hi[n] = hi[p] + i }
		return
	}
	if (l ~ /^llvm\.store %[A-Za-z0-9_.#]+, %[A-Za-z0-9_.#]+ :/) {
		v = l; sub(/^llvm\.store /, "", v); p = v; sub(/,.*/, "", v); sub(/^[^,]*, /, "", p); sub(/ :.*/, "", p)
		if (p in ho) hm[ho[p] SUBSEP hi[p]] = (v in hc) ? hc[v] : "?"
		return
	}
	if (l !~ ("^(%[A-Za-z0-9_.#]+ = )?llvm\\.call @" callee "\\(")) return
	sub(/^[^(]*\(/, "", l); sub(/\).*/, "", l)
	k = split(l, a, ","); s = callee "("
	for (i = 1; i <= k; i++) {
		x = trim(a[i])
		if ((x in ho) && ((ho[x] SUBSEP hi[x]) in hm)) {
			v = "["
			for (j = hi[x]; (ho[x] SUBSEP j) in hm; j++) v = v (j > hi[x] ? ", " : "") hm[ho[x] SUBSEP j]
			x = v "]"
		} else x = (x in hc) ? hc[x] : "?"
		s = s (i > 1 ? ", " : "") x
	}
	print s ")"; exit
}`
