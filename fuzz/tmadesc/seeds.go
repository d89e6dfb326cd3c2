package tmadesc

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Legal base descriptors the seeds and tests change one field at a time.
var (
	// BaseTiled is a 256x256 float16 tensor read in 64x64 boxes with 128B
	// swizzle: the box's inner row is exactly one 128-byte span.
	BaseTiled = Value{Encoding: Tiled, DType: Float16, Rank: 2, TensorMap: DefaultTensorMap,
		GlobalAddress: DefaultGlobalAddress, GlobalDim: [MaxDims]uint64{256, 256},
		GlobalStrides: [MaxDims - 1]uint64{512}, BoxDim: [MaxDims]uint32{64, 64},
		ElementStrides: [MaxDims]uint32{1, 1}, Swizzle: Swizzle128B, SMemAddress: DefaultSMemAddress,
		Tgt: target.MustParse("sm_90", "")}
	// BaseInterleaved is a rank-3 float16 tensor with interleave 32B, which
	// needs swizzle 32B; its 16-element box row is one 32-byte span.
	BaseInterleaved = Value{Encoding: Tiled, DType: Float16, Rank: 3, TensorMap: DefaultTensorMap,
		GlobalAddress: DefaultGlobalAddress, GlobalDim: [MaxDims]uint64{256, 256, 4},
		GlobalStrides: [MaxDims - 1]uint64{512, 131072}, BoxDim: [MaxDims]uint32{16, 16, 4},
		ElementStrides: [MaxDims]uint32{1, 1, 1}, Interleave: Interleave32B, Swizzle: Swizzle32B,
		SMemAddress: DefaultSMemAddress, Tgt: target.MustParse("sm_90", "")}
	// BaseIm2col is an NHWC float16 tensor (C=64, W=H=32, N=8) with a 3x3
	// filter's padding-1 corners: 64 channels of 128 pixels per copy.
	BaseIm2col = Value{Encoding: Im2col, DType: Float16, Rank: 4, TensorMap: DefaultTensorMap,
		GlobalAddress: DefaultGlobalAddress, GlobalDim: [MaxDims]uint64{64, 32, 32, 8},
		GlobalStrides: [MaxDims - 1]uint64{128, 4096, 131072}, ElementStrides: [MaxDims]uint32{1, 1, 1, 1},
		PixelBoxLower: [3]int32{-1, -1}, PixelBoxUpper: [3]int32{-1, -1}, ChannelsPerPixel: 64,
		PixelsPerColumn: 128, Swizzle: Swizzle128B, SMemAddress: DefaultSMemAddress,
		Tgt: target.MustParse("sm_90", "")}
	// BaseWide is an NWC float16 tensor encoded for im2col-wide mode W on sm_100a.
	BaseWide = Value{Encoding: Im2colWide, DType: Float16, Rank: 3, TensorMap: DefaultTensorMap,
		GlobalAddress: DefaultGlobalAddress, GlobalDim: [MaxDims]uint64{64, 32, 8},
		GlobalStrides: [MaxDims - 1]uint64{128, 4096}, ElementStrides: [MaxDims]uint32{1, 1, 1},
		PixelBoxLower: [3]int32{-1}, PixelBoxUpper: [3]int32{-1}, ChannelsPerPixel: 64,
		PixelsPerColumn: 128, Swizzle: Swizzle128B, SMemAddress: DefaultSMemAddress,
		Tgt: target.MustParse("sm_100a", "")}
)

// Normalize returns v with the entries past their counts and the fields
// its encoding does not take zeroed, as decoding its bytes gives it.
func Normalize(v Value) Value { return fields.Normalize(v) }

// UnmarshalJSON parses the strict JSON form into v: a value crosses to a
// launch child inside its encode call.
func (v *Value) UnmarshalJSON(data []byte) error {
	x, err := fields.Parse(data)
	if err != nil {
		return err
	}
	*v = x.(Value)
	return nil
}

// With returns base changed by f, normalized so it encodes canonically.
func With(base Value, f func(*Value)) Value {
	f(&base)
	return fields.Normalize(base)
}

// Seeds are legal descriptors of every encoding and packed type, and
// one-field changes of them that each fire one rule of seed 000's claims or
// of the driver documentation (and, where the two sets differ, a value on
// each side of the difference).
func Seeds() []domain.Value {
	var vals []domain.Value
	for _, group := range [][]Value{legalSeeds(), seedRuleSeeds(), ptxisaSeeds()} {
		for _, v := range group {
			vals = append(vals, v)
		}
	}
	return vals
}

