package umma

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// mode builds a mode from (shape, stride) pairs: one pair is a flat mode.
func mode(pairs ...[2]int32) Mode {
	m := Mode{Subs: uint8(len(pairs))}
	for i, p := range pairs {
		m.Shape[i], m.Stride[i] = uint16(p[0]), p[1]
	}
	return m
}

// operand builds a rank-2 (MN, K) layout on sm_100a.
func operand(dir, elemBits uint8, swz [3]uint8, mn, k Mode) Value {
	return Value{Direction: dir, ElemBits: elemBits, Swizzle: swz, Rank: 2, Modes: [MaxModes]Mode{mn, k},
		KMode: 1, MNMode: 0, Tgt: target.MustParse("sm_100a", "")}
}

var (
	swzNone    = [3]uint8{0, 4, 3}
	swz32      = [3]uint8{1, 4, 3}
	swz64      = [3]uint8{2, 4, 3}
	swz128     = [3]uint8{3, 4, 3}
	swz128At32 = [3]uint8{2, 5, 2}
)

// Seeds are the canonical layouts of the PTX ISA (nested, as CuTe builds
// them) for each swizzle mode and element width, the flat layouts that seed
// 001's verifier accepts, and one value on each side of every rule of both
// sets.
func Seeds() []domain.Value {
	with := func(v Value, f func(*Value)) domain.Value { f(&v); return v }
	flatK := operand(DirK, 16, swzNone, mode([2]int32{8, 8}), mode([2]int32{16, 1}))    // both sets accept
	flatMN := operand(DirMN, 16, swzNone, mode([2]int32{64, 8}), mode([2]int32{16, 8})) // the seed's reading of UMMA_MN
	kMajor128 := operand(DirK, 16, swz128, mode([2]int32{8, 64}, [2]int32{16, 512}), mode([2]int32{8, 1}, [2]int32{2, 8}))
	mnMajor128 := operand(DirMN, 16, swz128, mode([2]int32{8, 1}, [2]int32{8, 8}, [2]int32{2, 1024}), mode([2]int32{8, 64}, [2]int32{2, 2048}))
	return []domain.Value{
		flatK, flatMN, kMajor128, mnMajor128,
		// K-major canonical forms ((8,m),(T,2)) per swizzle and width.
		operand(DirK, 16, swzNone, mode([2]int32{8, 8}, [2]int32{16, 64}), mode([2]int32{8, 1}, [2]int32{2, 1024})),
		operand(DirK, 16, swz32, mode([2]int32{8, 16}, [2]int32{16, 128}), mode([2]int32{8, 1}, [2]int32{2, 8})),
		operand(DirK, 16, swz64, mode([2]int32{8, 32}, [2]int32{16, 256}), mode([2]int32{8, 1}, [2]int32{2, 8})),
		operand(DirK, 8, swz128, mode([2]int32{8, 128}, [2]int32{16, 1024}), mode([2]int32{16, 1}, [2]int32{2, 16})),
		operand(DirK, 32, swz128, mode([2]int32{8, 32}, [2]int32{16, 256}), mode([2]int32{4, 1}, [2]int32{2, 4})),
		operand(DirK, 4, swz128, mode([2]int32{8, 256}, [2]int32{16, 2048}), mode([2]int32{32, 1}, [2]int32{2, 32})),
		with(kMajor128, func(v *Value) { v.Sparse, v.Modes[1] = true, mode([2]int32{8, 1}, [2]int32{4, 8}) }),
		// MN-major canonical forms ((T,s,m),(8,k)).
		operand(DirMN, 16, swzNone, mode([2]int32{8, 1}, [2]int32{16, 64}), mode([2]int32{8, 8}, [2]int32{2, 1024})),
		operand(DirMN, 16, swz64, mode([2]int32{8, 1}, [2]int32{4, 8}, [2]int32{4, 512}), mode([2]int32{8, 32}, [2]int32{2, 2048})),
		operand(DirMN, 16, swz128At32, mode([2]int32{8, 1}, [2]int32{8, 8}, [2]int32{2, 1024}), mode([2]int32{4, 64}, [2]int32{4, 2048})),
		// Seed ladder boundaries.
		with(flatK, func(v *Value) { v.Swizzle = [3]uint8{1, 4, 4} }),      // unsupported swizzle
		with(flatK, func(v *Value) { v.Swizzle = [3]uint8{0, 2, 5} }),      // the seed's no-swizzle triple
		with(flatK, func(v *Value) { v.Swizzle = swz128At32 }),             // (2,5,2) on a K-major operand
		with(flatK, func(v *Value) { v.ElemBits = 64 }),                    // silent failure above 32 bits
		with(flatK, func(v *Value) { v.ElemBits = 6 }),                     // outside the table: undefined stride
		with(flatK, func(v *Value) { v.ElemBits = 0 }),                     // zero width
		with(flatMN, func(v *Value) { v.Modes[1] = mode([2]int32{8, 8}) }), // UMMA_MN with a K extent of 8
		with(flatMN, func(v *Value) { v.Modes[1] = mode([2]int32{32, 8}) }),
		with(flatMN, func(v *Value) { v.ElemBits = 0 }),
		with(flatMN, func(v *Value) { v.Modes[0] = mode([2]int32{64, 1}) }), // PTX's contiguous MN stride
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{12, 8}) }),  // MN size not a multiple of 8
		with(flatK, func(v *Value) { v.ElemBits, v.Modes[0], v.Modes[1] = 4, mode([2]int32{6, 32}), mode([2]int32{64, 1}) }),
		with(flatK, func(v *Value) { v.ElemBits, v.Modes[0], v.Modes[1] = 4, mode([2]int32{8, 4}), mode([2]int32{64, 1}) }),
		with(flatK, func(v *Value) { v.Modes[1] = mode([2]int32{1, 5}) }), // shape-1 K mode: its stride is never used
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{128, 64}); v.Swizzle = swz128 }),
		with(flatK, func(v *Value) { v.Direction = 2 }), // "a bug": the seed takes the UMMA_K branch
		// PTX ISA ladder boundaries.
		with(flatK, func(v *Value) { v.Tgt = target.MustParse("sm_100a", "8.4") }),
		with(flatK, func(v *Value) { v.Tgt = target.MustParse("sm_90a", "") }),
		with(flatK, func(v *Value) { v.Tgt = target.MustParse("sm_103f", "8.8") }),
		with(flatK, func(v *Value) { v.Swizzle = [3]uint8{3, 4, 4} }),
		with(flatK, func(v *Value) { v.Rank, v.Modes[2] = 3, mode([2]int32{2, 4096}) }),
		with(flatK, func(v *Value) { v.KMode = 0 }),
		with(flatK, func(v *Value) { v.Modes[1] = mode([2]int32{32, 1}) }),                 // dense operand, sparse K
		with(flatK, func(v *Value) { v.Sparse, v.Modes[1] = true, mode([2]int32{32, 1}) }), // sparse operand
		with(flatK, func(v *Value) { v.Swizzle = swz128 }),                                 // 8 rows at 16 bytes, not 128
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{8, 8}, [2]int32{2, 100}) }),
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{8, 8}, [2]int32{2, -64}) }),
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{8, 8}, [2]int32{2, 1 << 17}) }),
		with(flatK, func(v *Value) { v.Modes[0] = mode([2]int32{8, 8}, [2]int32{2, 1<<17 - 8}) }),
		with(flatK, func(v *Value) { v.Modes[1] = mode([2]int32{4, 1}, [2]int32{4, 8}) }), // 8-byte rows
	}
}
