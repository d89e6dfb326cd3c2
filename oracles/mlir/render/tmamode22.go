package render

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

// tmaParams22 are the kernel's operands, named by role (package
// valuecheck): the tensor map; a load's destination (a shared::cluster
// buffer in address space 7, the destination MLIR 22 requires of a cluster
// load, or a shared::cta one) and mbarrier, or a store's source; and the
// coordinates, im2col offsets and CTA mask, all parameters so none folds
// into an immediate.
func tmaParams22(v tmamode.Value) string {
	switch {
	case v.Direction == tmamode.Store:
		return "%tmap: !llvm.ptr, %src: !llvm.ptr<3>" + tmaOperandParams
	case v.Direction != tmamode.Load:
		return "%tmap: !llvm.ptr" + tmaOperandParams
	case v.Dst == tmamode.SharedCTA:
		return "%tmap: !llvm.ptr, %dst: !llvm.ptr<3>, %mbar: !llvm.ptr<3>" + tmaOperandParams
	}
	return "%tmap: !llvm.ptr, %dst: !llvm.ptr<7>, %mbar: !llvm.ptr<3>" + tmaOperandParams
}

// renderTMAMode22 spells cp.async.bulk.tensor with MLIR 22's nvvm ops:
// nvvm.cp.async.bulk.tensor.shared.cluster.global for loads (into
// shared::cluster through an address-space-7 pointer, or into shared::cta
// with isCTAOnly), nvvm.cp.async.bulk.tensor.global.shared.cta for stores
// and nvvm.cp.async.bulk.tensor.prefetch for L2 prefetches. The mode is an
// attribute, so every mode the value names that MLIR 22 has is spelled
// with the value's rank, and MLIR 22 judges the combination. The tensor-map
// facts (box dim 1, interleave) are not part of the op.
func renderTMAMode22(v tmamode.Value) (Kernel, error) {
	if v.WHalo != 0 || v.WOffset != 0 {
		if !v.Mode.IsW() {
			return Kernel{}, unsupported("im2col_w", "not-im2col-w-mode", "MLIR 22 takes wHalo and wOffset only as the im2col operands of an im2col::w mode, not .%s", v.Mode)
		}
	}
	b := newBody("      ")
	var err error
	switch v.Direction {
	case tmamode.Load:
		err = tmaLoad22(b, v)
	case tmamode.Store:
		err = tmaStore22(b, v)
	default:
		err = tmaPrefetch22(b, v)
	}
	if err != nil {
		return Kernel{}, err
	}
	return Kernel{Params: tmaParams22(v), Body: b.String()}, nil
}

// The ops are spelled in the generic form (see genericOp): MLIR after 23
// spells mode, isCTAOnly and group as keywords.

// tmaLoad22 spells a load, with its CTA mask and .cta_group when the value
// has them. Its operand segments: destination, tensor map, coordinates,
// mbarrier, im2col offsets, CTA mask, L2 cache hint, predicate.
func tmaLoad22(b *body, v tmamode.Value) error {
	dst, dstType, isCTAOnly := "%dst", "!llvm.ptr<7>", false
	switch v.Dst {
	case tmamode.SharedCluster:
	case tmamode.SharedCTA:
		dstType, isCTAOnly = "!llvm.ptr<3>", true
	default:
		return unsupported("dst", "load-not-shared", "nvvm.cp.async.bulk.tensor.shared.cluster.global writes shared memory, not .%s", v.Dst)
	}
	coords, offs, mode, err := tmaLoadMode22(b, v)
	if err != nil {
		return err
	}
	op := generic("nvvm.cp.async.bulk.tensor.shared.cluster.global", true).args(dstType, dst).args("!llvm.ptr", "%tmap").
		args("i32", coords...).args("!llvm.ptr<3>", "%mbar").args("i16", offs...)
	if v.Multicast {
		op.args("i16", "%cta_mask")
	} else {
		op.absent()
	}
	cacheHint(op, v).absent().prop("mode = #nvvm.tma_load_mode<" + mode + ">")
	if isCTAOnly {
		op.prop("isCTAOnly = true")
	}
	if v.CTAGroup != 0 {
		op.prop(fmt.Sprintf("group = #nvvm.cta_group<cta_%d>", v.CTAGroup))
	}
	b.op("%s", op)
	return nil
}

