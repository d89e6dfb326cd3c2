package llvm

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

// ldsmTypes are LLVM's (and PTX's) spellings of the size patterns; the
// seed's u16, u8, u4to8, s4to8, u2to4 and s2to4 have none.
var ldsmTypes = map[ldsm.Size]string{
	ldsm.B16: "b16", ldsm.B8: "b8", ldsm.B6P32: "b8x16.b6x16_p32", ldsm.B4P64: "b8x16.b4x16_p64",
}

// renderLDSM renders ldmatrix / stmatrix as llvm.nvvm.{ldmatrix,stmatrix}
// .sync.aligned.<shape>.x<num>[.trans].<type>: a shared pointer and 32-bit
// registers, as many per lane as the shape and count give. A combination
// LLVM lacks (ldmatrix .m16n16 without .trans, say) is still written; llc
// then compiles it as an external call and the case comes back
// unsupported. The seed's fragment shape, alignment and register count are
// its verifiers' inputs, not part of the instruction.
func renderLDSM(l ldsm.Value, k *kernel) error {
	typ, ok := ldsmTypes[l.Size]
	shared, regs := l.Src, l.Dst
	if l.Op == ldsm.Store {
		shared, regs = l.Dst, l.Src
	}
	switch {
	case !ok:
		return noSpelling("size", "no-intrinsic", "no LLVM spelling for %s type .%s", l.Op, l.Size)
	case l.Shape == ldsm.M8N32:
		return noSpelling("shape", "m8n32", "no LLVM spelling for shape .m8n32")
	case l.NumMatrices != 1 && l.NumMatrices != 2 && l.NumMatrices != 4:
		return noSpelling("num_matrices", "not-1-2-4", "no LLVM spelling for .x%d", l.NumMatrices)
	case shared != ldsm.Shared || regs != ldsm.Register:
		return noSpelling("space", "not-shared-register", "no LLVM spelling for %s between %s and %s (the intrinsics move shared memory to registers)", l.Op, l.Src, l.Dst)
	}
	name := fmt.Sprintf("llvm.nvvm.%s.sync.aligned.%s.x%d", l.Op, l.Shape, l.NumMatrices)
	if l.Transpose {
		name += ".trans"
	}
	name += "." + typ
	n := ldsm.RegistersPerLane(l.Shape, int(l.NumMatrices))
	ptr := k.param("ptr addrspace(3)", "smem")
	if l.Op == ldsm.Load {
		k.sink(k.call(i32s(n), name, ptr))
		return nil
	}
	ops := []operand{ptr}
	for i := range n {
		ops = append(ops, k.param("i32", fmt.Sprintf("r%d", i)))
	}
	k.call("void", name, ops...)
	return nil
}

// i32s is the IR type of n 32-bit registers: i32, or a literal struct.
func i32s(n int) string {
	if n == 1 {
		return "i32"
	}
	return "{" + strings.Repeat("i32, ", n-1) + "i32}"
}
