// Package tmadesc is the TMA tensor-map descriptor domain: the parameters of
// cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and
// cuTensorMapEncodeIm2colWide, plus the address of the CUtensorMap object
// itself and the shared-memory destination a copy through the map writes
// (the swizzle alignment rules constrain both). Every field is wider than
// its legal range, enums carry a reserved value, and the rank goes to 8, so
// illegal descriptors are representable and can be judged.
package tmadesc

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/desc"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Name is the domain's name.
const Name = "tmadesc"

// MaxDims is the number of dimension slots a value holds: ranks above five
// are representable (and illegal) but carry only five entries.
const MaxDims = 5

// Encoding is the driver entry point the parameters are passed to.
type Encoding uint8

const (
	Tiled Encoding = iota
	Im2col
	Im2colWide
)

// Encodings spells the entry points.
var Encodings = domain.Enum{"tiled", "im2col", "im2col_wide"}

func (e Encoding) String() string { return Encodings.Name(int(e)) }

// Enum names the values of Encoding: package desc and mutation read its size.
func (Encoding) Enum() domain.Enum { return Encodings }

// DType is CUtensorMapDataType, numbered as the driver's enum; DTypeReserved
// is the first value past it.
type DType uint8

const (
	UInt8 DType = iota
	UInt16
	UInt32
	Int32
	UInt64
	Int64
	Float16
	Float32
	Float64
	BFloat16
	Float32FTZ
	TFloat32
	TFloat32FTZ
	U4Align8B
	U4Align16B
	U6Align16B
	DTypeReserved
)

// DTypes spells the data types by their driver enum value.
var DTypes = domain.Enum{"uint8", "uint16", "uint32", "int32", "uint64", "int64", "float16", "float32",
	"float64", "bfloat16", "float32_ftz", "tfloat32", "tfloat32_ftz",
	"16u4_align8b", "16u4_align16b", "16u6_align16b", "reserved16"}

func (d DType) String() string { return DTypes.Name(int(d)) }

// Enum names the values of DType: package desc and mutation read its size.
func (DType) Enum() domain.Enum { return DTypes }

// SMemBits is the size one element occupies in shared memory, in bits: the
// ALIGN16B packed types spread 16 values over 16 bytes there (with gaps), so
// they take 8 bits; 16U4_ALIGN8B packs them without gaps, 4 bits each. The
// reserved type counts as 8 bits so every value has a size.
func (d DType) SMemBits() uint64 {
	switch d {
	case UInt16, Float16, BFloat16:
		return 16
	case UInt32, Int32, Float32, Float32FTZ, TFloat32, TFloat32FTZ:
		return 32
	case UInt64, Int64, Float64:
		return 64
	case U4Align8B:
		return 4
	}
	return 8
}

// GlobalBits is the size of one element in global memory, in bits: the
// packed types are dense there (4 or 6 bits).
func (d DType) GlobalBits() uint64 {
	switch d {
	case U4Align16B:
		return 4
	case U6Align16B:
		return 6
	}
	return d.SMemBits()
}

// Float reports whether d is a floating-point type (the only types that may
// ask for NaN out-of-bounds fill).
func (d DType) Float() bool { return d >= Float16 && d <= TFloat32FTZ }

// Align16B reports whether d is one of the packed types that need 16-byte
// aligned destination chunks (16U4_ALIGN16B, 16U6_ALIGN16B).
func (d DType) Align16B() bool { return d == U4Align16B || d == U6Align16B }

// Interleave is CUtensorMapInterleave plus one reserved value.
type Interleave uint8

const (
	InterleaveNone Interleave = iota
	Interleave16B
	Interleave32B
	InterleaveReserved
)

// Interleaves spells the interleave layouts.
var Interleaves = domain.Enum{"none", "16B", "32B", "reserved3"}

func (i Interleave) String() string { return Interleaves.Name(int(i)) }

// Enum names the values of Interleave: package desc and mutation read its size.
func (Interleave) Enum() domain.Enum { return Interleaves }

// Swizzle is CUtensorMapSwizzle plus one reserved value.
type Swizzle uint8

