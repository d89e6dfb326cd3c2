package tmadesc

import (
	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Addresses of the base descriptors, the JSON form's defaults too.
const (
	DefaultTensorMap     = 0x1000
	DefaultGlobalAddress = 0x100000
	DefaultSMemAddress   = 0x400
)

// MarshalJSON writes every field the encoding takes, arrays sized by rank.
func (v Value) MarshalJSON() ([]byte, error) { return fields.JSON(v) }

// ParseJSON parses the strict JSON form. Arrays carry exactly the entries
// the rank and encoding give them (Count); fields the encoding does not take
// are refused. Defaults: encode tiled, dtype float16, rank the length of
// global_dim (else 2 for tiled, 4 for the im2col kinds), tensor_map 0x1000,
// global_address 0x100000, smem_address 0x400, global_dim 256 per
// dimension, global_strides dense (the row bytes rounded up to 16, or 32
// under interleave 32B and for the ALIGN16B types, times the outer
// dimensions), box_dim 64 per dimension, element_strides 1, interleave none,
// swizzle none (128B for im2col_wide, which has no none), l2_promotion none,
// oob_fill none, pixel-box corners 0, channels_per_pixel 64,
// pixels_per_column 128, wide_mode W, target sm_90, ptx the target's first
// PTX ISA version.
func ParseJSON(data []byte) (domain.Value, error) { return fields.Parse(data) }

// Derive sets the defaults that depend on other fields: the rank from
// global_dim or the encoding, the swizzle from the encoding, the strides
// dense.
func (v *Value) Derive(given desc.Given) {
	if !given.Has("swizzle") && v.Encoding == Im2colWide {
		v.Swizzle = Swizzle128B
	}
	switch {
	case given.Has("rank"):
	case given.Has("global_dim"):
		v.Rank = uint8(given.Len("global_dim"))
	case v.Encoding == Tiled:
		v.Rank = 2
	default:
		v.Rank = 4
	}
	if !given.Has("global_strides") {
		v.GlobalStrides = denseStrides(*v)
	}
}

// denseStrides lays the tensor out without padding beyond the driver's
// stride granule: the row bytes rounded up to 16 (32 under interleave 32B
// and for the ALIGN16B types), times each outer dimension.
func denseStrides(v Value) [MaxDims - 1]uint64 {
	var s [MaxDims - 1]uint64
	if v.StrideCount() == 0 {
		return s
	}
	granule := uint64(16)
	if v.Interleave == Interleave32B || v.DType.Align16B() {
		granule = 32
	}
	row := (v.GlobalDim[0]*v.DType.GlobalBits() + 7) / 8
	s[0] = (row + granule - 1) / granule * granule
	for i := 1; i < v.StrideCount(); i++ {
		s[i] = s[i-1] * v.GlobalDim[i]
	}
	return s
}
