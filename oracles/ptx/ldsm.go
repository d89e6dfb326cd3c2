package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

func init() { register(ldsm.Name, renderLDSM) }

// ldsmTypes spells each size pattern: PTX's own (.b16, .b8, the packed
// .b8x16 formats) and the seed's (u16, u4to8, ...) by their seed names, which
// PTX does not have, so ptxas can say so.
var ldsmTypes = map[ldsm.Size]string{
	ldsm.U16: "u16", ldsm.B16: "b16", ldsm.U8: "u8", ldsm.B8: "b8",
	ldsm.U4to8: "u4to8", ldsm.S4to8: "s4to8", ldsm.U2to4: "u2to4", ldsm.S2to4: "s2to4",
	ldsm.B6P32: "b8x16.b6x16_p32", ldsm.B4P64: "b8x16.b4x16_p64",
}

// renderLDSM spells one ldmatrix or stmatrix:
// ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type {regs}, [addr] (stmatrix
// swaps the operands). The memory side's space is the .ss qualifier; a side
// that the value puts in the wrong space is spelled as that space says (an
// address for memory, a vector for registers). The register vector has the
// value's register count. Alignment, result shape and cosize are not part
// of the PTX text.
func renderLDSM(v ldsm.Value, k *kernel) error {
	typ, ok := ldsmTypes[v.Size]
	if !ok {
		return noSpelling("size", "reserved", "for reserved ldmatrix/stmatrix size %d", v.Size)
	}
	mem, regSide := v.Src, v.Dst
	if v.Op == ldsm.Store {
		mem, regSide = v.Dst, v.Src
	}
	var trans, ss string
	if v.Transpose {
		trans = "trans"
	}
	if mem != ldsm.Register {
		ss = mem.String()
	}
	name := mods(v.Op.String(), "sync", "aligned", v.Shape.String(), fmt.Sprintf("x%d", v.NumMatrices), trans, ss, typ)
	memOp := ldsmOperand(k, mem, int(v.RegisterCount), int(v.Align))
	regOp := ldsmOperand(k, regSide, int(v.RegisterCount), int(v.Align))
	if v.Op == ldsm.Store {
		k.emit("%s %s, %s;", name, memOp, regOp)
		return nil
	}
	k.emit("%s %s, %s;", name, regOp, memOp)
	return nil
}

// ldsmOperand spells one side of the movement in space s: a vector of n
// 32-bit registers, a shared buffer aligned as the value says, or a 64-bit
// global or local address.
func ldsmOperand(k *kernel, s ldsm.Space, n, align int) string {
	switch s {
	case ldsm.Register:
		return vec(zeros(k, b32, n)) // the value's count, empty vector included
	case ldsm.Shared:
		return "[" + k.sharedBuf("tile", max(align, 1), 512) + "]"
	}
	return "[" + k.zero(b64) + "]"
}
