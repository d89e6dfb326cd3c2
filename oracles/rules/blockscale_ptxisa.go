package rules

import (
	"fmt"
	"slices"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

const (
	ptxMMA        = "PTX ISA 9.7.14.5.14 (mma, block_scale forms)"
	ptxBlockScale = "PTX ISA 9.7.14.3 (Block Scaling for mma.sync, Table 36)"
)

func blockscaleRule(name, msg, source string) *Rule { return ptxRule(bs.Name, name, msg, source) }

// blockScaleTarget reports whether t has mma.sync .block_scale: sm_120a
// (PTX 8.7, its first version), or sm_120f from PTX 8.8. (sm_121a also has
// it; legalfuzz's target table does not list it.) ptxas rejects it on
// sm_100a: the datacenter parts use tcgen05.mma instead.
func blockScaleTarget(t target.Target) bool {
	return archIn(t, "sm_120a") || (archIn(t, "sm_120f") && ptxAtLeast(t, 88))
}

// blockScaleTypesOK reports whether A and B fit the kind: .e4m3, .e5m2,
// .e3m2, .e2m3 or .e2m1 for mxf8f6f4; .e2m1 for mxf4 and mxf4nvf4.
func blockScaleTypesOK(v bs.Value) bool {
	if v.Kind == bs.MXF8F6F4 {
		return slices.Contains(fp4fp6fp8, v.AType) && slices.Contains(fp4fp6fp8, v.BType)
	}
	return v.AType == bs.E2M1 && v.BType == bs.E2M1
}

// scaleVecIs reports whether v's scale vector splits K into n factors.
func scaleVecIs(v bs.Value, n int) bool {
	got, ok := v.ScaleVecN()
	return ok && got == n
}

// blockscalePTXISA judges the mma.sync block-scale instruction from the PTX
// ISA. The seed's scale_vector_size (elements) becomes PTX's
// .scale_vec::NX with N = K / scale_vector_size; the scale fragment of a
// row is then N 8-bit scale factors (ue8m0 and ue4m3 are both 8 bits),
// which is the seed's K = 64 product 512 = 64 × 8 read per factor. On
// accept it carries "scale_vec::NX".
var blockscalePTXISA = &Ladder[bs.Value]{Set: PTXISA, Domain: bs.Name, Value: scaleVecValue,
	Checks: []Check[bs.Value]{
		targetPTXCheck[bs.Value](bs.Name),
		{Rule: blockscaleRule("target", "mma .block_scale requires sm_120a, or sm_120f from PTX ISA 8.8", ptxMMA),
			Detail: func(v bs.Value) string { return ": " + v.Tgt.String() },
			Fires:  func(v bs.Value) bool { return !blockScaleTarget(v.Tgt) }},
		{Rule: blockscaleRule("kind", ".block_scale requires .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4", ptxMMA),
			Fires: func(v bs.Value) bool { return v.Kind == bs.F8F6F4 }},
		{Rule: blockscaleRule("kind-shape", ".kind::mxf8f6f4 is .m16n8k32; .kind::mxf4 and .kind::mxf4nvf4 are .m16n8k64", ptxMMA),
			Detail: func(v bs.Value) string { return ": ." + v.Kind.String() + " ." + v.Shape() },
			Fires:  func(v bs.Value) bool { return int(v.K) != v.Kind.K() }},
		{Rule: blockscaleRule("mxf8f6f4-types", ".kind::mxf8f6f4 takes .e4m3, .e5m2, .e3m2, .e2m3 or .e2m1 for A and B", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind == bs.MXF8F6F4 && !blockScaleTypesOK(v) }},
		{Rule: blockscaleRule("mxf4-types", ".kind::mxf4 and .kind::mxf4nvf4 take .e2m1 for A and B", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind != bs.MXF8F6F4 && !blockScaleTypesOK(v) }},
		{Rule: blockscaleRule("scale-vec", "the scale vector size must split K into 1, 2 or 4 scale factors (.scale_vec::1X, ::2X, ::4X)", ptxBlockScale+", Table 35"),
			Detail: func(v bs.Value) string { return fmt.Sprintf(": K=%d, %d elements per scale", v.K, v.ScaleVecSize) },
			Fires:  func(v bs.Value) bool { return !scaleVecIs(v, 1) && !scaleVecIs(v, 2) && !scaleVecIs(v, 4) }},
		{Rule: blockscaleRule("mxf8f6f4-scale-vec", ".kind::mxf8f6f4 allows only .scale_vec::1X", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind == bs.MXF8F6F4 && !scaleVecIs(v, 1) }},
		{Rule: blockscaleRule("mxf4-scale-vec", ".kind::mxf4 allows only .scale_vec::2X", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind == bs.MXF4 && !scaleVecIs(v, 2) }},
		{Rule: blockscaleRule("mxf4nvf4-scale-vec", ".kind::mxf4nvf4 requires .scale_vec::2X or ::4X", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind == bs.MXF4NVF4 && scaleVecIs(v, 1) }},
		{Rule: blockscaleRule("stype-ue8m0", ".kind::mxf8f6f4 and .kind::mxf4 take .ue8m0 scale factors", ptxBlockScale),
			Fires: func(v bs.Value) bool { return v.Kind != bs.MXF4NVF4 && v.SFType != bs.UE8M0 }},
		{Rule: blockscaleRule("mxf4nvf4-stype", ".kind::mxf4nvf4 takes .ue8m0 with .scale_vec::2X and .ue4m3 with ::4X (.ue8m0 with ::4X needs PTX ISA 9.1)", ptxBlockScale),
			Fires: func(v bs.Value) bool {
				return v.Kind == bs.MXF4NVF4 &&
					!(scaleVecIs(v, 2) && v.SFType == bs.UE8M0) && !(scaleVecIs(v, 4) && v.SFType == bs.UE4M3)
			}},
		{Rule: blockscaleRule("scale-fragment-bits", "a row's scale fragment is N 8-bit scale factors (8 × N bits for .scale_vec::NX)", ptxBlockScale),
			Detail: func(v bs.Value) string {
				n, _ := v.ScaleVecN()
				return fmt.Sprintf(": want %d", 8*n)
			},
			Fires: func(v bs.Value) bool {
				n, _ := v.ScaleVecN()
				return int(v.ScaleFragmentBits) != 8*n
			}},
	},
}
