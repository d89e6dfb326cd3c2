package render

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func init() { renderers[tmamode.Name] = typed(renderTMAMode) }

// renderTMAMode spells cp.async.bulk.tensor with LLVM 19's nvvm ops (what
// nvgpu.tma.async.load/store lower to; unlike them they spell im2col):
// nvvm.cp.async.bulk.tensor.shared.cluster.global for loads (tile, or
// im2col with rank-2 offsets, at least one so the op is in im2col mode) and
// nvvm.cp.async.bulk.tensor.global.shared.cta for tile stores. The rank is
// the number of coordinates. LLVM 19 has no gather4/scatter4, im2col::w,
// tensor prefetch, .cta_group, loads into .shared::cta, or a store's
// l2_cache_hint (a load's is its %cache_hint operand); the tensor-map
// facts (box dim 1, interleave) matter only to gather4/scatter4. Operands
// are kernel parameters, so none folds into an immediate, each coordinate
// and offset its own, named by its role (package valuecheck: tmap, dst or
// src, mbar, x0.., off0.., cta_mask), so the value check tells them apart
// in the PTX.
func renderTMAMode(v tmamode.Value) (Kernel, error) {
	if v.CTAGroup != 0 {
		return Kernel{}, unsupported("cta_group", "any", "LLVM 19's nvvm.cp.async.bulk.tensor ops have no .cta_group")
	}
	if v.WHalo != 0 || v.WOffset != 0 {
		return Kernel{}, unsupported("im2col_w", "any", "LLVM 19 has no im2col::w operands (wHalo %d, wOffset %d)", v.WHalo, v.WOffset)
	}
	params := "%tmap: !llvm.ptr, %dst: !llvm.ptr<3>, %mbar: !llvm.ptr<3>" + tmaOperandParams
	b := newBody("      ")
	coords := strings.Join(numbered("%x", int(v.Rank)), ", ")
	switch v.Direction {
	case tmamode.Load:
		if v.Dst != tmamode.SharedCluster {
			return Kernel{}, unsupported("dst", "load-not-shared-cluster", "nvvm.cp.async.bulk.tensor.shared.cluster.global writes .shared::cluster, not .%s", v.Dst)
		}
		extra := ""
		switch v.Mode {
		case tmamode.Tile:
		case tmamode.Im2col:
			extra = " im2col[" + strings.Join(numbered("%off", max(int(v.Rank)-2, 1)), ", ") + "]"
		default:
			return Kernel{}, unsupported("mode", "load-mode-not-in-release", "LLVM 19 has no cp.async.bulk.tensor load mode .%s", v.Mode)
		}
		if v.Multicast {
			extra += " multicast_mask = %cta_mask"
		}
		if v.CacheHint {
			extra += " l2_cache_hint = %cache_hint"
		}
		b.op("nvvm.cp.async.bulk.tensor.shared.cluster.global %%dst, %%tmap, %%mbar, box[%s]%s : !llvm.ptr<3>, !llvm.ptr", coords, extra)
	case tmamode.Store:
		switch {
		case v.Dst != tmamode.Global:
			return Kernel{}, unsupported("dst", "store-not-global", "nvvm.cp.async.bulk.tensor.global.shared.cta writes .global, not .%s", v.Dst)
		case v.Mode != tmamode.Tile:
			return Kernel{}, unsupported("mode", "store-mode-not-in-release", "LLVM 19 has no cp.async.bulk.tensor store mode .%s", v.Mode)
		case v.Multicast:
			return Kernel{}, unsupported("multicast", "store", "a tensor store has no .multicast::cluster spelling")
		case v.CacheHint:
			return Kernel{}, unsupported("cache_hint", "store", "LLVM 19's nvvm.cp.async.bulk.tensor.global.shared.cta has no l2_cache_hint")
		}
		params = "%tmap: !llvm.ptr, %src: !llvm.ptr<3>" + tmaOperandParams
		b.op("nvvm.cp.async.bulk.tensor.global.shared.cta %%tmap, %%src, box[%s] : !llvm.ptr, !llvm.ptr<3>%s",
			coords, typesOf("i32", int(v.Rank)))
	default:
		return Kernel{}, unsupported("direction", "prefetch", "LLVM 19 has no cp.async.bulk.prefetch.tensor")
	}
	return Kernel{Params: params, Body: b.String()}, nil
}

// typesOf is ", t" n times: the trailing operand types of an op's type list.
func typesOf(t string, n int) string {
	s := ""
	for range n {
		s += ", " + t
	}
	return s
}

// tmaOperandParams declare a TMA kernel's coordinates %x0..%x6 (rank 7,
// or gather4's five), im2col offsets %off0..%off4 (rank 7 less 2) and CTA
// mask %cta_mask and L2 cache policy %cache_hint, unused ones included.
var tmaOperandParams = func() string {
	s := ""
	for _, c := range numbered("%x", 7) {
		s += ", " + c + ": i32"
	}
	for _, o := range numbered("%off", 5) {
		s += ", " + o + ": i16"
	}
	return s + ", %cta_mask: i16, %cache_hint: i64"
}()

// numbered is prefix0..prefix(n-1): n operands, each its own parameter.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}
