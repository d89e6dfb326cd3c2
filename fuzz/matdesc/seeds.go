package matdesc

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Seeds are legal descriptors of both formats (the K-major 128B layouts
// CUTLASS builds: LBO 16, SBO 1024), every swizzle encoding of both formats,
// and one-field changes that cross each rule of both sets.
func Seeds() []domain.Value {
	sm90a := target.MustParse("sm_90a", "")
	sm100a := target.MustParse("sm_100a", "")
	wg := Value{Format: WGMMA, StartAddr: 0x400, LBO: 16, SBO: 1024, Swizzle: 1, Uniform: true, Tgt: sm90a}
	tc := Value{Format: TCGen05, StartAddr: 0x1000, LBO: 16, SBO: 1024, Swizzle: 2, Fixed46: 1, Uniform: true, Tgt: sm100a}
	with := func(base Value, f func(*Value)) domain.Value { f(&base); return base }
	vals := []domain.Value{wg, tc}
	for _, d := range []Value{wg, tc} {
		for s := range MaxSwizzle(d.Format) + 1 {
			if s != d.Swizzle {
				vals = append(vals, with(d, func(v *Value) { v.Swizzle = s }))
			}
		}
	}
	for _, d := range []Value{wg, tc} {
		vals = append(vals,
			with(d, func(v *Value) { v.Uniform = false }),
			with(d, func(v *Value) { v.StartAddr = 0x40000 }), // beyond the 18 encoded bits
			with(d, func(v *Value) { v.LBO = 0x40010 }),       // beyond, and wraps to 16
			with(d, func(v *Value) { v.SBO = 0x3FFF0 }),       // the largest encodable offset
			with(d, func(v *Value) { v.StartAddr = 0x408 }),   // 8-byte aligned only
			with(d, func(v *Value) { v.SBO = 1000 }),          // not 16-byte aligned
			with(d, func(v *Value) { v.Reserved = 1 << 14 }),  // reserved bit set
			with(d, func(v *Value) { v.Tgt = target.MustParse(v.Tgt.Arch.String(), "7.8") }),
		)
	}
	return append(vals,
		with(wg, func(v *Value) { v.Tgt = target.MustParse("sm_90", "") }),
		with(wg, func(v *Value) { v.Tgt = sm100a }),                 // above the seed's floor, no wgmma
		with(wg, func(v *Value) { v.Swizzle, v.BaseOffset = 0, 3 }), // base offset without swizzle
		with(wg, func(v *Value) { v.Swizzle, v.BaseOffset = 1, 3 }), // base offset with 128B swizzle
		with(wg, func(v *Value) { v.Reserved = 1 << 52 }),           // tcgen05's LBO mode bit, reserved here
		with(tc, func(v *Value) { v.Tgt = sm90a }),                  // tcgen05 on Hopper
		with(tc, func(v *Value) { v.Tgt = target.MustParse("sm_100f", "8.8") }),
		with(tc, func(v *Value) { v.Fixed46 = 0 }), // CUTLASS's version field unset
		with(tc, func(v *Value) { v.Fixed53 = 0x10 }),
		with(tc, func(v *Value) { v.LBOMode = true }), // absolute LBO on sm_100a
		with(tc, func(v *Value) { v.LBOMode, v.Tgt = true, target.MustParse("sm_103a", "") }),
		with(tc, func(v *Value) { v.Swizzle, v.BaseOffset = 0, 5 }), // tcgen05 states no such rule
		FromRaw(WGMMA, 0xC00E004000024100, true, sm90a),             // a word: 32B, base offset 7, reserved bit 14
		FromRaw(TCGen05, 0x7FFFFFFFFFFFFFFF, true, sm100a),          // every field but the swizzle's top bit set
	)
}
