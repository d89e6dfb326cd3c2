package ptx

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
)

func init() { register(blockscale.Name, renderBlockScale) }

// renderBlockScale spells the sm_120a block-scaled mma.sync as LLVM 22 does:
// mma.sync.aligned.m16n8kK.row.col.kind::X.block_scale.scale_vec::NX
// .f32.atype.btype.f32.stype d, a, b, c, scale-a, {byte-id-a, thread-id-a},
// scale-b, {byte-id-b, thread-id-b}. NX is K / the seed's scale vector size,
// always written; a size that does not divide K has no .scale_vec spelling.
// A fragment is 8-bit containers for the mxf8f6f4 and f8f6f4 kinds and packed
// 4-bit for mxf4/mxf4nvf4. The scale fragment width is the seed's
// bookkeeping and has no PTX spelling.
func renderBlockScale(v blockscale.Value, k *kernel) error {
	nx, ok := v.ScaleVecN()
	if !ok {
		return noSpelling("scale_vec_size", "not-whole-scale-vec", "for scale vector size %d at K %d (not a whole .scale_vec::NX)", v.ScaleVecSize, v.K)
	}
	for _, t := range []blockscale.Type{v.AType, v.BType} {
		if t == blockscale.TypeOther {
			return noSpelling("type", "placeholder", "for block-scaled element type %q", t)
		}
	}
	if v.SFType == blockscale.SFOther {
		return noSpelling("sf_type", "placeholder", "for scale-factor type %q", v.SFType)
	}
	name := mods("mma", "sync", "aligned", v.Shape(), "row", "col", "kind::"+v.Kind.String(), "block_scale",
		fmt.Sprintf("scale_vec::%dX", nx), "f32", v.AType.String(), v.BType.String(), "f32", v.SFType.String())
	bits := 8
	if v.Kind == blockscale.MXF4 || v.Kind == blockscale.MXF4NVF4 {
		bits = 4
	}
	kk := int(v.K)
	ops := []string{
		fragment(k, f32, 4),
		fragment(k, b32, 16*kk*bits/1024),
		fragment(k, b32, kk*8*bits/1024),
		fragment(k, f32, 4),
	}
	for range 2 {
		ops = append(ops, k.zero(b32), fragment(k, b16, 2))
	}
	k.emit("%s %s;", name, join(ops))
	return nil
}
