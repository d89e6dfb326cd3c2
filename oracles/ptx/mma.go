package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/mma"
)

func init() { register(mma.Name, renderMMA) }

// renderMMA spells one warp-level mma:
// mma{.sp|.sp::ordered_metadata}.sync.aligned.mMnNkK.alayout.blayout
// {.satfinite}.dtype.atype.btype.ctype{.bitop.popc} d, a, b, c{, e, f}.
// Layouts are always written; an F32 input is .tf32 when the value enables
// tf32. Each fragment has the registers a lane holds for the types and
// shape (rows × cols × bits / (32 lanes × 32 bits), at least one; m8n8k4
// with 16-bit inputs runs as four quad-pairs, so eight lanes share a
// matrix). The metadata is a register and the selector an immediate.
// mmaShape arrays of rank other than 3, and tf32Enabled on operands that
// are not f32, are nvgpu notions with no PTX spelling.
func renderMMA(v mma.Value, k *kernel) error {
	if v.ShapeRank != 3 {
		return noSpelling("shape_rank", "not-3", "for a rank-%d mma shape", v.ShapeRank)
	}
	if v.TF32 && v.AType != mma.F32 && v.BType != mma.F32 {
		return noSpelling("tf32", "not-f32-operands", "for tf32Enabled without 32-bit float operands (.tf32 spells only those)")
	}
	var sat, bitop string
	if v.Satfinite {
		sat = "satfinite"
	}
	if v.BitOp != mma.NoBitOp {
		bitop = v.BitOp.String() + ".popc"
	}
	sp := "mma"
	if v.Sparse() {
		sp = "mma." + v.Sparsity.String()
	}
	name := mods(sp, "sync", "aligned", v.ShapeName(), v.ALayout.String(), v.BLayout.String(), sat,
		v.DType.String(), v.TypeName(v.AType), v.TypeName(v.BType), v.CType.String(), bitop)
	m, n, kk := v.M(), v.N(), v.K()
	lanes := 32
	if m == 8 && n == 8 && kk == 4 && v.AType.Bits() == 16 {
		lanes = 8 // four quad-pairs, each one m8n8k4
	}
	aElems := m * kk
	if v.Sparse() {
		aElems /= 2
	}
	ops := []string{
		mmaFragment(k, v.DType, m*n, lanes, true),
		mmaFragment(k, v.AType, aElems, lanes, false),
		mmaFragment(k, v.BType, kk*n, lanes, false),
		mmaFragment(k, v.CType, m*n, lanes, true),
	}
	if v.Sparse() {
		ops = append(ops, k.zero(b32), fmt.Sprint(v.Selector))
	}
	k.emit("%s %s;", name, join(ops))
	return nil
}

// mmaFragment allocates one lane's registers for elems elements of t shared
// by lanes lanes (rounded up): .f64 registers for f64, .f32 registers for an f32
// accumulator, .b32 registers holding packed elements for the others (tf32
// inputs included).
func mmaFragment(k *kernel, t mma.Type, elems, lanes int, acc bool) string {
	class, bits := b32, 32
	switch {
	case t == mma.F64:
		class, bits = f64, 64
	case t == mma.F32 && acc:
		class = f32
	}
	return fragment(k, class, (elems*t.Bits()+lanes*bits-1)/(lanes*bits))
}
