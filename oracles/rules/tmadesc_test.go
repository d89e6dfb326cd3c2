package rules

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

func tdT(f func(*td.Value)) td.Value  { return td.With(td.BaseTiled, f) }
func tdIL(f func(*td.Value)) td.Value { return td.With(td.BaseInterleaved, f) }
func tdI2(f func(*td.Value)) td.Value { return td.With(td.BaseIm2col, f) }
func tdW(f func(*td.Value)) td.Value  { return td.With(td.BaseWide, f) }

// tdA16 is BaseTiled as a legal ALIGN16B tile (128-element rows), changed by f.
func tdA16(d td.DType, f func(*td.Value)) td.Value {
	return tdT(func(v *td.Value) { v.DType, v.BoxDim[0], v.GlobalStrides[0] = d, 128, 128; f(v) })
}

func TestTMADescSeedRules(t *testing.T) {
	const claim8 = "Proposal accounts for TMA swizzle constraints such as **global alignment 128B**, shared alignment requirements, and “instruction invalid if inner dimension requirements are violated.”"
	runFiringRows(t, tmadescSeed, []ruleRow[td.Value]{
		{"rank 6", tdT(func(v *td.Value) { v.Rank = 6 }), "seed.tmadesc.1-rank-max",
			"TMA tensor-map creation via `cuTensorMapEncodeTiled` requires `tensorRank ≤ 5`. (tensorRank = 6)"},
		{"rank 0", tdT(func(v *td.Value) { v.Rank = 0 }), "seed.tmadesc.1-rank-nonzero",
			"CUDA Driver API requires `tensorRank` non-zero and ≤ 5"},
		{"interleave at rank 2", tdT(func(v *td.Value) { v.Interleave = td.Interleave16B }), "seed.tmadesc.1-rank-interleave",
			"if interleave is not NONE, `tensorRank` must be ≥ 3 (interleave 16B, tensorRank = 2)"},
		{"tensorMap 32B-aligned", tdT(func(v *td.Value) { v.TensorMap = 0x1020 }), "seed.tmadesc.2-tensormap-align",
			"TMA descriptor object (`tensorMap`) must be 64B-aligned. (tensorMap = 0x1020)"},
		{"globalAddress 8B-aligned", tdT(func(v *td.Value) { v.GlobalAddress = 0x100008 }), "seed.tmadesc.3-global-align",
			"TMA `globalAddress` must be 16B-aligned (often 32B in some modes). (globalAddress = 0x100008)"},
		{"interleave 32B, 16B-aligned", tdIL(func(v *td.Value) { v.GlobalAddress = 0x100010 }), "seed.tmadesc.3-global-align-interleave",
			"Driver API: `globalAddress` must be 16B-aligned; must be 32B-aligned when `interleave` is 32B (and for certain packed types). (globalAddress = 0x100010)"},
		{"stride 520", tdT(func(v *td.Value) { v.GlobalStrides[0] = 520 }), "seed.tmadesc.4-strides",
			"TMA `globalStrides` must be multiples of 16 and `< 2^40`. (globalStrides[0] = 520)"},
		{"stride 2^40", tdT(func(v *td.Value) { v.GlobalStrides[0] = 1 << 40 }), "seed.tmadesc.4-strides",
			"TMA `globalStrides` must be multiples of 16 and `< 2^40`. (globalStrides[0] = 1099511627776)"},
		{"interleave 32B, stride 528", tdIL(func(v *td.Value) { v.GlobalStrides[0] = 528 }), "seed.tmadesc.4-strides-interleave",
			"Driver API: strides must be multiples of 16 and `< 2^40`; also must be multiples of 32 under `interleave=32B` (and certain packed types). (globalStrides[0] = 528)"},
		{"boxDim 300", tdT(func(v *td.Value) { v.BoxDim[1] = 300 }), "seed.tmadesc.5-box-dim", "TMA `boxDim ≤ 256`. (boxDim[1] = 300)"},
		{"boxDim 0", tdT(func(v *td.Value) { v.BoxDim[1] = 0 }), "seed.tmadesc.5-box-dim-nonzero",
			"Driver API: each `boxDim[i]` must be non-zero and ≤ 256. (boxDim[1] = 0)"},
		{"elementStrides 9", tdT(func(v *td.Value) { v.ElementStrides[1] = 9 }), "seed.tmadesc.6-element-strides",
			"TMA `elementStrides ≤ 8`. (elementStrides[1] = 9)"},
		{"elementStrides[0] 0", tdT(func(v *td.Value) { v.ElementStrides[0] = 0 }), "seed.tmadesc.6-element-strides-nonzero",
			"Driver API: each `elementStrides[i]` non-zero and ≤ 8. (elementStrides[0] = 0)"},
		{"inner 256 bytes under 128B", tdT(func(v *td.Value) { v.BoxDim[0] = 128 }), "seed.tmadesc.7-swizzle-inner",
			"“Additional swizzle/interleave coupling and inner-dimension bounds” affect legality. (box inner dimension 2048 bits exceeds the 128B swizzle span of 128 bytes)"},
		{"interleaved inner 64 bytes under 32B", tdIL(func(v *td.Value) { v.BoxDim[0] = 32 }), "seed.tmadesc.7-swizzle-inner",
			"“Additional swizzle/interleave coupling and inner-dimension bounds” affect legality. (box inner dimension 512 bits exceeds the 32B swizzle span of 32 bytes)"},
		{"swizzled global 64B-aligned", tdT(func(v *td.Value) { v.GlobalAddress = 0x100040 }), "seed.tmadesc.8-swizzle-global-align",
			claim8 + " (globalAddress = 0x100040)"},
		{"swizzled smem 16B-aligned", tdT(func(v *td.Value) { v.SMemAddress = 0x410 }), "seed.tmadesc.8-swizzle-smem-align",
			"shared-memory alignment and inner-dimension requirements are stated (shared address 0x410 is not 128B-aligned)"},
		{"sm_80", tdT(func(v *td.Value) { v.Tgt = target.MustParse("sm_80", "") }), "seed.tmadesc.24-compute-capability",
			"Tensor map objects are only supported on compute capability 9.0+ devices. (sm_80)"},
		{"fail-first: rank 0 on sm_80", tdT(func(v *td.Value) { v.Rank, v.Tgt = 0, target.MustParse("sm_80", "") }),
			"seed.tmadesc.1-rank-nonzero", "CUDA Driver API requires `tensorRank` non-zero and ≤ 5"},
	})
}

