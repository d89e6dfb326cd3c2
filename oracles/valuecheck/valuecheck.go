// Package valuecheck says whether the code a compiler emitted for a case
// computes what the case's op means: the instructions are there (the
// mlir oracle counts them), but do their types, qualifiers, immediates,
// descriptors, addresses and operands match the op? Each check reads the
// entry's instructions with the values their operands hold (package
// emitted) and names the first one that differs: a silent miscompile,
// "ptx/value". The mlir oracle runs the checks on what MLIR lowered a case
// to, the llc oracle on what llc compiled an intrinsic call to: one
// meaning of each op for both.
package valuecheck

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// Kernel is what a case compiled to, as the checks read it.
type Kernel struct {
	// Params are the kernel's parameters by role name ("tmap", "x0",
	// "mbar"): their place among the PTX entry's parameters. Nil where the
	// places are unknown.
	Params map[string]int
	// Insts are the entry's instructions (emitted.Eval).
	Insts []emitted.Inst
	// Host is the host code the case lowered to (LLVM dialect), where
	// nvgpu.tma.create.descriptor's runtime call is; empty without.
	Host string
}

// Mismatch is emitted code that computes something other than the op
// asked for.
type Mismatch struct {
	// Inst is the instruction that differs.
	Inst emitted.Inst
	// Call, when set, is the host code's call that differs, in place of
	// Inst.
	Call *emitted.Call
	// What is wrong, in the instruction's terms: "A descriptor +2048
	// bytes from step 1's, want +8192 (...)".
	What string
	// Effect says what the kernel then computes, where that is not plain
	// from What: "reads A from M row 4 on; its part starts at M row 64".
	Effect string
}

// Emitted is the code that differs as a diagnostic quotes it: the
// instruction in emitted.Inst.Canonical's form, or the call in
// emitted.Call.String's.
func (m *Mismatch) Emitted() string {
	if m.Call != nil {
		return m.Call.String()
	}
	return m.Inst.Canonical()
}

// Diagnostic is the mismatch as a verdict's diagnostic: the first line
// (the bucket title) says what differs, then "emitted: " the code and
// "Effect: " what it computes.
func (m *Mismatch) Diagnostic() string {
	msg := fmt.Sprintf("ptx: %s\nemitted: %s", m.What, m.Emitted())
	if m.Effect != "" {
		msg += "\neffect: " + m.Effect
	}
	return msg
}

// check checks the values in what a case compiled to.
type check func(domain.Value, Kernel) *Mismatch

// checks says, per domain, how to check a case; domains without one are
// not checked.
var checks = map[string]check{}

// Checks reports whether cases of the domain are checked: a caller cuts
// the entries out of a module's PTX only for them.
func Checks(domainName string) bool {
	_, ok := checks[domainName]
	return ok
}

// Check reports the first mismatch in what the case compiled to, or nil.
func Check(c domain.Case, k Kernel) *Mismatch {
	f, ok := checks[c.Domain]
	if !ok {
		return nil
	}
	return f(c.Value, k)
}

// typed makes a check of a function of one domain's values and the
// instructions.
func typed[V domain.Value](f func(V, []emitted.Inst) *Mismatch) check {
	return typedKernel(func(v V, k Kernel) *Mismatch { return f(v, k.Insts) })
}

// typedKernel makes a check of a function of one domain's values and the
// whole kernel.
func typedKernel[V domain.Value](f func(V, Kernel) *Mismatch) check {
	return func(dv domain.Value, k Kernel) *Mismatch {
		v, ok := dv.(V)
		if !ok {
			return nil
		}
		return f(v, k)
	}
}

// EmittedLine is the emitted code a ptx/value diagnostic names, or "".
func EmittedLine(diagnostic string) string {
	for _, l := range strings.Split(diagnostic, "\n") {
		if s, ok := strings.CutPrefix(l, "emitted: "); ok {
			return s
		}
	}
	return ""
}

// Input says how a reproducer finds the line a ptx/value diagnostic
// names with values.awk (emitted.Awk): the awk variable assignment, and
// whether it reads the lowered module (for a call in the host code, whose
// line is "callee(args)") rather than the PTX.
func Input(line string) (assign string, lowered bool) {
	head, _, _ := strings.Cut(line, " ")
	if name, _, ok := strings.Cut(head, "("); ok {
		return "callee=" + name, true
	}
	return "op=" + head, false
}

// value is what the emitted code holds where it uses the parameter of
// that role; unknown for a role the kernel does not have.
func value(params map[string]int, role string) emitted.Value {
	i, ok := params[role]
	if !ok {
		return emitted.Value{}
	}
	return emitted.Value{Known: true, Param: i}
}

// spell names a value as the parameter it is ("x1", "x1+4"), or as a
// constant; a parameter of no role keeps its place ("param7").
func spell(params map[string]int, v emitted.Value) string {
	if v.Known && v.Param >= 0 {
		for name, i := range params {
			if i == v.Param {
				return strings.Replace(v.String(), fmt.Sprintf("param%d", i), name, 1)
			}
		}
	}
	return v.String()
}

// OpcodeTail is what follows prefix in an opcode, split at the dots:
// OpcodeTail("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
// "mma.sync.aligned.m16n8k16") is [row col f32 f16 f16 f32].
func OpcodeTail(opcode, prefix string) []string {
	rest, ok := strings.CutPrefix(opcode, prefix+".")
	if !ok {
		return nil
	}
	return strings.Split(rest, ".")
}
