package waitcnt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Counter is one of the three gfx9 wait counters an s_waitcnt names.
type Counter uint8

const (
	VM   Counter = iota // vmcnt: vector memory loads and stores
	Exp                 // expcnt: exports and GDS (VGPR data locks)
	LGKM                // lgkmcnt: LDS, GDS, constant (SMEM) and messages
	// NumCounters is the number of counters.
	NumCounters = 3
)

// counterNames spells the counters as llvm-mc does.
var counterNames = [NumCounters]string{"vmcnt", "expcnt", "lgkmcnt"}

func (c Counter) String() string {
	if int(c) < NumCounters {
		return counterNames[c]
	}
	return fmt.Sprintf("counter%d", c)
}

// fieldMax holds the largest value of each counter's SIMM16 field on gfx9
// (gfx900, gfx908, gfx90a, gfx942): vmcnt 6 bits, expcnt 3, lgkmcnt 4.
var fieldMax = [NumCounters]int{63, 7, 15}

// Max is the counter's largest encodable threshold; a field at its maximum
// is what an s_waitcnt that does not name the counter carries.
func (c Counter) Max() int { return fieldMax[c] }

// Waitcnt is one s_waitcnt: a threshold per counter. The instruction returns
// when every counter's count of outstanding operations is at or below its
// threshold. Thresholds outside a field's range are representable here (a
// lowering may compute them) but have no encoding.
type Waitcnt [NumCounters]int

// NoWait is the s_waitcnt with every field at its maximum: it names no counter.
var NoWait = Waitcnt{63, 7, 15}

// InRange reports whether every threshold fits its field.
func (w Waitcnt) InRange() bool {
	for c, n := range w {
		if n < 0 || n > fieldMax[c] {
			return false
		}
	}
	return true
}

// ErrFieldWidth is returned for a threshold that does not fit its field.
var ErrFieldWidth = errors.New("threshold does not fit its s_waitcnt field")

// Encode packs w into the gfx9 SIMM16 operand: vmcnt bits 3:0 (low) and
// 15:14 (high), expcnt bits 6:4, lgkmcnt bits 11:8; bits 7, 12 and 13 are
// unused and zero.
func (w Waitcnt) Encode() (uint16, error) {
	for c, n := range w {
		if n < 0 || n > fieldMax[c] {
			return 0, fmt.Errorf("%s(%d): %w (0..%d)", Counter(c), n, ErrFieldWidth, fieldMax[c])
		}
	}
	vm, exp, lgkm := uint16(w[VM]), uint16(w[Exp]), uint16(w[LGKM])
	return vm&0xf | exp<<4 | lgkm<<8 | (vm>>4)<<14, nil
}

// DecodeSIMM16 reads the thresholds of a gfx9 SIMM16 operand; the unused
// bits are ignored, as the hardware and llvm-mc's disassembler ignore them.
func DecodeSIMM16(s uint16) Waitcnt {
	return Waitcnt{int(s&0xf | (s>>14&3)<<4), int(s >> 4 & 7), int(s >> 8 & 0xf)}
}

// Instruction is the 32-bit SOPP word of s_waitcnt with operand s, as
// llvm-mc encodes it (opcode 0x0c).
func Instruction(s uint16) uint32 { return 0xbf8c0000 | uint32(s) }

// String spells w as llvm-mc 19 prints it: "s_waitcnt" and every field not at
// its maximum, in the order vmcnt, expcnt, lgkmcnt; when every field is at
// its maximum, all three. Out-of-range thresholds are spelled as given.
func (w Waitcnt) String() string {
	var b strings.Builder
	b.WriteString("s_waitcnt")
	all := w == NoWait
	for c, n := range w {
		if all || n != fieldMax[c] {
			fmt.Fprintf(&b, " %s(%d)", Counter(c), n)
		}
	}
	return b.String()
}

// Spellings lists the forms llvm-mc documents for the same s_waitcnt, each
// of which must assemble to w's encoding: the canonical text, "&" and ","
// separators, every field named, reversed order, _sat helpers, the operand
// as a decimal and a hexadecimal integer, the field expression, and
// "s_waitcnt 0" when w waits for everything. w must be in range.
func (w Waitcnt) Spellings() []string {
	enc, err := w.Encode()
	if err != nil {
		return nil
	}
	var named, all, sat []string
	for c, n := range w {
		f := fmt.Sprintf("%s(%d)", Counter(c), n)
		all = append(all, f)
		sat = append(sat, fmt.Sprintf("%s_sat(%d)", Counter(c), n))
		if n != fieldMax[c] {
			named = append(named, f)
		}
	}
	if len(named) == 0 {
		named = all
	}
	rev := make([]string, len(named))
	for i, f := range named {
		rev[len(named)-1-i] = f
	}
	expr := fmt.Sprintf("%d | (%d << 4) | (%d << 8) | (%d << 14)", w[VM]&0xf, w[Exp], w[LGKM], w[VM]>>4)
	out := []string{
		w.String(),
		"s_waitcnt " + strings.Join(named, " & "),
		"s_waitcnt " + strings.Join(named, ", "),
		"s_waitcnt " + strings.Join(all, " "),
		"s_waitcnt " + strings.Join(rev, " "),
		"s_waitcnt " + strings.Join(sat, " & "),
		"s_waitcnt " + strconv.Itoa(int(enc)),
		fmt.Sprintf("s_waitcnt 0x%x", enc),
		"s_waitcnt " + expr,
	}
	if enc == 0 {
		out = append(out, "s_waitcnt 0")
	}
	return out
}