func TestTMADescPTXISARules(t *testing.T) {
	const (
		cc          = "tensor maps require compute capability 9.0 or higher"
		packedSwz   = "the ALIGN16B types allow swizzle NONE, 128B, 128B_ATOM_32B (and 128B_ATOM_64B for 16U6_ALIGN16B) only"
		pixels      = "pixelsPerColumn must be in [1, 1024]; im2col-wide mode W128 ignores it"
		wideSwizzle = "im2col-wide allows swizzle 64B, 128B or 128B_ATOM_32B only"
		inner       = "with interleave NONE, the box's inner dimension must fit in the swizzle span"
		smem        = "the shared-memory destination must be 128-byte aligned, with or without a swizzle"
		gdim        = "globalDim entries must be in [1, 2^32]"
	)
	runFiringRows(t, tmadescPTXISA, []ruleRow[td.Value]{
		{"PTX 7.0 on sm_90", tdT(func(v *td.Value) { v.Tgt = target.MustParse("sm_90", "7.0") }), "ptxisa.tmadesc.target-ptx-version",
			"PTX ISA version does not know the .target: sm_90 (PTX 7.0)"},
		{"sm_89", tdT(func(v *td.Value) { v.Tgt = target.MustParse("sm_89", "") }), "ptxisa.tmadesc.compute-capability", cc},
		{"im2col_wide on sm_90a", tdW(func(v *td.Value) { v.Tgt = target.MustParse("sm_90a", "") }), "ptxisa.tmadesc.im2col-wide-cc",
			"cuTensorMapEncodeIm2colWide requires compute capability 10.0 or higher"},
		{"reserved dtype", tdT(func(v *td.Value) { v.DType = td.DTypeReserved }), "ptxisa.tmadesc.dtype", "tensorDataType is not a CUtensorMapDataType"},
		{"reserved interleave", tdT(func(v *td.Value) { v.Interleave = td.InterleaveReserved }), "ptxisa.tmadesc.interleave", "interleave is not a CUtensorMapInterleave"},
		{"reserved swizzle", tdT(func(v *td.Value) { v.Swizzle = td.SwizzleReserved }), "ptxisa.tmadesc.swizzle", "swizzle is not a CUtensorMapSwizzle"},
		{"reserved l2", tdT(func(v *td.Value) { v.L2Promotion = td.L2Reserved }), "ptxisa.tmadesc.l2-promotion", "l2Promotion is not a CUtensorMapL2promotion"},
		{"tensorMap 0x1020", tdT(func(v *td.Value) { v.TensorMap = 0x1020 }), "ptxisa.tmadesc.tensormap-align", "tensorMap must be 64-byte aligned (tensorMap = 0x1020)"},
		{"tiled rank 6", tdT(func(v *td.Value) { v.Rank = 6 }), "ptxisa.tmadesc.rank", "tensorRank must be 1 to 5 (tensorRank = 6)"},
		{"im2col rank 2", tdI2(func(v *td.Value) { v.Rank = 2 }), "ptxisa.tmadesc.rank-im2col", "tensorRank must be 3, 4 or 5 for im2col (tensorRank = 2)"},
		{"interleave at rank 2", tdT(func(v *td.Value) { v.Interleave = td.Interleave16B }), "ptxisa.tmadesc.rank-interleave",
			"tensorRank must be at least 3 when interleave is not NONE"},
		{"global 0x100008", tdT(func(v *td.Value) { v.GlobalAddress = 0x100008 }), "ptxisa.tmadesc.global-align",
			"globalAddress must be 16-byte aligned (globalAddress = 0x100008)"},
		{"ALIGN16B global 0x100010", tdA16(td.U4Align16B, func(v *td.Value) { v.GlobalAddress = 0x100010 }), "ptxisa.tmadesc.global-align-32",
			"globalAddress must be 32-byte aligned with interleave 32B or an ALIGN16B type (globalAddress = 0x100010)"},
		{"globalDim 0", tdT(func(v *td.Value) { v.GlobalDim[0] = 0 }), "ptxisa.tmadesc.global-dim", gdim + " (globalDim[0] = 0)"},
		{"globalDim 2^32+1", tdT(func(v *td.Value) { v.GlobalDim[1] = 1<<32 + 1 }), "ptxisa.tmadesc.global-dim", gdim + " (globalDim[1] = 4294967297)"},
		{"16U4_ALIGN8B odd width", tdT(func(v *td.Value) { v.DType, v.BoxDim[0], v.GlobalDim[0] = td.U4Align8B, 256, 255 }),
			"ptxisa.tmadesc.global-dim-packed", "globalDim[0] must be a multiple of 128 for the ALIGN16B types and of 2 for 16U4_ALIGN8B (globalDim[0] = 255)"},
		{"stride 2^40", tdT(func(v *td.Value) { v.GlobalStrides[0] = 1 << 40 }), "ptxisa.tmadesc.strides",
			"globalStrides must be multiples of 16 and less than 2^40 (globalStrides[0] = 1099511627776)"},
		{"ALIGN16B stride 144", tdA16(td.U4Align16B, func(v *td.Value) { v.GlobalStrides[0] = 144 }), "ptxisa.tmadesc.strides-32",
			"globalStrides must be multiples of 32 with interleave 32B or an ALIGN16B type (globalStrides[0] = 144)"},
		{"boxDim 257", tdT(func(v *td.Value) { v.BoxDim[1] = 257 }), "ptxisa.tmadesc.box-dim", "boxDim entries must be in [1, 256] (boxDim[1] = 257)"},
		{"inner 8 bytes", tdT(func(v *td.Value) { v.BoxDim[0] = 4 }), "ptxisa.tmadesc.box-inner-16B",
			"with interleave NONE, boxDim[0] times the element size must be a multiple of 16 bytes (inner dimension 64 bits)"},
		{"ALIGN16B box 64", tdA16(td.U4Align16B, func(v *td.Value) { v.BoxDim[0] = 64 }), "ptxisa.tmadesc.box-align16b",
			"boxDim[0] must be 128 for the ALIGN16B types"},
		{"interleaved elementStrides[0] 0", tdIL(func(v *td.Value) { v.ElementStrides[0] = 0 }), "ptxisa.tmadesc.element-strides",
			"elementStrides entries must be in [1, 8], entry 0 too: the encoder checks it where interleave NONE ignores it (elementStrides[0] = 0)"},
		// Driver 580 refused this one (docs/gpu-runs.md).
		{"elementStrides[0] 0 with interleave NONE", tdT(func(v *td.Value) { v.ElementStrides[0] = 0 }), "ptxisa.tmadesc.element-strides",
			"elementStrides entries must be in [1, 8], entry 0 too: the encoder checks it where interleave NONE ignores it (elementStrides[0] = 0)"},
		{"interleave 32B without swizzle", tdIL(func(v *td.Value) { v.Swizzle = td.SwizzleNone }), "ptxisa.tmadesc.interleave-32b-swizzle",
			"interleave 32B requires swizzle 32B"},
		{"16U6 interleaved", tdA16(td.U6Align16B, func(v *td.Value) {
			v.Rank, v.GlobalDim[2], v.GlobalStrides[1], v.BoxDim[2], v.ElementStrides[2], v.Interleave = 3, 4, 32768, 4, 1, td.Interleave16B
		}), "ptxisa.tmadesc.u6-interleave", "16U6_ALIGN16B requires interleave NONE"},
		{"16U4_ALIGN16B 128B_atom_64B", tdA16(td.U4Align16B, func(v *td.Value) { v.Swizzle = td.Swizzle128BAtom64B }),
			"ptxisa.tmadesc.packed-swizzle", packedSwz + " (16u4_align16b with 128B_atom_64B)"},
		{"16U6_ALIGN16B 32B", tdA16(td.U6Align16B, func(v *td.Value) { v.Swizzle = td.Swizzle32B }),
			"ptxisa.tmadesc.packed-swizzle", packedSwz + " (16u6_align16b with 32B)"},
		{"uint16 NaN fill", tdT(func(v *td.Value) { v.DType, v.OOBFill = td.UInt16, td.OOBNaN }), "ptxisa.tmadesc.oob-fill-float",
			"oobFill NAN_REQUEST_ZERO_FMA requires a floating-point type"},
		{"rank-4 corner -129", tdI2(func(v *td.Value) { v.PixelBoxLower[1] = -129 }), "ptxisa.tmadesc.im2col-corners",
			"pixelBox corners must be in [-2^15, 2^15) at rank 3, [-128, 128) at rank 4, [-16, 16) at rank 5 (pixelBox corners[1] = -129..-1)"},
		{"zero extent", tdI2(func(v *td.Value) { v.PixelBoxLower[0], v.PixelBoxUpper[0] = 0, -32 }), "ptxisa.tmadesc.im2col-box-area",
			"the im2col bounding box must have a non-zero area (bounding box extent[0] = 0)"},
		{"channels 257", tdI2(func(v *td.Value) { v.ChannelsPerPixel = 257 }), "ptxisa.tmadesc.channels-per-pixel",
			"channelsPerPixel must be in [1, 256] (channelsPerPixel = 257)"},
		{"ALIGN16B channels 64", tdI2(func(v *td.Value) {
			v.DType, v.GlobalDim[0], v.GlobalStrides = td.U4Align16B, 128, [td.MaxDims - 1]uint64{64, 2048, 65536}
		}), "ptxisa.tmadesc.channels-align16b", "channelsPerPixel must be 128 for the ALIGN16B types"},
		{"pixels 1025", tdI2(func(v *td.Value) { v.PixelsPerColumn = 1025 }), "ptxisa.tmadesc.pixels-per-column", pixels + " (pixelsPerColumn = 1025)"},
		{"wide W pixels 0", tdW(func(v *td.Value) { v.PixelsPerColumn = 0 }), "ptxisa.tmadesc.pixels-per-column", pixels + " (pixelsPerColumn = 0)"},
		{"wide corner -40000", tdW(func(v *td.Value) { v.PixelBoxLower[0] = -40000 }), "ptxisa.tmadesc.im2col-wide-corners",
			"pixelBoxLowerCornerWidth and pixelBoxUpperCornerWidth must be in [-2^15, 2^15) (width corners -40000..-1)"},
		{"wide swizzle none", tdW(func(v *td.Value) { v.Swizzle = td.SwizzleNone }), "ptxisa.tmadesc.im2col-wide-swizzle", wideSwizzle + " (swizzle none)"},
		{"tiled inner 256 bytes", tdT(func(v *td.Value) { v.BoxDim[0] = 128 }), "ptxisa.tmadesc.swizzle-inner", inner + " (2048 bits > 128 bytes of 128B)"},
		{"im2col 128 channels", tdI2(func(v *td.Value) { v.ChannelsPerPixel = 128 }), "ptxisa.tmadesc.swizzle-inner", inner + " (2048 bits > 128 bytes of 128B)"},
		{"global 0x100040", tdT(func(v *td.Value) { v.GlobalAddress = 0x100040 }), "ptxisa.tmadesc.swizzle-global-align",
			"a swizzled TMA copy needs a 128-byte aligned global address (globalAddress = 0x100040)"},
		{"swizzled smem 0x410", tdT(func(v *td.Value) { v.SMemAddress = 0x410 }), "ptxisa.tmadesc.smem-align", smem + " (0x410 is not 128B-aligned)"},
		{"plain smem 0x408", tdT(func(v *td.Value) { v.Swizzle, v.SMemAddress = td.SwizzleNone, 0x408 }), "ptxisa.tmadesc.smem-align", smem + " (0x408 is not 128B-aligned)"},
		// The H200 faulted on this one (docs/gpu-runs.md).
		{"plain smem 0x410", tdT(func(v *td.Value) { v.Swizzle, v.SMemAddress = td.SwizzleNone, 0x410 }), "ptxisa.tmadesc.smem-align", smem + " (0x410 is not 128B-aligned)"},
	})
}

