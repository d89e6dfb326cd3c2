// Package waitcntasm is the waitcntasm domain: one AMDGPU wait instruction
// (s_waitcnt, s_waitcnt_vscnt, gfx12's s_wait_*) written in one of the
// syntaxes LLVM's AMDGPU assembler documents for it, for one gfx9 through
// gfx12 processor. Where the waitcnt domain judges the thresholds a lowering
// chooses, this one judges the assembler: the encoding of the text, the
// disassembly of the encoding and its re-assembly, against this package's
// own encoder of each generation's bit layout (Expect).
package waitcntasm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "waitcntasm"

// Syntax is how the operand is written.
type Syntax uint8

const (
	Named    Syntax = iota // vmcnt(1) expcnt(2): the counters named, space separated
	Amp                    // vmcnt(1) & expcnt(2)
	Comma                  // vmcnt(1), expcnt(2)
	Sat                    // vmcnt_sat(1) & expcnt_sat(2): min(N, the field's maximum)
	Reversed               // lgkmcnt(3) vmcnt(1): "in any order"
	Dec                    // one decimal integer
	Hex                    // one hexadecimal integer
	Expr                   // an absolute expression: (1 << 10) | ((70 & 15) << 0) | ...
	numSyntaxes
)

// Syntaxes spells the syntaxes.
var Syntaxes = domain.Enum{"named", "amp", "comma", "sat", "reversed", "dec", "hex", "expr"}

func (s Syntax) String() string { return Syntaxes.Name(int(s)) }

// Enum names the values of Syntax: package desc and mutation read its size.
func (Syntax) Enum() domain.Enum { return Syntaxes }

// Helpers reports whether the syntax names counters.
func (s Syntax) Helpers() bool { return s <= Reversed }

// MaxFields is the most counters one instruction holds.
const MaxFields = 3

// Value is one instruction. For the counter-helper syntaxes Named has bit i
// set when field i is written, and unwritten fields' Counts are zero; the
// integer syntaxes write every field (Named is zero). A count may be
// outside its field: the text then asks for what the field cannot hold.
type Value struct {
	CPU    CPU
	Op     Op
	Syntax Syntax
	Named  uint8
	Counts [MaxFields]uint16
}

// placeholder is the NVIDIA target every value reports: the harness records
// a target per case, but the AMD processor is the CPU field.
var placeholder = target.Target{Arch: target.Arch{SM: 90}, PTX: 78}

// Target implements domain.Value with a fixed placeholder (the AMD
// processor is the CPU field).
func (v Value) Target() target.Target { return placeholder }

// Layout is the encoding the value's text is written for: the
// instruction's layout on the target's generation, or, where the target
// does not have the instruction, on the first generation that does.
func (v Value) Layout() (Layout, bool) {
	if l, ok := LayoutOf(v.Op, v.CPU.Gen()); ok {
		return l, true
	}
	for g := GFX9; g <= GFX1250; g++ {
		if l, ok := LayoutOf(v.Op, g); ok {
			return l, false
		}
	}
	panic("waitcntasm: instruction " + v.Op.String() + " has no layout") // every Op has one
}

// normalize makes v canonical: indices in range, a syntax the instruction
// has, unused and unwritten counts zero, Named within the fields and not
// empty for the helper syntaxes.
func (v Value) normalize() Value {
	v.CPU %= CPU(len(targets))
	v.Op %= numOps
	v.Syntax %= numSyntaxes
	l, _ := v.Layout()
	n := len(l.Fields)
	if (v.Syntax.Helpers() && !l.Named) || (v.Syntax == Expr && n == 1) {
		v.Syntax = Dec
	}
	if !v.Syntax.Helpers() {
		v.Named = 0
	} else if v.Named &= 1<<n - 1; v.Named == 0 {
		v.Named = 1<<n - 1
	}
	for i := range v.Counts {
		if i >= n || (v.Syntax.Helpers() && v.Named&(1<<i) == 0) {
			v.Counts[i] = 0
		}
	}
	return v
}

// Encode implements domain.Value: target, op, syntax, named, then the
// three counts little-endian.
func (v Value) Encode() []byte {
	var w domain.Writer
	w.U8(uint8(v.CPU))
	w.U8(uint8(v.Op))
	w.U8(uint8(v.Syntax))
	w.U8(v.Named)
	for _, c := range v.Counts {
		w.U16(c)
	}
	return w.Bytes
}

