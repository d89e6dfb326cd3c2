package valuecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() {
	checks[mma.Name] = typed(checkMMAValues)
}

// checkMMAValues checks the mma.sync (or mma.sp) instruction's layouts,
// .satfinite and types against the op's: D, A, B and C as the op's
// fragments type them, signedness included; f32 operands with tf32Enabled
// are .tf32; a single-bit mma's .xor.popc or .and.popc.
func checkMMAValues(v mma.Value, ins []emitted.Inst) *Mismatch {
	a, b := v.AType.String(), v.BType.String()
	if v.TF32 && v.AType == mma.F32 {
		a, b = "tf32", "tf32"
	}
	want := []string{v.ALayout.String(), v.BLayout.String()}
	if v.Satfinite {
		want = append(want, "satfinite")
	}
	want = append(want, v.DType.String(), a, b, v.CType.String())
	if v.BitOp != mma.NoBitOp {
		// Single-bit mma names its operation after the types: .xor.popc.
		want = append(want, v.BitOp.String(), "popc")
	}
	shape := fmt.Sprintf("m%dn%dk%d", v.M(), v.N(), v.K())
	for _, in := range ins {
		if !in.Is("mma") && !in.Is("mma.sp") && !in.Is("mma.sp::ordered_metadata") {
			continue
		}
		head, _, ok := strings.Cut(in.Opcode, "."+shape+".")
		if !ok {
			continue
		}
		got := OpcodeTail(in.Opcode, head+"."+shape)
		if v.BitOp != mma.NoBitOp && slices.Equal(got, want[:len(want)-2]) {
			// One root cause whatever the types: the op's single-bit
			// operation is gone (its verifier takes it on any type).
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s without the single-bit operation the op names", in.Opcode[:len(head)+len(shape)+1]),
				Effect: fmt.Sprintf("the op names .%s.popc; the instruction is .%s", v.BitOp, strings.Join(got, "."))}
		}
		if v.CType != v.DType && oneAccumulatorType(got, want, v) {
			// One root cause whatever the types: the lowering types C and
			// D alike where the op's differ.
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s with one accumulator type where the op's C and D differ", in.Opcode[:len(head)+len(shape)+1]),
				Effect: fmt.Sprintf("the op's D is .%s and C .%s; the instruction is .%s: the result's bits are read as another type", v.DType, v.CType, strings.Join(got, "."))}
		}
		if !slices.Equal(got, want) {
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s .%s where the op means .%s", in.Opcode[:len(head)+len(shape)+1],
				strings.Join(got, "."), strings.Join(want, "."))}
		}
	}
	return nil
}

// oneAccumulatorType reports whether got is want with the D type where the
// C type is or the other way round: C and D typed alike.
func oneAccumulatorType(got, want []string, v mma.Value) bool {
	d := slices.Index(want, v.DType.String())
	c := len(want) - 1
	if v.BitOp != mma.NoBitOp {
		c -= 2
	}
	if d < 0 || want[c] != v.CType.String() {
		return false
	}
	asC, asD := slices.Clone(want), slices.Clone(want)
	asC[d], asD[c] = want[c], want[d]
	return slices.Equal(got, asC) || slices.Equal(got, asD)
}
