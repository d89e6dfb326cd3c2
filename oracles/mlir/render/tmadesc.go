package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

func init() { renderers[td.Name] = typed(renderTMADesc) }

// tmaElems are the memref element types of each CUtensorMapDataType
// (spelledAs picks one): an integer type in each signedness MLIR has that
// means it, and for UINT8, the type CUTLASS copies FP8 tensors as, MLIR's
// 8-bit floats too. tf32 parses and verifies but the lowering has no enum
// for it (that is the tool's to answer for).
var tmaElems = map[td.DType][]string{
	td.UInt8: {"ui8", "i8", "f8E4M3FN", "f8E5M2"}, td.UInt16: {"ui16", "i16"}, td.UInt32: {"ui32"},
	td.Int32: {"i32", "si32"}, td.UInt64: {"ui64"}, td.Int64: {"i64", "si64"},
	td.Float16: {"f16"}, td.Float32: {"f32"}, td.Float64: {"f64"}, td.BFloat16: {"bf16"}, td.TFloat32: {"tf32"},
}

var (
	tmaSwizzles    = map[td.Swizzle]string{td.SwizzleNone: "none", td.Swizzle32B: "swizzle_32b", td.Swizzle64B: "swizzle_64b", td.Swizzle128B: "swizzle_128b"}
	tmaInterleaves = map[td.Interleave]string{td.InterleaveNone: "none", td.Interleave16B: "interleave_16b", td.Interleave32B: "interleave_32b"}
	tmaL2          = []string{"none", "l2promo_64b", "l2promo_128b", "l2promo_256b"}
	tmaOOB         = map[td.OOBFill]string{td.OOBNone: "zero", td.OOBNaN: "nan"}
)

// tmaDescriptorType spells !nvgpu.tensormap.descriptor for a value: the box
// as a shared memref (outermost dimension first), and the enums.
func tmaDescriptorType(v td.Value, box []int64, elem string) (string, error) {
	sw, ok := tmaSwizzles[v.Swizzle]
	if !ok {
		return "", unsupported("swizzle", "no-nvgpu-kind", "nvgpu has no swizzle kind for %s", v.Swizzle)
	}
	il, ok := tmaInterleaves[v.Interleave]
	if !ok {
		return "", unsupported("interleave", "no-nvgpu-kind", "nvgpu has no interleave kind for %s", v.Interleave)
	}
	if int(v.L2Promotion) >= len(tmaL2) {
		return "", unsupported("l2_promotion", "no-nvgpu-kind", "nvgpu has no L2 promotion kind for %s", v.L2Promotion)
	}
	oob, ok := tmaOOB[v.OOBFill]
	if !ok {
		return "", unsupported("oob_fill", "no-nvgpu-kind", "nvgpu has no OOB fill kind for %s", v.OOBFill)
	}
	return fmt.Sprintf("!nvgpu.tensormap.descriptor<tensor = %s, swizzle = %s, l2promo = %s, oob = %s, interleave = %s>",
		memrefType(box, elem, 3), sw, tmaL2[v.L2Promotion], oob, il), nil
}