func legalSeeds() []Value {
	packed := func(d DType, s Swizzle) Value {
		return With(BaseTiled, func(v *Value) {
			v.DType, v.Swizzle, v.BoxDim[0], v.GlobalStrides[0] = d, s, 128, 128
		})
	}
	return []Value{
		BaseTiled, BaseInterleaved, BaseIm2col, BaseWide,
		With(BaseTiled, func(v *Value) { v.Rank, v.Swizzle, v.BoxDim[0] = 1, SwizzleNone, 8 }),
		With(BaseTiled, func(v *Value) {
			v.Rank, v.GlobalDim, v.GlobalStrides = 5, [MaxDims]uint64{256, 256, 4, 4, 4}, [MaxDims - 1]uint64{512, 131072, 524288, 2097152}
			v.BoxDim, v.ElementStrides = [MaxDims]uint32{64, 256, 1, 2, 4}, [MaxDims]uint32{1, 8, 1, 2, 3}
		}),
		With(BaseTiled, func(v *Value) { v.DType, v.OOBFill, v.BoxDim[0] = Float32, OOBNaN, 32 }),
		With(BaseTiled, func(v *Value) { v.DType, v.Swizzle, v.BoxDim[0] = UInt8, Swizzle64B, 64 }),
		With(BaseTiled, func(v *Value) { v.DType, v.BoxDim[0] = U4Align8B, 256 }),
		packed(U4Align16B, Swizzle128BAtom32B),
		packed(U6Align16B, Swizzle128BAtom64B),
		With(BaseTiled, func(v *Value) {
			v.L2Promotion, v.Swizzle, v.Tgt = 3, Swizzle128BAtom32BFlip8B, target.MustParse("sm_100a", "")
		}),
		With(BaseInterleaved, func(v *Value) { v.Interleave, v.Swizzle, v.ElementStrides[0] = Interleave16B, SwizzleNone, 2 }),
		With(BaseIm2col, func(v *Value) { v.PixelBoxLower[0], v.PixelBoxUpper[0] = -128, 127 }),
		With(BaseIm2col, func(v *Value) {
			v.Rank, v.GlobalDim, v.GlobalStrides = 3, [MaxDims]uint64{64, 65536, 2}, [MaxDims - 1]uint64{128, 1 << 23}
			v.PixelBoxLower[0], v.PixelBoxUpper[0] = -32768, 32767
		}),
		With(BaseIm2col, func(v *Value) {
			v.Rank, v.GlobalDim = 5, [MaxDims]uint64{64, 8, 8, 8, 2}
			v.GlobalStrides, v.ElementStrides = [MaxDims - 1]uint64{128, 1024, 8192, 65536}, [MaxDims]uint32{1, 1, 1, 1, 1}
			v.PixelBoxLower, v.PixelBoxUpper = [3]int32{-16, -16, -16}, [3]int32{15, 15, 15}
		}),
		With(BaseWide, func(v *Value) {
			v.WideMode, v.PixelsPerColumn, v.Swizzle = WideW128, 0, Swizzle64B
			v.ChannelsPerPixel = 32
		}),
	}
}

// seedRuleSeeds fire each of seed 000's rules in turn.
func seedRuleSeeds() []Value {
	t := func(f func(*Value)) Value { return With(BaseTiled, f) }
	il := func(f func(*Value)) Value { return With(BaseInterleaved, f) }
	return []Value{
		t(func(v *Value) { v.Rank = 6 }),
		t(func(v *Value) { v.Rank = 0 }),
		t(func(v *Value) { v.Interleave = Interleave16B }),
		t(func(v *Value) { v.TensorMap = 0x1020 }),
		t(func(v *Value) { v.GlobalAddress = 0x100008 }),
		il(func(v *Value) { v.GlobalAddress = 0x100010 }),
		t(func(v *Value) { v.GlobalStrides[0] = 520 }),
		il(func(v *Value) { v.GlobalStrides[0] = 528 }),
		t(func(v *Value) { v.BoxDim[1] = 300 }),
		t(func(v *Value) { v.BoxDim[1] = 0 }),
		t(func(v *Value) { v.ElementStrides[1] = 9 }),
		t(func(v *Value) { v.ElementStrides[0] = 0 }), // ptxisa ignores entry 0
		t(func(v *Value) { v.BoxDim[0] = 128 }),
		il(func(v *Value) { v.BoxDim[0] = 32 }), // ptxisa exempts interleaved boxes
		t(func(v *Value) { v.GlobalAddress = 0x100040 }),
		t(func(v *Value) { v.SMemAddress = 0x410 }),
		t(func(v *Value) { v.Tgt = target.MustParse("sm_80", "") }),
	}
}

