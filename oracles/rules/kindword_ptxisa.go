package rules

import (
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

const ptxTcgen05 = "PTX ISA 9.7.16.10.9 (tcgen05.mma)"

func kwRule(name, msg string) *Rule { return ptxRule(kw.Name, name, msg, ptxTcgen05) }

// tcgen05Target reports whether t can hold tcgen05.mma at all: the
// arch-specific Blackwell datacenter targets, or their f-family from PTX 8.8.
func tcgen05Target(t target.Target) bool {
	if archIn(t, "sm_100a", "sm_101a", "sm_103a", "sm_110a") {
		return true
	}
	return archIn(t, "sm_100f", "sm_101f", "sm_103f", "sm_110f") && ptxAtLeast(t, 88)
}

// kindwordPTXISA judges the semantic instruction from the PTX ISA.
var kindwordPTXISA = &Ladder[kw.Value]{Set: PTXISA, Domain: kw.Name,
	Value: func(v kw.Value) string { return mnemonic(v) },
	Checks: []Check[kw.Value]{
		targetPTXCheck[kw.Value](kw.Name),
		{Rule: kwRule("target", "tcgen05.mma requires sm_100a, sm_101a, sm_103a or sm_110a, or an f-family target from PTX 8.8"),
			Fires: func(v kw.Value) bool { return !tcgen05Target(v.Tgt) }},
		{Rule: kwRule("reserved-kind", "no .kind matches this encoding"),
			Fires: func(v kw.Value) bool { return v.Kind == kw.Reserved6 }},
		{Rule: kwRule("cta-group", ".cta_group must be ::1 or ::2"),
			Fires: func(v kw.Value) bool { return v.CTAGroup != 1 && v.CTAGroup != 2 }},
		{Rule: kwRule("mxf4nvf4-ptx", ".kind::mxf4nvf4 requires PTX ISA 8.7"),
			Fires: func(v kw.Value) bool { return v.Kind == kw.MXF4NVF4 && !ptxAtLeast(v.Tgt, 87) }},
		{Rule: kwRule("i8-target", ".kind::i8 requires sm_100a, sm_101a or sm_110a"),
			Fires: func(v kw.Value) bool { return v.Kind == kw.I8 && !archIn(v.Tgt, "sm_100a", "sm_101a", "sm_110a") }},
		{Rule: kwRule("block-scale-required", ".kind::mxf8f6f4, .kind::mxf4 and .kind::mxf4nvf4 require .block_scale"),
			Fires: func(v kw.Value) bool { return v.Kind.BlockScaled() && !v.BlockScale }},
		{Rule: kwRule("block-scale-kind", ".block_scale requires .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4"),
			Fires: func(v kw.Value) bool { return v.BlockScale && !v.Kind.BlockScaled() }},
		{Rule: kwRule("scale-vec-kind", ".scale_vec applies only to block-scaled kinds"),
			Fires: func(v kw.Value) bool { return v.ScaleVec != kw.ScaleDefault && !v.Kind.BlockScaled() }},
		{Rule: kwRule("scale-vec-reserved", "no .scale_vec matches this encoding"),
			Fires: func(v kw.Value) bool { return v.ScaleVec == kw.ScaleReserved3 }},
		{Rule: kwRule("scale-vec-mxf8f6f4", ".kind::mxf8f6f4 allows only .scale_vec::1X"),
			Fires: func(v kw.Value) bool {
				return v.Kind == kw.MXF8F6F4 && (v.ScaleVec == kw.Scale2X || v.ScaleVec == kw.Scale4X)
			}},
		{Rule: kwRule("scale-vec-mxf4", ".kind::mxf4 allows only .scale_vec::2X (the default)"),
			Fires: func(v kw.Value) bool {
				return v.Kind == kw.MXF4 && (v.ScaleVec == kw.Scale1X || v.ScaleVec == kw.Scale4X)
			}},
		{Rule: kwRule("scale-vec-mxf4nvf4", ".kind::mxf4nvf4 requires an explicit .scale_vec::2X or ::4X"),
			Fires: func(v kw.Value) bool {
				return v.Kind == kw.MXF4NVF4 && v.ScaleVec != kw.Scale2X && v.ScaleVec != kw.Scale4X
			}},
		{Rule: kwRule("scale-vec-target", ".scale_vec::NX requires an arch-specific target (sm_100a ...)"),
			Fires: func(v kw.Value) bool { return v.ScaleVec != kw.ScaleDefault && !v.Tgt.Arch.ArchSpecific() }},
		{Rule: kwRule("scale-input-d-kind", "scale-input-d requires .kind::f16 or .kind::tf32"),
			Fires: func(v kw.Value) bool { return v.ScaleInputAcc && v.Kind != kw.F16 && v.Kind != kw.TF32 }},
		{Rule: kwRule("scale-input-d-target", "scale-input-d requires sm_100a, or the sm_100f family from PTX 8.8"),
			// sm_103a has every feature of sm_103f, a member of the sm_100f family.
			Fires: func(v kw.Value) bool {
				return v.ScaleInputAcc && !archIn(v.Tgt, "sm_100a", "sm_100f", "sm_103f", "sm_103a")
			}},
		{Rule: kwRule("ws-cta-group", ".ws requires .cta_group::1"),
			Fires: func(v kw.Value) bool { return v.WS && v.CTAGroup != 1 }},
		{Rule: kwRule("ws-kind", ".ws allows .kind::f16, ::tf32, ::f8f6f4 and ::i8 only"),
			Fires: func(v kw.Value) bool { return v.WS && v.Kind.BlockScaled() }},
		// .ws names its collector buffer (.collector::b0..b3::op); ptxas 13:
		// "Illegal modifier '.collector::a::use' for instruction 'tcgen05.mma.ws'".
		{Rule: kwRule("ws-collector-a", ".ws takes .collector::bN::op, not .collector::a::op"),
			Fires: func(v kw.Value) bool { return v.WS && v.CollectorA != kw.Discard }},
		{Rule: kwRule("ashift-tmem", ".ashift requires the A operand in tensor memory"),
			Fires: func(v kw.Value) bool { return v.AShift && !v.ATMem }},
		{Rule: kwRule("ashift-block-scale", ".ashift is not allowed with .block_scale"),
			Fires: func(v kw.Value) bool { return v.AShift && (v.BlockScale || v.Kind.BlockScaled()) }},
		{Rule: kwRule("ashift-collector", ".ashift is not allowed with .collector::a::use or ::fill"),
			Fires: func(v kw.Value) bool { return v.AShift && (v.CollectorA == kw.Use || v.CollectorA == kw.Fill) }},
		{Rule: kwRule("sparse-mxf4-target", ".sp with .kind::mxf4 or ::mxf4nvf4 requires sm_100a, sm_101a, sm_103a or sm_110a"),
			Fires: func(v kw.Value) bool {
				return v.Sparse && (v.Kind == kw.MXF4 || v.Kind == kw.MXF4NVF4) && !v.Tgt.Arch.ArchSpecific()
			}},
	},
}

// mnemonic spells the accepted instruction's PTX opcode with its qualifiers.
func mnemonic(v kw.Value) string {
	s := "tcgen05.mma"
	if v.WS {
		s += ".ws"
	}
	if v.Sparse {
		s += ".sp"
	}
	s += ".cta_group::" + string('0'+rune(v.CTAGroup)) + ".kind::" + v.Kind.String()
	if v.BlockScale {
		s += ".block_scale"
		if v.ScaleVec != kw.ScaleDefault {
			s += ".scale_vec::" + v.ScaleVec.String()
		}
	}
	if v.CollectorA != kw.Discard {
		s += ".collector::a::" + v.CollectorA.String()
	}
	if v.AShift {
		s += ".ashift"
	}
	return s
}
