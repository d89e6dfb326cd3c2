package llvm

import (
	"fmt"

	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

// LLVM 22 spells cp.async.bulk.tensor as four intrinsic families, one per
// direction and destination, with the mode and rank in the name:
//
//	g2s.<mode>.<N>d      (dst ptr addrspace(7), mbar ptr addrspace(3), tmap ptr, i32 × N coordinates,
//	                      i16 × im2col offsets, i16 cta_mask, i64 cache_hint,
//	                      i1 multicast flag, i1 cache-hint flag, i32 cta_group)  shared::cluster
//	g2s.cta.<mode>.<N>d  (dst ptr addrspace(3), mbar, tmap, coordinates, offsets, i64, i1)  shared::cta
//	s2g.<mode>.<N>d      (src ptr addrspace(3), tmap, coordinates, i64, i1)
//	prefetch.<mode>.<N>d (tmap, coordinates, offsets, i64, i1)
//
// The flags and cta_group are immargs (cta_group in [0, 3), 0 for none).
// tile::gather4 and tile::scatter4 exist only as .2d with five coordinates;
// im2col takes N-2 offsets, im2col::w and im2col::w::128 two (wHalo, then
// wOffset). LLVM's s2g.im2col prints .im2col_no_offs. LLVM 19 has none of
// these intrinsics, and older g2s intrinsics had another signature (an
// addrspace(3) destination and no cta_group, which LLVM 22 auto-upgrades),
// so the renderer is LLVM 22's.
const bulkTensor = "llvm.nvvm.cp.async.bulk.tensor."

// tmFamily is one of LLVM's four cp.async.bulk.tensor intrinsic families.
type tmFamily struct {
	prefix string
	// modes spells the seed's modes that the family has, as LLVM names them.
	modes map[tm.Mode]string
}

var (
	tmLoadModes = map[tm.Mode]string{tm.Tile: "tile", tm.Gather4: "tile.gather4", tm.Im2col: "im2col",
		tm.Im2colW: "im2col.w", tm.Im2colW128: "im2col.w.128"}
	tmG2S      = tmFamily{"g2s", tmLoadModes}
	tmG2SCTA   = tmFamily{"g2s.cta", tmLoadModes}
	tmS2G      = tmFamily{"s2g", map[tm.Mode]string{tm.Tile: "tile", tm.Scatter4: "tile.scatter4", tm.Im2colNoOffs: "im2col"}}
	tmPrefetch = tmFamily{"prefetch", tmLoadModes}
)

// tmFamilyOf picks the family for the direction and destination space.
func tmFamilyOf(v tm.Value) (tmFamily, bool) {
	switch {
	case v.Direction == tm.Load && v.Dst == tm.SharedCluster:
		return tmG2S, true
	case v.Direction == tm.Load && v.Dst == tm.SharedCTA:
		return tmG2SCTA, true
	case v.Direction == tm.Store && v.Dst == tm.Global:
		return tmS2G, true
	case v.Direction == tm.Prefetch && v.Dst == tm.L2:
		return tmPrefetch, true
	}
	return tmFamily{}, false
}

// renderTMAMode renders one cp.async.bulk.tensor instruction. The rank is
// written as the value holds it, so a rank LLVM has no intrinsic for (0, 6,
// 7, im2col below 3d) compiles as an external call and comes back
// unsupported. The tensor map's box dim1 and interleave are not part of the
// instruction and llc never sees them: only the modes that constrain them
// care, and a gather4 or scatter4 value is judged only with them neutral.
func renderTMAMode(t tm.Value, k *kernel) error {
	fam, ok := tmFamilyOf(t)
	mode, hasMode := fam.modes[t.Mode]
	gather := t.Mode == tm.Gather4 || t.Mode == tm.Scatter4
	switch {
	case !ok:
		return noSpelling("dst", "not-for-direction", "no LLVM spelling for a %s into .%s", t.Direction, t.Dst)
	case !hasMode:
		return noSpelling("mode", "not-for-direction", "no LLVM spelling for %s .%s (LLVM's %s intrinsics have no such mode)", t.Direction, t.Mode, fam.prefix)
	case gather && (t.BoxDim1 != 1 || t.Interleave != tm.InterleaveNone):
		return noSpelling("tensor_map", "box-dim1-interleave", "no LLVM spelling for the tensor map's box dim1 %d and interleave %s (llc never sees the tensor map)", t.BoxDim1, t.Interleave)
	case !t.Mode.IsW() && (t.WHalo != 0 || t.WOffset != 0):
		return noSpelling("im2col_w", "not-im2col-w-mode", "no LLVM spelling for wHalo/wOffset with .%s (only the im2col.w intrinsics take them)", t.Mode)
	case fam.prefix != "g2s" && t.Multicast:
		return noSpelling("multicast", "not-g2s", "no LLVM spelling for .multicast::cluster on %s (only g2s has a cta_mask)", fam.prefix)
	case fam.prefix != "g2s" && t.CTAGroup != 0:
		return noSpelling("cta_group", "not-g2s", "no LLVM spelling for .cta_group::%d on %s (only g2s has a cta_group)", t.CTAGroup, fam.prefix)
	}
	name := fmt.Sprintf("%s%s.%s.%dd", bulkTensor, fam.prefix, mode, t.Rank)
	var ops []operand
	switch fam.prefix {
	case "g2s":
		ops = append(ops, k.param("ptr addrspace(7)", "dst"), k.param("ptr addrspace(3)", "mbar"))
	case "g2s.cta":
		ops = append(ops, k.param("ptr addrspace(3)", "dst"), k.param("ptr addrspace(3)", "mbar"))
	case "s2g":
		ops = append(ops, k.param("ptr addrspace(3)", "src"))
	}
	ops = append(ops, k.param("ptr", "tmap"))
	ops = append(ops, tmCoordinates(t, k)...)
	if fam.prefix != "s2g" {
		ops = append(ops, tmOffsets(t, k)...)
	}
	if fam.prefix == "g2s" {
		ops = append(ops, k.param("i16", "cta_mask"))
	}
	ops = append(ops, k.param("i64", "cache_hint"))
	if fam.prefix == "g2s" {
		ops = append(ops, imm("i1", b2i(t.Multicast)))
	}
	ops = append(ops, imm("i1", b2i(t.CacheHint)))
	if fam.prefix == "g2s" {
		ops = append(ops, imm("i32", int64(t.CTAGroup)))
	}
	k.call("void", name, ops...)
	return nil
}

// tmCoordinates are the tensor coordinates: one per dimension, five for
// the gather4/scatter4 forms (a column and four rows).
func tmCoordinates(t tm.Value, k *kernel) []operand {
	n := int(t.Rank)
	if t.Mode == tm.Gather4 || t.Mode == tm.Scatter4 {
		n = 5
	}
	ops := make([]operand, n)
	for i := range ops {
		ops[i] = k.param("i32", fmt.Sprintf("x%d", i))
	}
	return ops
}

// tmOffsets are the im2col offsets of a load or prefetch: N-2 registers
// for im2col, the constants wHalo and wOffset for im2col::w and ::w::128.
func tmOffsets(t tm.Value, k *kernel) []operand {
	switch {
	case t.Mode.IsW():
		return []operand{imm("i16", int64(int16(t.WHalo))), imm("i16", int64(int16(t.WOffset)))}
	case t.Mode == tm.Im2col:
		var ops []operand
		for i := 0; i < int(t.Rank)-2; i++ {
			ops = append(ops, k.param("i16", fmt.Sprintf("off%d", i)))
		}
		return ops
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