// Parse reads an s_waitcnt in the forms llvm-mc accepts: counters named
// vmcnt(N), expcnt(N), lgkmcnt(N) or their _sat forms, in any order,
// separated by spaces, "&" or ","; or one integer operand, decimal or 0x
// hexadecimal, possibly an expression of "|", "<<" and parentheses.
// Counters not named are at their maximum. Unlike llvm-mc, which lets a later
// field override an earlier one and truncates integers above 0xffff, Parse
// refuses both: it reads what the lowering under test writes, strictly.
func Parse(s string) (Waitcnt, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "s_waitcnt")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return Waitcnt{}, fmt.Errorf("not an s_waitcnt: %q", s)
	}
	rest = strings.TrimSpace(rest)
	if n, ok := parseExpr(rest); ok {
		if n < 0 || n > 0xffff {
			return Waitcnt{}, fmt.Errorf("s_waitcnt %q: operand %d outside 0..0xffff", s, n)
		}
		return DecodeSIMM16(uint16(n)), nil
	}
	w, seen := NoWait, [NumCounters]bool{}
	fields := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == '&' || r == ',' })
	if len(fields) == 0 {
		return Waitcnt{}, fmt.Errorf("s_waitcnt %q: no operand", s)
	}
	for _, f := range fields {
		c, n, err := parseField(f)
		if err != nil {
			return Waitcnt{}, fmt.Errorf("s_waitcnt %q: %w", s, err)
		}
		if seen[c] {
			return Waitcnt{}, fmt.Errorf("s_waitcnt %q: %s named twice", s, c)
		}
		seen[c], w[c] = true, n
	}
	return w, nil
}

// parseField reads "vmcnt(3)" or "lgkmcnt_sat(20)".
func parseField(f string) (Counter, int, error) {
	name, arg, ok := strings.Cut(f, "(")
	num, closed := strings.CutSuffix(arg, ")")
	if !ok || !closed {
		return 0, 0, fmt.Errorf("bad field %q", f)
	}
	base, sat := strings.CutSuffix(name, "_sat")
	n, err := strconv.ParseInt(num, 0, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("bad count in %q", f)
	}
	for c := range Counter(NumCounters) {
		if base != c.String() {
			continue
		}
		if sat && n > int64(c.Max()) {
			n = int64(c.Max())
		}
		if n < 0 || n > int64(c.Max()) {
			return 0, 0, fmt.Errorf("%s(%d): %w (0..%d)", c, n, ErrFieldWidth, c.Max())
		}
		return c, int(n), nil
	}
	return 0, 0, fmt.Errorf("invalid counter name %q", name)
}

// Format spells lowered waits as a verdict value: each s_waitcnt's text and
// its SIMM16 operand, "s_waitcnt vmcnt(3) lgkmcnt(0);0x0073", joined by " | "
// in program order; an s_waitcnt with no encoding carries "invalid". Any
// oracle computing the same waits must spell them so for values to compare.
func Format(waits []Waitcnt) string {
	parts := make([]string, len(waits))
	for i, w := range waits {
		enc, err := w.Encode()
		if err != nil {
			parts[i] = w.String() + ";invalid"
			continue
		}
		parts[i] = fmt.Sprintf("%s;0x%04x", w, enc)
	}
	return strings.Join(parts, " | ")
}

// parseExpr evaluates an integer operand: numbers combined with "|", "<<"
// and parentheses, the forms llvm-mc's documentation writes the operand in.
// It reports false for anything else, such as a counter name.
func parseExpr(s string) (int64, bool) {
	e := exprParser{s: strings.ReplaceAll(s, " ", "")}
	n, ok := e.or()
	return n, ok && e.s == ""
}

type exprParser struct{ s string }

func (e *exprParser) or() (int64, bool) {
	n, ok := e.shift()
	for ok && strings.HasPrefix(e.s, "|") {
		e.s = e.s[1:]
		var m int64
		m, ok = e.shift()
		n |= m
	}
	return n, ok
}

func (e *exprParser) shift() (int64, bool) {
	n, ok := e.atom()
	for ok && strings.HasPrefix(e.s, "<<") {
		e.s = e.s[2:]
		var m int64
		if m, ok = e.atom(); m < 0 || m > 32 {
			return 0, false
		}
		n <<= m
	}
	return n, ok
}

func (e *exprParser) atom() (int64, bool) {
	if strings.HasPrefix(e.s, "(") {
		e.s = e.s[1:]
		n, ok := e.or()
		if !ok || !strings.HasPrefix(e.s, ")") {
			return 0, false
		}
		e.s = e.s[1:]
		return n, true
	}
	end := strings.IndexFunc(e.s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == 'x' || r == 'X')
	})
	if end < 0 {
		end = len(e.s)
	}
	n, err := strconv.ParseInt(e.s[:end], 0, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	e.s = e.s[end:]
	return n, true
}

// CheckEncoding checks w's encoder exactly: an s_waitcnt that fits its
// fields encodes, decodes back to itself and parses back from every
// spelling llvm-mc documents.
func (w Waitcnt) CheckEncoding() error {
	enc, err := w.Encode()
	if err != nil {
		if w.InRange() {
			return fmt.Errorf("in-range %v does not encode: %w", w, err)
		}
		return nil
	}
	if back := DecodeSIMM16(enc); back != w {
		return fmt.Errorf("%v encodes to 0x%04x, which decodes to %v", w, enc, back)
	}
	for _, s := range w.Spellings() {
		if back, err := Parse(s); err != nil || back != w {
			return fmt.Errorf("%v spelled %q parses to %v, %v", w, s, back, err)
		}
	}
	return nil
}