// tmaStore22 spells a store: tile, im2col_no_offs (MLIR's store mode
// im2col) or tile::scatter4; no store has a CTA mask or .cta_group. Its
// operand segments: tensor map, source, coordinates, L2 cache hint,
// predicate.
func tmaStore22(b *body, v tmamode.Value) error {
	switch {
	case v.Dst != tmamode.Global:
		return unsupported("dst", "store-not-global", "nvvm.cp.async.bulk.tensor.global.shared.cta writes .global, not .%s", v.Dst)
	case v.Multicast:
		return unsupported("multicast", "store", "MLIR 22's tensor store has no multicast mask")
	case v.CTAGroup != 0:
		return unsupported("cta_group", "store", "MLIR 22's tensor store has no .cta_group")
	}
	mode := "tile"
	coords := int(v.Rank)
	switch v.Mode {
	case tmamode.Tile:
	case tmamode.Im2colNoOffs:
		mode = "im2col"
	case tmamode.Scatter4:
		if v.Rank != 2 {
			return unsupported("rank", "scatter4-not-2d", "MLIR 22's tile_scatter4 store is 2D (five coordinates); a %dD one has no spelling", v.Rank)
		}
		mode, coords = "tile_scatter4", 5
	default:
		return unsupported("mode", "store-mode-not-in-release", "MLIR 22 has no tensor store mode .%s", v.Mode)
	}
	op := generic("nvvm.cp.async.bulk.tensor.global.shared.cta", true).args("!llvm.ptr", "%tmap").args("!llvm.ptr<3>", "%src").
		args("i32", numbered("%x", coords)...)
	b.op("%s", cacheHint(op, v).absent().prop("mode = #nvvm.tma_store_mode<"+mode+">"))
	return nil
}

// tmaPrefetch22 spells an L2 prefetch in any load mode; it has no CTA mask
// or .cta_group. Its operand segments: tensor map, coordinates, im2col
// offsets, L2 cache hint.
func tmaPrefetch22(b *body, v tmamode.Value) error {
	switch {
	case v.Dst != tmamode.L2:
		return unsupported("dst", "prefetch-not-l2", "nvvm.cp.async.bulk.tensor.prefetch fills L2, not .%s", v.Dst)
	case v.Multicast:
		return unsupported("multicast", "prefetch", "MLIR 22's tensor prefetch has no multicast mask")
	case v.CTAGroup != 0:
		return unsupported("cta_group", "prefetch", "MLIR 22's tensor prefetch has no .cta_group")
	}
	coords, offs, mode, err := tmaLoadMode22(b, v)
	if err != nil {
		return err
	}
	op := generic("nvvm.cp.async.bulk.tensor.prefetch", true).args("!llvm.ptr", "%tmap").args("i32", coords...).
		args("i16", offs...)
	b.op("%s", cacheHint(op, v).prop("mode = #nvvm.tma_load_mode<"+mode+">"))
	return nil
}

// cacheHint adds the op's L2 cache hint segment: the %cache_hint policy
// when the value has .L2::cache_hint, else an empty one.
func cacheHint(op *genericOp, v tmamode.Value) *genericOp {
	if v.CacheHint {
		return op.args("i64", "%cache_hint")
	}
	return op.absent()
}

// tmaLoadMode22 is the coordinates and im2col offsets of a load or
// prefetch in MLIR 22's #nvvm.tma_load_mode, and the mode. im2col takes
// rank-2 offsets (none below 3D, which MLIR 22 is left to refuse); the ::w
// modes take wHalo and wOffset, as constants so the value's reach the IR;
// gather4 is 2D with five coordinates.
func tmaLoadMode22(b *body, v tmamode.Value) (coords, offs []string, mode string, err error) {
	n := int(v.Rank)
	mode = "tile"
	switch v.Mode {
	case tmamode.Tile:
	case tmamode.Im2col:
		mode, offs = "im2col", numbered("%off", max(int(v.Rank)-2, 0))
	case tmamode.Im2colW, tmamode.Im2colW128:
		mode = "im2col_w"
		if v.Mode == tmamode.Im2colW128 {
			mode = "im2col_w_128"
		}
		offs = []string{b.i16(v.WHalo), b.i16(v.WOffset)}
	case tmamode.Gather4:
		if v.Rank != 2 {
			return nil, nil, "", unsupported("rank", "gather4-not-2d", "MLIR 22's tile_gather4 is 2D (five coordinates); a %dD one has no spelling", v.Rank)
		}
		mode, n = "tile_gather4", 5
	default:
		return nil, nil, "", unsupported("mode", "load-mode-not-in-release", "MLIR 22 has no cp.async.bulk.tensor load mode .%s", v.Mode)
	}
	return numbered("%x", n), offs, mode, nil
}

// times is n copies of s: one operand passed n times.
func times(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
