package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func init() { register(tmamode.Name, renderTMAMode) }

// renderTMAMode spells one cp.async.bulk.tensor (or its L2 prefetch) in the
// order LLVM 22 prints it: .dim.dst.src.mode, the completion mechanism,
// .multicast::cluster, .cta_group::N; then [dstMem], [tensorMap, {coords}],
// [mbar], the im2col offsets or {wHalo, wOffset}, and the CTA mask. The mode
// is always written (.tile included). gather4/scatter4 take five
// coordinates, every other mode one per dimension. wHalo and wOffset are
// written whenever the value has them, so a tile copy that carries them is
// spelled with them. The tensor map's box and interleave are not part of
// the instruction. .L2::cache_hint comes last among the qualifiers and its
// 64-bit cache policy last among the operands. A store waits for its bulk
// group.
func renderTMAMode(v tmamode.Value, k *kernel) error {
	if v.Mode == tmamode.ModeReserved {
		return noSpelling("mode", "reserved", "for reserved cp.async.bulk.tensor mode %d", v.Mode)
	}
	tensor := tmaTensor(k, v)
	extra := tmaIm2colInfo(k, v)
	if v.Multicast {
		extra = append(extra, k.zero(b16))
	}
	if v.CacheHint {
		extra = append(extra, k.zero(b64))
	}
	name := TMAModeInstruction(v)
	switch v.Direction {
	case tmamode.Store:
		src := "[" + k.sharedBuf("tile", 128, 1024) + "]"
		k.emit("%s %s;", name, join(append([]string{tensor, src}, extra...)))
		k.emit("cp.async.bulk.commit_group;")
		k.emit("cp.async.bulk.wait_group 0;")
	case tmamode.Prefetch:
		k.emit("%s %s;", name, join(append([]string{tensor}, extra...)))
	default:
		dst := "[" + k.sharedBuf("tile", 128, 1024) + "]"
		mbar := "[" + k.sharedBuf("mbar", 8, 8) + "]"
		k.emit("%s %s;", name, join(append([]string{dst, tensor, mbar}, extra...)))
	}
	return nil
}

// TMAModeInstruction is the instruction a tmamode value names, without its
// operands, e.g.
// "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes":
// the renderer writes it and spec/ptxisa's accept carries it, so the
// instruction is spelled in one place.
func TMAModeInstruction(v tmamode.Value) string {
	var mc, cta, hint string
	if v.Multicast {
		mc = "multicast::cluster"
	}
	if v.CacheHint {
		hint = "L2::cache_hint"
	}
	if v.CTAGroup != 0 {
		cta = fmt.Sprintf("cta_group::%d", v.CTAGroup)
	}
	dim := fmt.Sprintf("%dd", v.Rank)
	switch v.Direction {
	case tmamode.Store:
		return mods("cp.async.bulk.tensor", dim, v.Dst.String(), "shared::cta", v.Mode.String(), "bulk_group", mc, cta, hint)
	case tmamode.Prefetch:
		return mods("cp.async.bulk.prefetch.tensor", dim, v.Dst.String(), "global", v.Mode.String(), mc, cta, hint)
	}
	return mods("cp.async.bulk.tensor", dim, v.Dst.String(), "global", v.Mode.String(),
		"mbarrier::complete_tx::bytes", mc, cta, hint)
}

// tmaTensor spells [tensorMap, {coordinates}].
func tmaTensor(k *kernel, v tmamode.Value) string {
	n := int(v.Rank)
	if v.Mode == tmamode.Gather4 || v.Mode == tmamode.Scatter4 {
		n = 5
	}
	coords := zeros(k, b32, n)
	return fmt.Sprintf("[%s, %s]", k.zero(b64), vec(coords))
}

// tmaIm2colInfo spells the im2col operands: dim-2 16-bit offsets for
// .im2col loads and prefetches (none below 3D), and {wHalo, wOffset} for the
// ::w modes or any value that carries them.
func tmaIm2colInfo(k *kernel, v tmamode.Value) []string {
	var out []string
	if v.Mode == tmamode.Im2col && v.Direction != tmamode.Store && v.Rank > 2 {
		out = append(out, vec(zeros(k, b16, int(v.Rank)-2)))
	}
	if v.Mode.IsW() || v.WHalo != 0 || v.WOffset != 0 {
		out = append(out, vec([]string{k.value(b16, uint64(v.WHalo)), k.value(b16, uint64(v.WOffset))}))
	}
	return out
}
