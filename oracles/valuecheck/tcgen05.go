package valuecheck

import (
	"strings"

	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() { checks[kw.Name] = typedKernel(checkTCGen05Values) }

// tcgen05.mma's kernels name their parameters by role, as both oracles'
// renderers do: D's tensor-memory address "d", A's shared-memory
// descriptor "adesc" or tensor-memory address "atmem", B's descriptor
// "bdesc", the instruction descriptor "idesc", the enable-input-d
// predicate "enable_d", the sparsity metadata "spmeta", the scale
// factors "scale_a" and "scale_b". The qualifiers (kind, cta_group,
// collector, .ashift, .block_scale) are counted by the mlir oracle's
// patterns; this check is about the operands.

// The effects of a wrong tcgen05.mma operand.
const (
	tcEffectD      = "the product accumulates into another tensor-memory matrix than the op's D"
	tcEffectA      = "the instruction multiplies another A than the op's"
	tcEffectB      = "the instruction multiplies another B than the op's"
	tcEffectIDesc  = "the instruction reads its shape, types, transposes and negations from another instruction descriptor than the op's"
	tcEffectEnable = "D is overwritten where the op accumulates into it, or the reverse"
	tcEffectMeta   = "the sparse A is expanded with other metadata than the op's: its values land at other K positions"
	tcEffectScale  = "A or B is scaled by other scale factors than the op's"
	tcEffectScaleD = "D is scaled by another power of two before it accumulates"
)

// checkTCGen05Values checks the operands of the tcgen05.mma a case
// compiled to, in the PTX ISA's order: [d], A, B, the sparsity metadata
// (.sp), idesc, the scale factors (.block_scale), enable-input-d, and
// scale-input-d as an immediate when the op has one.
func checkTCGen05Values(v kw.Value, k Kernel) *Mismatch {
	if k.Params == nil {
		return nil
	}
	for _, in := range k.Insts {
		if !in.Is("tcgen05.mma") {
			continue
		}
		p := k.Params
		a := value(p, "adesc")
		if v.ATMem {
			a = value(p, "atmem")
		}
		want := []operand{{what: "D address", v: value(p, "d"), effect: tcEffectD}, {what: "A", v: a, effect: tcEffectA},
			{what: "B descriptor", v: value(p, "bdesc"), effect: tcEffectB}}
		if v.Sparse {
			want = append(want, operand{what: "sparsity metadata", v: value(p, "spmeta"), effect: tcEffectMeta})
		}
		want = append(want, operand{what: "idesc", v: value(p, "idesc"), effect: tcEffectIDesc})
		if v.BlockScale {
			want = append(want, operand{what: "A scale", v: value(p, "scale_a"), effect: tcEffectScale},
				operand{what: "B scale", v: value(p, "scale_b"), effect: tcEffectScale})
		}
		want = append(want, operand{what: "enable-input-d", v: value(p, "enable_d"), effect: tcEffectEnable})
		if v.ScaleInputAcc {
			want = append(want, operand{what: "scale-input-d", v: emitted.Const(int64(v.ScaleInputD)), effect: tcEffectScaleD})
		}
		op, _, _ := strings.Cut(in.Opcode, ".cta_group")
		return compareOperands(in, op, p, want)
	}
	return nil
}