// TestTMADescDisagreements pins the cases where the two sets part: each is a
// claim of seed 000 that the campaign's real tools must settle.
func TestTMADescDisagreements(t *testing.T) {
	runDisagreements(t, tmadescSeed, tmadescPTXISA, []disagreement[td.Value]{
		{"interleaved box wider than the swizzle", tdIL(func(v *td.Value) { v.BoxDim[0] = 32 }), "seed.tmadesc.7-swizzle-inner", ""},
		{"im2col corners beyond rank 4's range", tdI2(func(v *td.Value) { v.PixelBoxUpper[0] = 200 }), "", "ptxisa.tmadesc.im2col-corners"},
		{"16U4_ALIGN16B at 16B", tdA16(td.U4Align16B, func(v *td.Value) { v.Swizzle, v.GlobalAddress = td.SwizzleNone, 0x100010 }), "", "ptxisa.tmadesc.global-align-32"},
		{"im2col_wide on sm_90", tdW(func(v *td.Value) { v.Tgt = target.MustParse("sm_90", "") }), "", "ptxisa.tmadesc.im2col-wide-cc"},
	})
}

// TestTMADescAccepted pins accepted descriptors and their tile byte sizes.
func TestTMADescAccepted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v     td.Value
		bytes string
	}{
		{"64x64 float16, 128B swizzle", td.BaseTiled, "8192"},
		{"interleave 32B 16x16x4", td.BaseInterleaved, "2048"},
		{"im2col 64 channels x 128 pixels", td.BaseIm2col, "16384"},
		{"im2col_wide W", td.BaseWide, "16384"},
		{"im2col_wide W128 ignores pixelsPerColumn", tdW(func(v *td.Value) {
			v.WideMode, v.PixelsPerColumn, v.Swizzle, v.ChannelsPerPixel = td.WideW128, 0, td.Swizzle64B, 32
		}), "8192"},
		{"element strides shrink the tile", tdT(func(v *td.Value) {
			v.Rank, v.GlobalDim[2], v.GlobalStrides[1], v.BoxDim[2], v.ElementStrides = 3, 4, 131072, 3, [td.MaxDims]uint32{5, 3, 2}
		}), "5632"}, // 64 (stride 0 ignored) * ceil(64/3)=22 * ceil(3/2)=2 * 2 bytes
		{"16U4_ALIGN8B packs two per byte", tdT(func(v *td.Value) { v.DType, v.BoxDim[0] = td.U4Align8B, 256 }), "8192"},
		{"16U6_ALIGN16B takes a byte each", tdA16(td.U6Align16B, func(v *td.Value) {}), "8192"},
		{"globalDim 2^32", tdT(func(v *td.Value) { v.GlobalDim[1] = 1 << 32 }), "8192"},
		{"rank 1 without swizzle", tdT(func(v *td.Value) { v.Rank, v.Swizzle, v.BoxDim[0] = 1, td.SwizzleNone, 8 }), "16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkAcceptsAll(t, tmadescPTXISA, tc.v, tc.bytes)
			checkAcceptsAll(t, tmadescSeed, tc.v, "")
		})
	}
}

// TestTMADescSwizzleInnerSelfCheck runs the brute-force check across the
// bound for every element size and span, and on the domain's seeds.
func TestTMADescSwizzleInnerSelfCheck(t *testing.T) {
	for _, d := range []td.DType{td.UInt8, td.Float16, td.Float32, td.Float64, td.U4Align8B, td.U6Align16B} {
		for _, s := range []td.Swizzle{td.Swizzle32B, td.Swizzle64B, td.Swizzle128B, td.Swizzle128BAtom64B} {
			for box := uint32(0); box <= 300; box++ {
				v := tdT(func(v *td.Value) { v.DType, v.Swizzle, v.BoxDim[0] = d, s, box })
				if err := SelfCheck(td.Name, v); err != nil {
					t.Fatal(err)
				}
				w := tdI2(func(v *td.Value) { v.DType, v.Swizzle, v.ChannelsPerPixel = d, s, box })
				if err := SelfCheck(td.Name, w); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, v := range td.Seeds() {
		if err := SelfCheck(td.Name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := SelfCheck(td.Name, 42); err == nil {
		t.Fatal("self-check accepted a non-tmadesc value")
	}
}
