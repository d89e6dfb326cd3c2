package rules

import (
	"fmt"
	"strconv"

	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

const (
	srcTensorMap = "CUDA Driver API 6.30 (Tensor Map Object Management): cuTensorMapEncodeTiled"
	srcIm2col    = "CUDA Driver API 6.30 (Tensor Map Object Management): cuTensorMapEncodeIm2col"
	srcIm2colW   = "CUDA Driver API 6.30 (Tensor Map Object Management): cuTensorMapEncodeIm2colWide"
	srcGuide     = "CUDA programming guide, TMA swizzle (ptx-facts: global 128B for any swizzle, shared 128B)"
)

func tdRule(name, msg, source string) *Rule { return ptxRule(td.Name, name, msg, source) }

// tdChunkBits is the 16-byte granule, in bits, of box rows and strides.
const tdChunkBits = 128

// tdNeeds32B reports whether the global address and strides need 32-byte
// alignment: interleave 32B, or an ALIGN16B packed type.
func tdNeeds32B(v td.Value) bool { return v.Interleave == td.Interleave32B || v.DType.Align16B() }

// tdIsIm2col reports whether v is encoded by one of the im2col entry points.
func tdIsIm2col(v td.Value) bool { return v.Encoding != td.Tiled }

// tdIm2colCornerLimit is the corner range [-lim, lim-1] for an im2col rank:
// one offset of 16 bits at rank 3, two of 8 bits at rank 4, three of 5 bits
// at rank 5.
func tdIm2colCornerLimit(rank uint8) int32 {
	switch rank {
	case 3:
		return 1 << 15
	case 4:
		return 1 << 7
	}
	return 1 << 4
}

// tdPackedSwizzleOK reports whether the ALIGN16B packed types allow v's
// swizzle: 16U6_ALIGN16B none, 128B, 128B_atom_32B and (for stores)
// 128B_atom_64B; 16U4_ALIGN16B none, 128B, 128B_atom_32B.
func tdPackedSwizzleOK(v td.Value) bool {
	switch v.Swizzle {
	case td.SwizzleNone, td.Swizzle128B, td.Swizzle128BAtom32B:
		return true
	case td.Swizzle128BAtom64B:
		return v.DType == td.U6Align16B
	}
	return false
}

// tdElementStrideBad reports whether elementStrides[i] is outside [1, 8].
// The documentation says entry 0 is ignored with interleave NONE; the
// driver still refuses 0 and 9 there (driver 580, docs/gpu-runs.md).
func tdElementStrideBad(v td.Value, i int) bool {
	return v.ElementStrides[i] == 0 || v.ElementStrides[i] > 8
}

// tdIm2colExtent is the bounding box's extent along spatial dimension i: the
// corners are offsets from the tensor's first and last pixel.
func tdIm2colExtent(v td.Value, i int) int64 {
	return int64(v.GlobalDim[i+1]) + int64(v.PixelBoxUpper[i]) - int64(v.PixelBoxLower[i])
}

func tdIm2colCorners(v td.Value) int {
	if v.Encoding != td.Im2col {
		return 0
	}
	return v.CornerCount()
}

// tdPTXISAHead opens the ladder: the target gates, the enums, the map's own
// address and the ranks. The groups after it follow the driver
// documentation's parameter order.
var tdPTXISAHead = []Check[td.Value]{
	targetPTXCheck[td.Value](td.Name),
	{Rule: tdRule("compute-capability", "tensor maps require compute capability 9.0 or higher", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Tgt.Arch.SM < 90 }},
	{Rule: tdRule("im2col-wide-cc", "cuTensorMapEncodeIm2colWide requires compute capability 10.0 or higher", srcIm2colW),
		Fires: func(v td.Value) bool { return v.Encoding == td.Im2colWide && v.Tgt.Arch.SM < 100 }},
	{Rule: tdRule("dtype", "tensorDataType is not a CUtensorMapDataType", srcTensorMap),
		Fires: func(v td.Value) bool { return v.DType == td.DTypeReserved }},
	{Rule: tdRule("interleave", "interleave is not a CUtensorMapInterleave", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Interleave == td.InterleaveReserved }},
	{Rule: tdRule("swizzle", "swizzle is not a CUtensorMapSwizzle", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Swizzle == td.SwizzleReserved }},
	{Rule: tdRule("l2-promotion", "l2Promotion is not a CUtensorMapL2promotion", srcTensorMap),
		Fires: func(v td.Value) bool { return v.L2Promotion == td.L2Reserved }},
	{Rule: tdRule("tensormap-align", "tensorMap must be 64-byte aligned", srcTensorMap),
		Fires:  func(v td.Value) bool { return v.TensorMap%64 != 0 },
		Detail: tdHexDetail("tensorMap", func(v td.Value) uint64 { return v.TensorMap })},
	{Rule: tdRule("rank", "tensorRank must be 1 to 5", srcTensorMap),
		Fires:  func(v td.Value) bool { return v.Encoding == td.Tiled && (v.Rank == 0 || v.Rank > 5) },
		Detail: func(v td.Value) string { return fmt.Sprintf(" (tensorRank = %d)", v.Rank) }},
	{Rule: tdRule("rank-im2col", "tensorRank must be 3, 4 or 5 for im2col", srcIm2col),
		Fires:  func(v td.Value) bool { return tdIsIm2col(v) && (v.Rank < 3 || v.Rank > 5) },
		Detail: func(v td.Value) string { return fmt.Sprintf(" (tensorRank = %d)", v.Rank) }},
	{Rule: tdRule("rank-interleave", "tensorRank must be at least 3 when interleave is not NONE", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Interleave != td.InterleaveNone && v.Rank < 3 }},
}

// tdPTXISAGlobal checks the global tensor: address, dimensions, strides.
var tdPTXISAGlobal = []Check[td.Value]{
	{Rule: tdRule("global-align", "globalAddress must be 16-byte aligned", srcTensorMap),
		Fires:  func(v td.Value) bool { return v.GlobalAddress%16 != 0 },
		Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
	{Rule: tdRule("global-align-32", "globalAddress must be 32-byte aligned with interleave 32B or an ALIGN16B type", srcTensorMap),
		Fires:  func(v td.Value) bool { return tdNeeds32B(v) && v.GlobalAddress%32 != 0 },
		Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
	tdArrayCheck(tdRule("global-dim", "globalDim entries must be in [1, 2^32]", srcTensorMap), "globalDim", tdDims,
		func(v td.Value, i int) bool { return v.GlobalDim[i] == 0 || v.GlobalDim[i] > 1<<32 },
		func(v td.Value, i int) string { return tdShowU64(v.GlobalDim[i]) }),
	{Rule: tdRule("global-dim-packed", "globalDim[0] must be a multiple of 128 for the ALIGN16B types and of 2 for 16U4_ALIGN8B", srcTensorMap),
		Fires: func(v td.Value) bool {
			return (v.DType.Align16B() && v.GlobalDim[0]%128 != 0) || (v.DType == td.U4Align8B && v.GlobalDim[0]%2 != 0)
		},
		Detail: func(v td.Value) string { return " (globalDim[0] = " + tdShowU64(v.GlobalDim[0]) + ")" }},
	tdArrayCheck(tdRule("strides", "globalStrides must be multiples of 16 and less than 2^40", srcTensorMap), "globalStrides", tdStrides,
		func(v td.Value, i int) bool { s := v.GlobalStrides[i]; return s%16 != 0 || s >= 1<<40 },
		func(v td.Value, i int) string { return tdShowU64(v.GlobalStrides[i]) }),
	tdArrayCheck(tdRule("strides-32", "globalStrides must be multiples of 32 with interleave 32B or an ALIGN16B type", srcTensorMap), "globalStrides", tdStrides,
		func(v td.Value, i int) bool { return tdNeeds32B(v) && v.GlobalStrides[i]%32 != 0 },
		func(v td.Value, i int) string { return tdShowU64(v.GlobalStrides[i]) }),
}

// tdPTXISABox checks the tiled box, the traversal strides and the layout
// couplings of interleave, swizzle, data type and fill.
var tdPTXISABox = []Check[td.Value]{
	tdArrayCheck(tdRule("box-dim", "boxDim entries must be in [1, 256]", srcTensorMap), "boxDim", tdTiledDims,
		func(v td.Value, i int) bool { return v.BoxDim[i] == 0 || v.BoxDim[i] > 256 },
		func(v td.Value, i int) string { return tdShowU64(uint64(v.BoxDim[i])) }),
	{Rule: tdRule("box-inner-16B", "with interleave NONE, boxDim[0] times the element size must be a multiple of 16 bytes", srcTensorMap),
		Fires: func(v td.Value) bool {
			return v.Encoding == td.Tiled && v.Interleave == td.InterleaveNone && v.InnerBits()%tdChunkBits != 0
		},
		Detail: func(v td.Value) string { return fmt.Sprintf(" (inner dimension %d bits)", v.InnerBits()) }},
	{Rule: tdRule("box-align16b", "boxDim[0] must be 128 for the ALIGN16B types", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Encoding == td.Tiled && v.DType.Align16B() && v.BoxDim[0] != 128 }},
	tdArrayCheck(tdRule("element-strides", "elementStrides entries must be in [1, 8], entry 0 too: the encoder checks it where interleave NONE ignores it", srcTensorMap),
		"elementStrides", tdDims, tdElementStrideBad,
		func(v td.Value, i int) string { return tdShowU64(uint64(v.ElementStrides[i])) }),
	{Rule: tdRule("interleave-32b-swizzle", "interleave 32B requires swizzle 32B", srcTensorMap),
		Fires: func(v td.Value) bool { return v.Interleave == td.Interleave32B && v.Swizzle != td.Swizzle32B }},
	{Rule: tdRule("u6-interleave", "16U6_ALIGN16B requires interleave NONE", srcTensorMap),
		Fires: func(v td.Value) bool { return v.DType == td.U6Align16B && v.Interleave != td.InterleaveNone }},
	{Rule: tdRule("packed-swizzle", "the ALIGN16B types allow swizzle NONE, 128B, 128B_ATOM_32B (and 128B_ATOM_64B for 16U6_ALIGN16B) only", srcTensorMap),
		Fires:  func(v td.Value) bool { return v.DType.Align16B() && !tdPackedSwizzleOK(v) },
		Detail: func(v td.Value) string { return " (" + v.DType.String() + " with " + v.Swizzle.String() + ")" }},
	{Rule: tdRule("oob-fill-float", "oobFill NAN_REQUEST_ZERO_FMA requires a floating-point type", srcTensorMap),
		Fires: func(v td.Value) bool { return v.OOBFill == td.OOBNaN && !v.DType.Float() }},
}

// tdPTXISAIm2col checks the im2col and im2col-wide parameters, then the
// swizzle span against the inner dimension (boxDim[0] or channelsPerPixel).
var tdPTXISAIm2col = []Check[td.Value]{
	tdArrayCheck(tdRule("im2col-corners", "pixelBox corners must be in [-2^15, 2^15) at rank 3, [-128, 128) at rank 4, [-16, 16) at rank 5", srcIm2col),
		"pixelBox corners", tdIm2colCorners,
		func(v td.Value, i int) bool {
			lim := tdIm2colCornerLimit(v.Rank)
			lo, up := v.PixelBoxLower[i], v.PixelBoxUpper[i]
			return lo < -lim || lo >= lim || up < -lim || up >= lim
		},
		func(v td.Value, i int) string { return fmt.Sprintf("%d..%d", v.PixelBoxLower[i], v.PixelBoxUpper[i]) }),
	tdArrayCheck(tdRule("im2col-box-area", "the im2col bounding box must have a non-zero area", srcIm2col),
		"bounding box extent", tdIm2colCorners,
		func(v td.Value, i int) bool { return tdIm2colExtent(v, i) <= 0 },
		func(v td.Value, i int) string { return strconv.FormatInt(tdIm2colExtent(v, i), 10) }),
	{Rule: tdRule("channels-per-pixel", "channelsPerPixel must be in [1, 256]", srcIm2col),
		Fires:  func(v td.Value) bool { return tdIsIm2col(v) && (v.ChannelsPerPixel == 0 || v.ChannelsPerPixel > 256) },
		Detail: func(v td.Value) string { return " (channelsPerPixel = " + tdShowU64(uint64(v.ChannelsPerPixel)) + ")" }},
	{Rule: tdRule("channels-align16b", "channelsPerPixel must be 128 for the ALIGN16B types", srcIm2col),
		Fires: func(v td.Value) bool { return tdIsIm2col(v) && v.DType.Align16B() && v.ChannelsPerPixel != 128 }},
	{Rule: tdRule("pixels-per-column", "pixelsPerColumn must be in [1, 1024]; im2col-wide mode W128 ignores it", srcIm2col),
		Fires: func(v td.Value) bool {
			used := v.Encoding == td.Im2col || (v.Encoding == td.Im2colWide && v.WideMode == td.WideW)
			return used && (v.PixelsPerColumn == 0 || v.PixelsPerColumn > 1024)
		},
		Detail: func(v td.Value) string { return " (pixelsPerColumn = " + tdShowU64(uint64(v.PixelsPerColumn)) + ")" }},
	{Rule: tdRule("im2col-wide-corners", "pixelBoxLowerCornerWidth and pixelBoxUpperCornerWidth must be in [-2^15, 2^15)", srcIm2colW),
		Fires: func(v td.Value) bool {
			lo, up := v.PixelBoxLower[0], v.PixelBoxUpper[0]
			return v.Encoding == td.Im2colWide && (lo < -1<<15 || lo >= 1<<15 || up < -1<<15 || up >= 1<<15)
		},
		Detail: func(v td.Value) string {
			return fmt.Sprintf(" (width corners %d..%d)", v.PixelBoxLower[0], v.PixelBoxUpper[0])
		}},
	{Rule: tdRule("im2col-wide-swizzle", "im2col-wide allows swizzle 64B, 128B or 128B_ATOM_32B only", srcIm2colW),
		Fires: func(v td.Value) bool {
			s := v.Swizzle
			return v.Encoding == td.Im2colWide && s != td.Swizzle64B && s != td.Swizzle128B && s != td.Swizzle128BAtom32B
		},
		Detail: func(v td.Value) string { return " (swizzle " + v.Swizzle.String() + ")" }},
	{Rule: tdRule("swizzle-inner", "with interleave NONE, the box's inner dimension must fit in the swizzle span", srcTensorMap+"; "+srcGuide),
		Fires: func(v td.Value) bool {
			span := v.Swizzle.Span()
			return v.Interleave == td.InterleaveNone && span > 0 && v.InnerBits() > span*8
		},
		Detail: func(v td.Value) string {
			return fmt.Sprintf(" (%d bits > %d bytes of %s)", v.InnerBits(), v.Swizzle.Span(), v.Swizzle)
		}},
}

// tdPTXISAAlign is the programming guide's instruction-level alignment of
// swizzled copies.
var tdPTXISAAlign = []Check[td.Value]{
	{Rule: tdRule("swizzle-global-align", "a swizzled TMA copy needs a 128-byte aligned global address", srcGuide),
		Fires:  func(v td.Value) bool { return v.Swizzle != td.SwizzleNone && v.GlobalAddress%128 != 0 },
		Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
	{Rule: tdRule("smem-align", "the shared-memory destination must be 128-byte aligned, with or without a swizzle", srcGuide),
		Fires: func(v td.Value) bool { return v.SMemAddress%tdSMemAlign != 0 },
		Detail: func(v td.Value) string {
			return fmt.Sprintf(" (0x%x is not %dB-aligned)", v.SMemAddress, tdSMemAlign)
		}},
}

// tdSMemAlign is the shared-memory alignment of a TMA copy's destination:
// the programming guide asks 128 bytes for every swizzle mode, and an H200
// faulted (misaligned address) on a 16-byte-aligned destination without a
// swizzle (docs/gpu-runs.md).
const tdSMemAlign = 128

// tmadescPTXISA judges descriptors from the driver documentation and the
// programming guide; on accept it carries the tile's byte size.
var tmadescPTXISA = &Ladder[td.Value]{Set: PTXISA, Domain: td.Name,
	Value:  func(v td.Value) string { return strconv.FormatUint(tdTileBytes(v), 10) },
	Checks: tdConcat(tdPTXISAHead, tdPTXISAGlobal, tdPTXISABox, tdPTXISAIm2col, tdPTXISAAlign),
}

func tdConcat[V any](parts ...[]Check[V]) []Check[V] {
	var all []Check[V]
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// tdTileBytes is the shared-memory footprint of one copy through v, the value
// an accepted descriptor carries. Tiled: the product over dimensions of
// ceil(boxDim[i] / elementStrides[i]) elements (elementStrides[0] counts as
// 1 under interleave NONE, which ignores it), times the element's shared
// size, rounded up to whole bytes. Im2col: channelsPerPixel ×
// pixelsPerColumn elements; im2col-wide mode W128 loads 128 pixels per
// column (our reading: the driver ignores pixelsPerColumn there).
func tdTileBytes(v td.Value) uint64 {
	elems := uint64(1)
	switch {
	case v.Encoding == td.Tiled:
		for i := range v.Dims() {
			es := uint64(max(v.ElementStrides[i], 1))
			if i == 0 && v.Interleave == td.InterleaveNone {
				es = 1
			}
			elems *= (uint64(v.BoxDim[i]) + es - 1) / es
		}
	case v.Encoding == td.Im2colWide && v.WideMode == td.WideW128:
		elems = uint64(v.ChannelsPerPixel) * 128
	default:
		elems = uint64(v.ChannelsPerPixel) * uint64(v.PixelsPerColumn)
	}
	return (elems*v.DType.SMemBits() + 7) / 8
}

func init() { registerSelfCheck(td.Name, tdCheckSwizzleInner) }

// tdCheckSwizzleInner checks the closed-form swizzle inner-dimension bound of
// both sets (inner bits <= span * 8) against brute force: the box's inner
// row, laid out from a span-aligned start, stays inside one swizzle span
// exactly when every element's last byte lies in the first span.
func tdCheckSwizzleInner(val td.Value) error {
	span := val.Swizzle.Span()
	if span == 0 {
		return nil
	}
	elems := uint64(val.BoxDim[0])
	if val.Encoding != td.Tiled {
		elems = uint64(val.ChannelsPerPixel)
	}
	bits := val.DType.SMemBits()
	// Past span*8/bits elements the row has left the span; look one further.
	limit := min(elems, span*8/bits+1)
	inside := true
	for e := range limit {
		if last := ((e+1)*bits - 1) / 8; last >= span {
			inside = false
			break
		}
	}
	closed := val.InnerBits() <= span*8
	if inside != closed {
		return fmt.Errorf("swizzle %s, %d elements of %d bits: brute force says inside=%v, closed form %v",
			val.Swizzle, elems, bits, inside, closed)
	}
	if closed == tdSeedInnerTooWide(val) && val.Encoding == td.Tiled {
		return fmt.Errorf("seed swizzle-inner rule disagrees with the closed form for %v", val)
	}
	return nil
}
