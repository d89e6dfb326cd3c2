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
}

// valueFuncs says, per domain, how to check the values in a case's PTX;
// domains without one are not checked.
var valueFuncs = map[string]func(domain.Value, []emitted.Inst) *mismatch{}

// checkValues reports the first mismatch in the entry's PTX.
func checkValues(c domain.Case, entry string) error {
	f, ok := valueFuncs[c.Domain]
	if !ok || entry == "" {
		return nil
	}
	m := f(c.Value, emitted.Eval(entry))
	if m == nil {
		return nil
	}
	msg := fmt.Sprintf("ptx: %s\nemitted: %s", m.what, m.inst.Canonical())
	if m.effect != "" {
		msg += "\neffect: " + m.effect
	}
	return &faultError{stage: oracles.Stage{Name: stagePTX, Fault: oracles.WrongValue}, msg: msg}
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
