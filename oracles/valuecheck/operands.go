package valuecheck

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// operand is an operand an instruction must have, in order: a value, and
// for a braced vector or a tensor operand's coordinates the elements'
// values. An unknown value is not compared (the mbarrier nvgpu creates is
// a shared symbol the evaluator does not know).
type operand struct {
	// what names it in the instruction's terms: "tensor map", "idesc".
	what   string
	v      emitted.Value
	effect string
	// elems, when set, are compared element by element, each an elem
	// ("coordinate 1"), with elemEffect when one differs.
	elems            []emitted.Value
	elem, elemEffect string
}

// compareOperands names the first operand of in that differs from want,
// in the op's terms (the parameter's role "x1", not its place in the PTX);
// op names the instruction in the title.
func compareOperands(in emitted.Inst, op string, p map[string]int, want []operand) *Mismatch {
	for i, w := range want {
		if i >= len(in.Args) {
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s has no %s, want %s", op, w.what, spell(p, w.v)), Effect: w.effect}
		}
		if differs(in.Values[i], w.v) {
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s %s %s, want %s", op, w.what, spell(p, in.Values[i]), spell(p, w.v)), Effect: w.effect}
		}
		if w.elems == nil {
			continue
		}
		got := in.Coords(i)
		if len(got) != len(w.elems) {
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s %d %ss, want %d", op, len(got), w.elem, len(w.elems)), Effect: w.elemEffect}
		}
		for j := range got {
			if differs(got[j], w.elems[j]) {
				return &Mismatch{Inst: in, What: fmt.Sprintf("%s %s %d %s, want %s", op, w.elem, j, spell(p, got[j]), spell(p, w.elems[j])),
					Effect: w.elemEffect}
			}
		}
	}
	return nil
}

// differs reports two known values that are not the same.
func differs(got, want emitted.Value) bool {
	return got.Known && want.Known && got != want
}