// Decode maps fuzz bytes to an instruction; every input decodes.
func Decode(data []byte) (domain.Value, error) {
	r := domain.NewReader(data)
	v := Value{CPU: CPU(r.Index(len(targets))), Op: Op(r.Index(int(numOps))), Syntax: Syntax(r.Index(int(numSyntaxes))),
		Named: r.U8()}
	for i := range v.Counts {
		v.Counts[i] = r.U16()
	}
	return v.normalize(), nil
}

// operand is the integer the text's integer forms write: each field's
// count placed by Field.Put, too-wide counts spilling over.
func (v Value) operand(l Layout) uint64 {
	var n uint64
	for i, f := range l.Fields {
		n |= f.Put(uint64(v.Counts[i]))
	}
	return n
}

// Text is the instruction as the value writes it.
func (v Value) Text() string {
	l, _ := v.Layout()
	var b strings.Builder
	b.WriteString(v.Op.String() + " ")
	if l.Null {
		b.WriteString("null, ")
	}
	switch v.Syntax {
	case Dec:
		fmt.Fprintf(&b, "%d", v.operand(l))
	case Hex:
		fmt.Fprintf(&b, "0x%x", v.operand(l))
	case Expr:
		var parts []string
		for i, f := range l.Fields {
			n := v.Counts[i]
			if f.HiWidth == 0 {
				parts = append(parts, fmt.Sprintf("(%d << %d)", n, f.Lo))
				continue
			}
			parts = append(parts, fmt.Sprintf("((%d & %d) << %d) | ((%d >> %d) << %d)", n, f.loMask, f.Lo, n, f.Width, f.HiLo))
		}
		b.WriteString(strings.Join(parts, " | "))
	default:
		b.WriteString(v.helpers(l))
	}
	return b.String()
}

// helpers writes the named counters in the value's syntax.
func (v Value) helpers(l Layout) string {
	var parts []string
	for i, f := range l.Fields {
		if v.Named&(1<<i) == 0 {
			continue
		}
		name := f.Name
		if v.Syntax == Sat {
			name += "_sat"
		}
		parts = append(parts, fmt.Sprintf("%s(%d)", name, v.Counts[i]))
	}
	switch v.Syntax {
	case Amp, Sat:
		return strings.Join(parts, " & ")
	case Comma:
		return strings.Join(parts, ", ")
	case Reversed:
		slices.Reverse(parts)
	}
	return strings.Join(parts, " ")
}

// The reasons Expect refuses a text.
const (
	// NotOnTarget: the target's generation has no such instruction.
	NotOnTarget = "op-target"
	// FieldWidth: a counter named (or the one counter of a single-counter
	// instruction) holds a threshold wider than its field.
	FieldWidth = "field-width"
	// OperandRange: an integer operand outside 0..0xFFFF.
	OperandRange = "operand-range"
)

// Expect is legalfuzz's own encoder: the 32-bit word the text must
// assemble to on the target, or why the assembler must refuse it (one of
// the reasons above, with a detail).
func (v Value) Expect() (word uint32, reason, detail string) {
	l, ok := v.Layout()
	if !ok {
		return 0, NotOnTarget, fmt.Sprintf("%s has no %s", v.CPU, v.Op)
	}
	if v.Syntax.Helpers() {
		var operand uint64
		for i, f := range l.Fields {
			n := f.Max()
			if v.Named&(1<<i) != 0 {
				n = uint64(v.Counts[i])
			}
			if n > f.Max() && v.Syntax == Sat {
				n = f.Max()
			}
			if n > f.Max() {
				return 0, FieldWidth, fmt.Sprintf("%s(%d) on %s (0..%d)", f.Name, n, v.CPU.Gen(), f.Max())
			}
			operand |= f.Put(n)
		}
		return l.Base | uint32(operand), "", ""
	}
	operand := v.operand(l)
	if f := l.Fields[0]; len(l.Fields) == 1 && operand > f.Max() {
		return 0, FieldWidth, fmt.Sprintf("%s %d on %s (0..%d)", f.Name, operand, v.CPU.Gen(), f.Max())
	}
	if operand > 0xffff {
		return 0, OperandRange, fmt.Sprintf("0x%x", operand)
	}
	return l.Base | uint32(operand), "", ""
}

// String is the target and the text: "gfx942: s_waitcnt vmcnt(1)".
func (v Value) String() string { return v.CPU.String() + ": " + v.Text() }

// Domain describes waitcntasm for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "one AMDGPU wait instruction (s_waitcnt, s_waitcnt_vscnt, gfx12 s_wait_*) in one documented assembler syntax, for one gfx9-gfx12 processor",
	FuzzTarget: "FuzzWaitcntAsm",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}

// Processor names the AMD processor the value is assembled for
// (domain.AMDValue).
func (v Value) Processor() string { return v.CPU.String() }
