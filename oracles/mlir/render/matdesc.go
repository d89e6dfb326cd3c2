package render

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
)

func init() { renderers[matdesc.Name] = typed(renderMatDesc) }

// wgmmaSwizzles maps the wgmma descriptor's swizzle field (0 none, 1 128B,
// 2 64B, 3 32B) to nvgpu's TMA swizzle kind and its span in bytes.
var wgmmaSwizzles = [4]struct {
	kind string
	span uint32
}{{"none", 1}, {"swizzle_128b", 128}, {"swizzle_64b", 64}, {"swizzle_32b", 32}}

// renderMatDesc spells a wgmma descriptor as nvgpu.warpgroup.generate.descriptor
// over an f16 tile at the value's start address, and stores the word the
// lowering computes. MLIR 19 derives every other field: the swizzle from the
// tensor map, SBO as 8 rows of the swizzle span, LBO as the tile's first
// dimension times the span, base offset 0, reserved bits 0, one uniform
// word. A value naming anything else has no spelling; the tile's first
// dimension is LBO / span, as literally as that allows (0 or more than 256
// rows is for the verifier to refuse).
func renderMatDesc(v matdesc.Value) (Kernel, error) {
	if v.Format != matdesc.WGMMA {
		return Kernel{}, unsupported("kind", "tcgen05", "nvgpu has no tcgen05 shared memory descriptor")
	}
	sw := wgmmaSwizzles[v.Swizzle&3]
	switch {
	case v.BaseOffset != 0:
		return Kernel{}, unsupported("base_offset", "nonzero", "nvgpu.warpgroup.generate.descriptor always writes base offset 0, not %d", v.BaseOffset)
	case v.Reserved != 0:
		return Kernel{}, unsupported("reserved", "nonzero", "nvgpu.warpgroup.generate.descriptor sets no reserved bits (value has 0x%x)", v.Reserved)
	case !v.Uniform:
		return Kernel{}, unsupported("per_thread", "any", "nvgpu.warpgroup.generate.descriptor computes one warpgroup-uniform word; a per-thread descriptor has no spelling")
	case v.SBO != sw.span*8>>4<<4:
		return Kernel{}, unsupported("sbo", "not-derived", "nvgpu.warpgroup.generate.descriptor derives SBO from the swizzle (%d B for %s), not 0x%x",
			sw.span*8>>4<<4, sw.kind, v.SBO)
	case v.LBO%sw.span != 0:
		return Kernel{}, unsupported("lbo", "not-derived", "nvgpu.warpgroup.generate.descriptor derives LBO as rows x %d B (%s); 0x%x is not a multiple", sw.span, sw.kind, v.LBO)
	}
	rows := int64(v.LBO / sw.span)
	shape := []int64{rows, 64} // 64 f16 = 128 B: the last dimension the verifier wants
	b := newBody("      ")
	tile, tileType := b.memrefAt(uint64(v.StartAddr), shape, "f16", 3)
	tmType := fmt.Sprintf("!nvgpu.tensormap.descriptor<tensor = %s, swizzle = %s, l2promo = none, oob = zero, interleave = none>",
		tileType, sw.kind)
	tm := b.castPtr(0, 0, tmType)
	descType := fmt.Sprintf("!nvgpu.warpgroup.descriptor<tensor = %s>", tileType)
	d := b.val("nvgpu.warpgroup.generate.descriptor %s, %s : %s, %s -> %s", tile, tm, tileType, tmType, descType)
	w := b.val("builtin.unrealized_conversion_cast %s : %s to i64", d, descType)
	b.op("llvm.store %s, %%out : i64, !llvm.ptr<1>", w)
	return Kernel{Params: "%out: !llvm.ptr<1>", Body: b.String(), Value: true}, nil
}