// renderTMADesc spells a tiled descriptor request: host code creates it with
// nvgpu.tma.create.descriptor over the global tensor (at the value's
// address, with its dimensions and byte strides), and the kernel loads one
// box through it (the CUtensorMap at the value's address) into shared memory
// at the value's destination address, at coordinates that are kernel
// parameters, one each (so the value check tells them apart in the PTX). nvgpu has no im2col encodings and no
// element strides (it always passes 1). Ranks above 5 are spelled with the
// entries past the fifth as 1.
func renderTMADesc(v td.Value) (Kernel, error) {
	if v.Encoding != td.Tiled {
		return Kernel{}, unsupported("encoding", "not-tiled", "nvgpu.tma.create.descriptor encodes tiled maps only, not %s", v.Encoding)
	}
	elems, ok := tmaElems[v.DType]
	elem := spelledAs(v, elems)
	if !ok {
		return Kernel{}, unsupported("dtype", "no-element-type", "MLIR has no element type for CUtensorMapDataType %s", v.DType)
	}
	for i := range v.Dims() {
		if v.ElementStrides[i] != 1 {
			return Kernel{}, unsupported("element_strides", "not-one", "nvgpu.tma.create.descriptor has no element strides (always 1): elementStrides[%d] = %d", i, v.ElementStrides[i])
		}
	}
	box := make([]int64, v.Rank)
	for i := range box {
		box[i] = 1
		if d := int(v.Rank) - 1 - i; d < td.MaxDims {
			box[i] = int64(v.BoxDim[d])
		}
	}
	tm, err := tmaDescriptorType(v, box, elem)
	if err != nil {
		return Kernel{}, err
	}
	host, err := tmaHost(v, box, elem, tm)
	if err != nil {
		return Kernel{}, err
	}
	b := newBody("      ")
	desc := b.castPtr(v.TensorMap, 0, tm)
	dst, dstType := b.memrefAt(uint64(v.SMemAddress), box, elem, 3)
	mb := b.val("nvgpu.mbarrier.create -> %s", mbarrierType)
	c0 := b.index(0)
	coords := numbered("%x", len(box))
	b.op("nvgpu.tma.async.load %s[%s], %s[%s] to %s : %s, %s -> %s",
		desc, strings.Join(coords, ", "), mb, c0, dst, tm, mbarrierType, dstType)
	params := make([]string, len(coords))
	for i, c := range coords {
		params[i] = c + ": index"
	}
	return Kernel{Host: host, Params: strings.Join(params, ", "), Body: b.String(), MinPTX: tmaLoadPTX}, nil
}

// tmaLoadPTX is the PTX ISA version of cp.async.bulk.tensor, which the
// kernel's nvgpu.tma.async.load lowers to (PTX ISA 9.7.9.27.1.2).
const tmaLoadPTX target.PTX = 80

// mbarrierType is the barrier group TMA loads complete on.
const mbarrierType = "!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>"

// repeat lists s n times, comma separated.
func repeat(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+", ", n), ", ")
}

// tmaHost is the host function creating the descriptor from the global
// tensor: its dimensions (outermost first) and its strides in elements,
// which is how memrefs count them.
func tmaHost(v td.Value, box []int64, elem, tm string) (string, error) {
	elemBytes := max(v.DType.GlobalBits()/8, 1)
	rank := len(box)
	shape, strides := make([]int64, rank), make([]int64, rank)
	stride := int64(1)
	for i := rank - 1; i >= 0; i-- {
		d := rank - 1 - i
		dim, s := uint64(1), uint64(stride)
		if d < td.MaxDims {
			dim = v.GlobalDim[d]
		}
		if d > 0 && d < td.MaxDims {
			s = v.GlobalStrides[d-1]
			if s == 0 {
				// MLIR's strided layout itself refuses a zero stride ("strides
				// must not be zero"): MLIR cannot spell the tensor, which says
				// nothing about its TMA descriptor checks.
				return "", unsupported("global_strides", "zero", "a memref's strided layout has no zero stride: globalStrides[%d] = 0", d-1)
			}
			if s%elemBytes != 0 {
				return "", unsupported("global_strides", "not-element-multiple", "memref strides count elements: globalStrides[%d] = %d B is not a multiple of %d B", d-1, s, elemBytes)
			}
			s /= elemBytes
		}
		if dim > math.MaxInt64 || s > math.MaxInt64 {
			return "", unsupported("global_dims", "beyond-i64", "global dimension or stride beyond a signed 64-bit index")
		}
		shape[i], strides[i], stride = int64(dim), int64(s), int64(s)
	}
	b := newBody("    ")
	g, gType := b.stridedAt(v.GlobalAddress, shape, strides, elem, 0)
	u := b.val("memref.cast %s : %s to memref<*x%s>", g, gType, elem)
	dims := make([]string, rank)
	for i, d := range box {
		dims[i] = b.index(d)
	}
	b.val("nvgpu.tma.create.descriptor %s box[%s] : memref<*x%s> -> %s", u, strings.Join(dims, ", "), elem, tm)
	return "  func.func @host() {\n" + b.String() + "    return\n  }\n", nil
}
