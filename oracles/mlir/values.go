package mlir

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// The value checks: the instructions a lowering emitted are there (see
// checkEmitted's counts), but do they compute what the op asked for? Each
// check reads the entry's instructions with the values their operands
// hold (package emitted) and names the first one that differs from the
// op: a wrong type, qualifier, immediate or descriptor is a silent
// miscompile, "ptx/value".

// mismatch is an emitted instruction that computes something other than
// the op asked for.
type mismatch struct {
	inst emitted.Inst
	// what is wrong, in the instruction's terms: "A descriptor +2048
	// bytes from step 1's, want +8192 (...)".
	what string
	// effect says what the kernel then computes, where that is not plain
	// from what: "reads A from M row 4 on; its part starts at M row 64".
	effect string
	// call, when set, is the host code's call that differs, in place of
	// inst.
	call *emitted.Call
}

// emitted is the code that differs, as the diagnostic quotes it.
func (m *mismatch) emitted() string {
	if m.call != nil {
		return m.call.String()
	}
	return m.inst.Canonical()
}

// lowered is what a case lowered to, as the value checks read it.
type lowered struct {
	// ops are the kernel's parameters; ins the entry's instructions.
	ops operands
	ins []emitted.Inst
	// host is the host part of the lowered module (LLVM dialect), where
	// nvgpu.tma.create.descriptor's runtime call is.
	host string
}

// valueFunc checks the values in what a case lowered to.
type valueFunc func(domain.Value, lowered) *mismatch

// valueFuncs says, per domain, how to check the values in a case's PTX;
// domains without one are not checked.
var valueFuncs = map[string]valueFunc{}

// checkValues reports the first mismatch in the entry's PTX or the host
// code; params are the kernel's parameters as rendered (kernel.Params).
func checkValues(c domain.Case, params, host, entry string) error {
	f, ok := valueFuncs[c.Domain]
	if !ok || entry == "" {
		return nil
	}
	m := f(c.Value, lowered{ops: operandsOf(params), ins: emitted.Eval(entry), host: host})
	if m == nil {
		return nil
	}
	msg := fmt.Sprintf("ptx: %s\nemitted: %s", m.what, m.emitted())
	if m.effect != "" {
		msg += "\neffect: " + m.effect
	}
	return &faultError{stage: oracles.Stage{Name: stagePTX, Fault: oracles.WrongValue}, msg: msg}
}

// operands are a kernel's parameters by name ("%mbar") with their place
// among its PTX entry's parameters: what the emitted operands are compared
// with. Nil where a memref parameter, which the lowering expands into
// several, leaves the places unknown.
type operands map[string]int

// operandsOf reads a gpu.func's parameter list, "%t: !llvm.ptr, %c0: i32".
func operandsOf(params string) operands {
	ops := operands{}
	for i, p := range strings.Split(params, ", %") {
		name, typ, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(p), "%"), ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(typ), "memref") {
			return nil
		}
		ops["%"+name] = i
	}
	return ops
}

// value is what the emitted code holds where it uses the parameter
// name; unknown for a name the kernel does not have.
func (o operands) value(name string) emitted.Value {
	i, ok := o[name]
	if !ok {
		return emitted.Value{}
	}
	return emitted.Value{Known: true, Param: i}
}

// spell names a value as the op's operand it is ("%c1", "%c1+4"), or as a
// constant; a parameter that is no named one keeps its place ("param7").
func (o operands) spell(v emitted.Value) string {
	if v.Known && v.Param >= 0 {
		for name, i := range o {
			if i == v.Param {
				return strings.Replace(v.String(), fmt.Sprintf("param%d", i), name, 1)
			}
		}
	}
	return v.String()
}

// EmittedLine is the emitted instruction a ptx/value diagnostic names, in
// emitted.Inst.Canonical's form, or "".
func EmittedLine(diagnostic string) string {
	for _, l := range strings.Split(diagnostic, "\n") {
		if s, ok := strings.CutPrefix(l, "emitted: "); ok {
			return s
		}
	}
	return ""
}

// ValuesInput says how a reproducer finds the line a ptx/value diagnostic
// names with values.awk (emitted.Awk): the awk variable assignment, and
// whether it reads the lowered module (for a call in the host code, whose
// line is "callee(args)") rather than llc's PTX.
func ValuesInput(line string) (assign string, lowered bool) {
	head, _, _ := strings.Cut(line, " ")
	if name, _, ok := strings.Cut(head, "("); ok {
		return "callee=" + name, true
	}
	return "op=" + head, false
}

// opcodeTail is what follows prefix in an opcode, split at the dots:
// opcodeTail("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
// "mma.sync.aligned.m16n8k16") is [row col f32 f16 f16 f32].
func opcodeTail(opcode, prefix string) []string {
	rest, ok := strings.CutPrefix(opcode, prefix+".")
	if !ok {
		return nil
	}
	return strings.Split(rest, ".")
}
