package mlir

import (
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func init() { renderers[tmamode.Name] = typed(renderTMAMode) }

// renderTMAMode spells cp.async.bulk.tensor with LLVM 19's nvvm ops (what
// nvgpu.tma.async.load/store lower to; unlike them they spell im2col):
// nvvm.cp.async.bulk.tensor.shared.cluster.global for loads (tile, or
// im2col with rank-2 offsets, at least one so the op is in im2col mode) and
// nvvm.cp.async.bulk.tensor.global.shared.cta for tile stores. The rank is
// the number of coordinates. LLVM 19 has no gather4/scatter4, im2col::w,
// tensor prefetch, .cta_group, or loads into .shared::cta; the tensor-map
// facts (box dim 1, interleave) matter only to gather4/scatter4. Operands
// are kernel parameters, so none folds into an immediate.
func renderTMAMode(v tmamode.Value) (kernel, error) {
	if v.CTAGroup != 0 {
		return kernel{}, unsupported("cta_group", "any", "LLVM 19's nvvm.cp.async.bulk.tensor ops have no .cta_group")
	}
	if v.WHalo != 0 || v.WOffset != 0 {
		return kernel{}, unsupported("im2col_w", "any", "LLVM 19 has no im2col::w operands (wHalo %d, wOffset %d)", v.WHalo, v.WOffset)
	}
	params := "%t: !llvm.ptr, %s: !llvm.ptr<3>, %mbar: !llvm.ptr<3>, %c: i32, %o: i16, %m: i16"
	b := newBody("      ")
	coords := repeat("%c", int(v.Rank))
	switch v.Direction {
	case tmamode.Load:
		if v.Dst != tmamode.SharedCluster {
			return kernel{}, unsupported("dst", "load-not-shared-cluster", "nvvm.cp.async.bulk.tensor.shared.cluster.global writes .shared::cluster, not .%s", v.Dst)
		}
		extra := ""
		switch v.Mode {
		case tmamode.Tile:
		case tmamode.Im2col:
			extra = " im2col[" + repeat("%o", max(int(v.Rank)-2, 1)) + "]"
		default:
			return kernel{}, unsupported("mode", "load-mode-not-in-release", "LLVM 19 has no cp.async.bulk.tensor load mode .%s", v.Mode)
		}
		if v.Multicast {
			extra += " multicast_mask = %m"
		}
		b.op("nvvm.cp.async.bulk.tensor.shared.cluster.global %%s, %%t, %%mbar, box[%s]%s : !llvm.ptr<3>, !llvm.ptr", coords, extra)
	case tmamode.Store:
		switch {
		case v.Dst != tmamode.Global:
			return kernel{}, unsupported("dst", "store-not-global", "nvvm.cp.async.bulk.tensor.global.shared.cta writes .global, not .%s", v.Dst)
		case v.Mode != tmamode.Tile:
			return kernel{}, unsupported("mode", "store-mode-not-in-release", "LLVM 19 has no cp.async.bulk.tensor store mode .%s", v.Mode)
		case v.Multicast:
			return kernel{}, unsupported("multicast", "store", "a tensor store has no .multicast::cluster spelling")
		}
		b.op("nvvm.cp.async.bulk.tensor.global.shared.cta %%t, %%s, box[%s] : !llvm.ptr, !llvm.ptr<3>%s",
			coords, typesOf("i32", int(v.Rank)))
	default:
		return kernel{}, unsupported("direction", "prefetch", "LLVM 19 has no cp.async.bulk.prefetch.tensor")
	}
	return kernel{Params: params, Body: b.String()}, nil
}

// typesOf is ", t" n times: the trailing operand types of an op's type list.
func typesOf(t string, n int) string {
	s := ""
	for range n {
		s += ", " + t
	}
	return s
}