const (
	SwizzleNone Swizzle = iota
	Swizzle32B
	Swizzle64B
	Swizzle128B
	Swizzle128BAtom32B
	Swizzle128BAtom32BFlip8B
	Swizzle128BAtom64B
	SwizzleReserved
)

// Swizzles spells the swizzle patterns.
var Swizzles = domain.Enum{"none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B",
	"128B_atom_64B", "reserved7"}

func (s Swizzle) String() string { return Swizzles.Name(int(s)) }

// Enum names the values of Swizzle: package desc and mutation read its size.
func (Swizzle) Enum() domain.Enum { return Swizzles }

// Span is the swizzle span in bytes (32, 64, or 128 for every 128B mode); 0
// for none and for the reserved value, which has no span.
func (s Swizzle) Span() uint64 {
	switch s {
	case Swizzle32B:
		return 32
	case Swizzle64B:
		return 64
	case Swizzle128B, Swizzle128BAtom32B, Swizzle128BAtom32BFlip8B, Swizzle128BAtom64B:
		return 128
	}
	return 0
}

// L2Promotion is CUtensorMapL2promotion plus one reserved value.
type L2Promotion uint8

// L2Promotions spells the L2 promotion sizes.
var L2Promotions = domain.Enum{"none", "64B", "128B", "256B", "reserved4"}

// L2Reserved is the reserved L2 promotion value.
const L2Reserved L2Promotion = 4

func (l L2Promotion) String() string { return L2Promotions.Name(int(l)) }

// Enum names the values of L2Promotion: package desc and mutation read its size.
func (L2Promotion) Enum() domain.Enum { return L2Promotions }

// OOBFill is CUtensorMapFloatOOBfill.
type OOBFill uint8

const (
	OOBNone OOBFill = iota
	OOBNaN
)

// OOBFills spells the out-of-bounds fills.
var OOBFills = domain.Enum{"none", "nan_request_zero_fma"}

func (o OOBFill) String() string { return OOBFills.Name(int(o)) }

// Enum names the values of OOBFill: package desc and mutation read its size.
func (OOBFill) Enum() domain.Enum { return OOBFills }

// WideMode is CUtensorMapIm2ColWideMode.
type WideMode uint8

const (
	WideW WideMode = iota
	WideW128
)

// WideModes spells the im2col-wide modes.
var WideModes = domain.Enum{"W", "W128"}

func (m WideMode) String() string { return WideModes.Name(int(m)) }

// Enum names the values of WideMode: package desc and mutation read its size.
func (WideMode) Enum() domain.Enum { return WideModes }

// Value is one descriptor request. Array entries past their count (see
// Count) and fields that the encoding does not take (see Unused) are zero,
// so equal requests have equal bytes. Its tags are the domain's one
// description of its fields (package desc); their order is the byte order
// of the canonical form, which stored case IDs hash.
type Value struct {
	Encoding Encoding `field:"encode,default=tiled"`
	DType    DType    `field:"dtype,default=float16"`
	// Rank is tensorRank, 0..8.
	Rank        uint8       `field:"rank,range=0..8,derived"`
	Interleave  Interleave  `field:"interleave"`
	Swizzle     Swizzle     `field:"swizzle,derived"`
	L2Promotion L2Promotion `field:"l2_promotion"`
	OOBFill     OOBFill     `field:"oob_fill"`
	WideMode    WideMode    `field:"wide_mode"`
	// TensorMap is the address of the CUtensorMap object being written.
	TensorMap     uint64 `field:"tensor_map,default=0x1000"`
	GlobalAddress uint64 `field:"global_address,default=0x100000"`
	// SMemAddress is the shared-memory destination of a copy through the map.
	SMemAddress uint32          `field:"smem_address,default=0x400"`
	GlobalDim   [MaxDims]uint64 `field:"global_dim,default=256"`
	// GlobalStrides are the byte strides of dimensions 1..rank-1.
	GlobalStrides [MaxDims - 1]uint64 `field:"global_strides,derived"`
	// BoxDim is the tile box (tiled only).
	BoxDim         [MaxDims]uint32 `field:"box_dim,default=64"`
	ElementStrides [MaxDims]uint32 `field:"element_strides,default=1,zip"`
	// PixelBoxLower and PixelBoxUpper are the im2col bounding-box corners of
	// the rank-2 spatial dimensions (W, H, D); for im2col_wide entry 0 holds
	// pixelBoxLowerCornerWidth / pixelBoxUpperCornerWidth.
	PixelBoxLower    [3]int32      `field:"pixel_box_lower"`
	PixelBoxUpper    [3]int32      `field:"pixel_box_upper,zip"`
	ChannelsPerPixel uint32        `field:"channels_per_pixel,default=64"` // im2col kinds only
	PixelsPerColumn  uint32        `field:"pixels_per_column,default=128"` // im2col kinds only
	Tgt              target.Target `field:"target,default=sm_90"`
}