// ptxisaSeeds fire each driver-documentation rule the seed set lacks.
func ptxisaSeeds() []Value {
	t := func(f func(*Value)) Value { return With(BaseTiled, f) }
	il := func(f func(*Value)) Value { return With(BaseInterleaved, f) }
	i2c := func(f func(*Value)) Value { return With(BaseIm2col, f) }
	wide := func(f func(*Value)) Value { return With(BaseWide, f) }
	a16 := func(d DType, f func(*Value)) Value {
		return t(func(v *Value) { v.DType, v.BoxDim[0], v.GlobalStrides[0] = d, 128, 128; f(v) })
	}
	return []Value{
		t(func(v *Value) { v.Tgt = target.MustParse("sm_90", "7.0") }),
		t(func(v *Value) { v.Tgt = target.MustParse("sm_89", "") }),
		With(BaseWide, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "") }),
		t(func(v *Value) { v.DType = DTypeReserved }),
		t(func(v *Value) { v.Interleave = InterleaveReserved }),
		t(func(v *Value) { v.Swizzle = SwizzleReserved }),
		t(func(v *Value) { v.L2Promotion = L2Reserved }),
		i2c(func(v *Value) { v.Rank = 2 }),
		a16(U4Align16B, func(v *Value) { v.GlobalAddress = 0x100010 }),
		t(func(v *Value) { v.GlobalDim[0] = 0 }),
		t(func(v *Value) { v.GlobalDim[1] = 1<<32 + 1 }),
		t(func(v *Value) { v.GlobalDim[1] = 1 << 32 }),
		t(func(v *Value) { v.DType, v.BoxDim[0], v.GlobalDim[0] = U4Align8B, 256, 255 }),
		a16(U6Align16B, func(v *Value) { v.GlobalDim[0] = 200 }),
		t(func(v *Value) { v.GlobalStrides[0] = 1 << 40 }),
		a16(U4Align16B, func(v *Value) { v.GlobalStrides[0] = 144 }),
		t(func(v *Value) { v.BoxDim[0] = 4 }),
		a16(U4Align16B, func(v *Value) { v.BoxDim[0] = 64 }),
		il(func(v *Value) { v.ElementStrides[0] = 0 }),
		il(func(v *Value) { v.Swizzle = SwizzleNone }),
		a16(U6Align16B, func(v *Value) {
			v.Rank, v.GlobalDim[2], v.GlobalStrides[1], v.BoxDim[2], v.ElementStrides[2], v.Interleave = 3, 4, 32768, 4, 1, Interleave16B
		}),
		a16(U4Align16B, func(v *Value) { v.Swizzle = Swizzle64B }),
		a16(U4Align16B, func(v *Value) { v.Swizzle = Swizzle128BAtom64B }),
		t(func(v *Value) { v.DType, v.OOBFill = UInt16, OOBNaN }),
		t(func(v *Value) { v.DType, v.BoxDim[0], v.OOBFill = U4Align8B, 256, OOBNaN }),
		i2c(func(v *Value) { v.ChannelsPerPixel = 128 }), // the seed has no im2col inner bound
		i2c(func(v *Value) { v.PixelBoxLower[1] = -129 }),
		i2c(func(v *Value) { v.PixelBoxLower[0], v.PixelBoxUpper[0] = 0, -32 }),
		i2c(func(v *Value) { v.ChannelsPerPixel = 0 }),
		i2c(func(v *Value) { v.ChannelsPerPixel = 257 }),
		i2c(func(v *Value) {
			v.DType, v.GlobalDim[0], v.GlobalStrides = U4Align16B, 128, [MaxDims - 1]uint64{64, 2048, 65536}
		}),
		i2c(func(v *Value) { v.PixelsPerColumn = 1025 }),
		wide(func(v *Value) { v.PixelsPerColumn = 0 }),
		wide(func(v *Value) { v.PixelBoxLower[0] = -40000 }),
		wide(func(v *Value) { v.Swizzle = SwizzleNone }),
		wide(func(v *Value) { v.Swizzle = Swizzle128BAtom64B }),
		t(func(v *Value) { v.Swizzle, v.SMemAddress = SwizzleNone, 0x408 }),
		t(func(v *Value) { v.Swizzle, v.GlobalAddress, v.SMemAddress = SwizzleNone, 0x100010, 0x410 }),
	}
}
