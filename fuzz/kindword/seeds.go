package kindword

import (
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// Seeds are seed 001's worked examples (0x42 with and without the
// arch-conditional variant, 0xE2), one word that fires each rule of the seed's
// ladder, and legal PTX instructions for each kind.
func Seeds() []domain.Value {
	sm100 := target.MustParse("sm_100", "")
	sm100a := target.MustParse("sm_100a", "")
	sm100f := target.MustParse("sm_100f", "")
	sm103a := target.MustParse("sm_103a", "")
	raw := func(w uint16, coll uint8, arch bool, t target.Target) domain.Value { return FromRaw(w, coll, arch, t) }
	vals := []domain.Value{
		raw(0x42, 0, false, sm100),   // worked example: rule 1 fires
		raw(0x42, 0, true, sm100),    // worked example: opcode 10522
		raw(0xE2, 0, true, sm100a),   // worked example: rule 6 fires
		raw(0x1E2, 0, false, sm100a), // rule 2: mxf4 sparse, not arch-conditional
		raw(0x086, 0, false, sm100a), // rule 3: explicit 2X outside arch-conditional
		raw(0x0D2, 0, true, sm100),   // rule 4: scale input acc below sm_100a
		raw(0x152, 0, true, sm100a),  // rule 5: scale input acc with f8f6f4
		raw(0x082, 4, true, sm100a),  // rule 7: block-scale opcode with ashift
		raw(0x0C3, 0, true, sm100a),  // rule 8: cta_group::2 with ws
		raw(0x081, 0, true, sm100a),  // rule 9: ws with mxf8f6f4
		raw(0x0C1, 7, true, sm100a),  // rule 10: collector::a::use with ashift
		raw(0x08A, 0, true, sm100a),  // rule 11: mxf8f6f4 with 4X
		raw(0x002, 0, true, sm100a),  // rule 12: mxf4nvf4 with 1X
		raw(0x1C2, 0, true, sm100a),  // rule 13: mxf4 with 1X
		raw(0x1C6, 0, true, sm100a),  // mxf4 with 2X: passes
		raw(0x006, 0, true, sm100a),  // mxf4nvf4 with 2X: passes
		raw(0x182, 0, true, sm100a),  // reserved mma_kind 6: the seed accepts it
	}
	for _, k := range []Kind{F16, TF32, F8F6F4, I8} {
		vals = append(vals,
			Value{Kind: k, CTAGroup: 1, ArchConditional: true, Tgt: sm100a},
			Value{Kind: k, CTAGroup: 2, ArchConditional: true, Tgt: sm100a},
			Value{Kind: k, CTAGroup: 1, WS: true, ArchConditional: true, Tgt: sm100a},
			Value{Kind: k, CTAGroup: 1, Sparse: true, ArchConditional: true, Tgt: sm100a},
		)
	}
	vals = append(vals,
		Value{Kind: MXF8F6F4, CTAGroup: 1, BlockScale: true, ArchConditional: true, Tgt: sm100a},
		Value{Kind: MXF4, CTAGroup: 1, BlockScale: true, ArchConditional: true, Tgt: sm100a},
		Value{Kind: MXF4NVF4, CTAGroup: 2, BlockScale: true, ScaleVec: Scale4X, ArchConditional: true, Tgt: sm100a},
		Value{Kind: MXF4, CTAGroup: 1, BlockScale: true, Sparse: true, ScaleVec: Scale2X, ArchConditional: true, Tgt: sm103a},
		Value{Kind: F16, CTAGroup: 1, ScaleInputAcc: true, ScaleInputD: 15, ArchConditional: true, Tgt: sm100a},
		Value{Kind: F16, CTAGroup: 1, ScaleInputAcc: true, ScaleInputD: 3, ArchConditional: true, Tgt: sm100f},
		Value{Kind: TF32, CTAGroup: 1, AShift: true, ATMem: true, ArchConditional: true, Tgt: sm100a},
		Value{Kind: I8, CTAGroup: 1, ArchConditional: true, Tgt: sm103a},
		Value{Kind: F16, CTAGroup: 1, ArchConditional: false, Tgt: target.MustParse("sm_90a", "")},
	)
	return append(vals, ptxisaBoundaries(sm100a, sm100f)...)
}

// ptxisaBoundaries are one-field changes of a legal instruction that each
// cross one PTX ISA rule.
func ptxisaBoundaries(sm100a, sm100f target.Target) []domain.Value {
	base := Value{Kind: F16, CTAGroup: 1, ArchConditional: true, Tgt: sm100a}
	with := func(f func(*Value)) domain.Value { v := base; f(&v); return v }
	bs := func(k Kind, s ScaleVec) func(*Value) {
		return func(v *Value) { v.Kind, v.BlockScale, v.ScaleVec = k, true, s }
	}
	return []domain.Value{
		with(func(v *Value) { v.Tgt = target.MustParse("sm_100a", "8.4") }),
		with(func(v *Value) { v.Kind, v.BlockScale, v.AShift, v.ATMem = MXF8F6F4, true, true, true }),
		with(func(v *Value) { v.AShift, v.ATMem, v.CollectorA = true, true, Use }),
		with(func(v *Value) { v.AShift = true }),
		with(func(v *Value) { v.ScaleInputAcc, v.Tgt = true, target.MustParse("sm_101a", "") }),
		with(func(v *Value) { v.ScaleVec = Scale2X }),
		with(bs(MXF4, Scale4X)),
		with(func(v *Value) { bs(MXF4NVF4, ScaleDefault)(v); v.Tgt = target.MustParse("sm_100a", "8.7") }),
		with(bs(MXF8F6F4, Scale2X)),
		with(bs(MXF8F6F4, Scale1X)),
		with(bs(MXF4, ScaleReserved3)),
		with(func(v *Value) { bs(MXF4, Scale2X)(v); v.Tgt = sm100f }),
		with(func(v *Value) { bs(MXF4, ScaleDefault)(v); v.Sparse, v.Tgt = true, sm100f }),
		with(func(v *Value) { v.WS, v.CTAGroup = true, 2 }),
		with(func(v *Value) { bs(MXF8F6F4, ScaleDefault)(v); v.WS = true }),
	}
}