// fields is the compiled description of Value.
var fields = desc.MustCompile[Value](Name)

// Target implements domain.Value.
func (v Value) Target() target.Target { return v.Tgt }

// Dims is the number of dimension entries the value carries: min(rank, 5).
func (v Value) Dims() int { return min(int(v.Rank), MaxDims) }

// StrideCount is the number of globalStrides entries: rank-1.
func (v Value) StrideCount() int { return max(v.Dims()-1, 0) }

// CornerCount is the number of pixel-box corner entries: the rank-2 spatial
// dimensions for im2col, one (W) for im2col_wide, none for tiled.
func (v Value) CornerCount() int {
	switch v.Encoding {
	case Im2col:
		return min(max(int(v.Rank)-2, 0), 3)
	case Im2colWide:
		return 1
	}
	return 0
}

// InnerBits is the size in bits of the box's inner dimension as the swizzle
// sees it: boxDim[0] elements for tiled, channelsPerPixel for the im2col
// kinds.
func (v Value) InnerBits() uint64 {
	if v.Encoding == Tiled {
		return uint64(v.BoxDim[0]) * v.DType.SMemBits()
	}
	return uint64(v.ChannelsPerPixel) * v.DType.SMemBits()
}

// Count is how many entries of an array field v carries: the dimensions
// for global_dim, box_dim and element_strides, one fewer for
// global_strides, the corners for pixel_box_lower and pixel_box_upper.
func (v *Value) Count(field string) int {
	switch field {
	case "global_strides":
		return v.StrideCount()
	case "pixel_box_lower", "pixel_box_upper":
		return v.CornerCount()
	}
	return v.Dims()
}

// Unused says why a field has no meaning in v: the box is tiled's, the
// pixel box and counts are the im2col kinds', the wide mode im2col_wide's.
func (v *Value) Unused(field string) string {
	switch field {
	case "box_dim":
		if v.Encoding != Tiled {
			return "only encode tiled has a box"
		}
	case "pixel_box_lower", "pixel_box_upper", "channels_per_pixel", "pixels_per_column":
		if v.Encoding == Tiled {
			return "encode tiled has no pixel box (only im2col and im2col_wide)"
		}
	case "wide_mode":
		if v.Encoding != Im2colWide {
			return "only encode im2col_wide has a wide mode"
		}
	}
	return ""
}

// Encode implements domain.Value.
func (v Value) Encode() []byte { return fields.Encode(v) }

// Decode maps fuzz bytes to a value; every input decodes.
func Decode(data []byte) (domain.Value, error) { return fields.Decode(data) }

// String is a short human form, e.g. "tiled float16 rank 2 swizzle 128B sm_90".
func (v Value) String() string {
	return fmt.Sprintf("%s %s rank %d box %v swizzle %s interleave %s %s",
		v.Encoding, v.DType, v.Rank, v.BoxDim[:v.Dims()], v.Swizzle, v.Interleave, v.Tgt.Arch)
}

// Domain describes tmadesc for the registry.
var Domain = domain.Domain{
	Name:       Name,
	Doc:        "TMA tensor-map descriptor parameters (cuTensorMapEncodeTiled / Im2col / Im2colWide)",
	FuzzTarget: "FuzzTMADesc",
	Decode:     Decode,
	ParseJSON:  ParseJSON,
	Seeds:      Seeds,
}
