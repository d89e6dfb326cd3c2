package nvvmop

import (
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
)

// immediates are the operands an op's translation hands to an intrinsic
// argument LLVM declares immarg (IntrinsicsNVVM.td's ImmArg), by op and
// operand name, with the values a case gives them: MLIR takes them as
// SSA values, its verifier accepts any, and mlir-translate's LLVM
// verifier refuses every one that is not a constant ("immarg operand has
// non-immediate parameter"). A case that passed one as a function
// argument judged our rendering, not the op, so each is written as a
// constant (Constant). Found by translating 6,415 decoded cases of the
// snapshot with trunk's mlir-translate: these six ops are all its immarg
// refusals. The values are each op's own description's: fence.proxy.acquire's
// size "is 128 and must be an immediate" (Range<128, 129>), tcgen05.mma's
// scaleInputD "an Immediate value operand ... [0, 15]", tcgen05.ld's and
// .st's offset (16x32bx2's second access) "an immediate argument".
var immediates = map[string]map[string][]string{
	"nvvm.fence.proxy.acquire": {"size": {"128"}},
	"nvvm.tcgen05.mma":         {"scaleInputD": {"0", "15"}},
	"nvvm.tcgen05.mma.sp":      {"scaleInputD": {"0", "15"}},
	"nvvm.tcgen05.ld":          {"offset": {"0", "16"}},
	"nvvm.tcgen05.ld.red":      {"offset": {"0", "16"}},
	"nvvm.tcgen05.st":          {"offset": {"0", "16"}},
}

// Immediates are the values a case gives the op's operand when it must be
// a constant; nil for an operand any value may fill.
func Immediates(op, operand string) []string { return immediates[op][operand] }

// constantSep separates a constant operand's value from its type.
const constantSep = " : "

// Constant spells an operand that is a constant of the type ("128 : i32"),
// as MLIR writes a typed integer attribute; an operand spelled as a type
// alone is a value the op's function takes as an argument.
func Constant(value, typ string) string { return value + constantSep + typ }

// splitConstant is a constant operand's value and type; ok is false for
// an operand spelled as a type alone.
func splitConstant(operand string) (value, typ string, ok bool) {
	value, typ, ok = strings.Cut(operand, constantSep)
	return strings.TrimSpace(value), strings.TrimSpace(typ), ok
}

// operandType is the type of an operand, constant or not.
func operandType(operand string) string {
	if _, typ, ok := splitConstant(operand); ok {
		return typ
	}
	return operand
}

// spell is the operand's value of its typ-th type: that type, or for an
// immediate its value-th constant of that type.
func spell(op string, o opsurface.Value, typ, value int) string {
	if values := Immediates(op, o.Name); len(values) > 0 {
		return Constant(values[value%len(values)], o.Types[typ])
	}
	return o.Types[typ]
}
