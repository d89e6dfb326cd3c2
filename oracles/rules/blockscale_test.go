package rules

import (
	"strings"
	"testing"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

// bsWith returns v changed by f.
func bsWith(v bs.Value, f func(*bs.Value)) bs.Value { f(&v); return v }

var (
	bsK32  = bs.New(bs.MXF8F6F4, bs.E4M3, bs.E4M3, bs.UE8M0)
	bsK64  = bs.New(bs.MXF4, bs.E2M1, bs.E2M1, bs.UE8M0)
	bsNV2X = bs.New(bs.MXF4NVF4, bs.E2M1, bs.E2M1, bs.UE8M0)
	bsNV4X = bs.New(bs.MXF4NVF4, bs.E2M1, bs.E2M1, bs.UE4M3)
)

// bsSeedCases fire every rule of verify_sm120_scale_lattice and pin its
// accepts, the ones PTX disputes included.
var bsSeedCases = []ladderCase[bs.Value]{
	{"svs 64", bsWith(bsK64, func(v *bs.Value) { v.ScaleVecSize = 64 }), "seed.blockscale.scale-vector-size",
		"require(p.scale_vector_size == 16 || p.scale_vector_size == 32)", ""},
	{"K 128", bsWith(bsK64, func(v *bs.Value) { v.K = 128 }), "seed.blockscale.k", "require(p.k == 32 || p.k == 64)", ""},
	{"K 32 f16 A", bsWith(bsK32, func(v *bs.Value) { v.AType = bs.F16 }), "seed.blockscale.k32-a-type",
		"require(is_fp4_fp6_or_fp8(p.a_type))", ""},
	{"K 32 bf16 B", bsWith(bsK32, func(v *bs.Value) { v.BType = bs.BF16 }), "seed.blockscale.k32-b-type",
		"require(is_fp4_fp6_or_fp8(p.b_type))", ""},
	{"K 32 ue4m3", bsWith(bsK32, func(v *bs.Value) { v.SFType = bs.UE4M3 }), "seed.blockscale.k32-sf-type",
		"require(p.sf_type == e8m0_type())", ""},
	{"K 32 svs 16", bsWith(bsK32, func(v *bs.Value) { v.ScaleVecSize = 16 }), "seed.blockscale.k32-scale-vector-size",
		"require(p.scale_vector_size == 32)", ""},
	{"K 32 16-bit fragment", bsWith(bsK32, func(v *bs.Value) { v.ScaleFragmentBits = 16 }), "seed.blockscale.k32-fragment-bits",
		"require(p.scale_fragment_bits == 8)", ""},
	{"K 64 does not reuse the K 32 list: e4m3 A", bsWith(bsK64, func(v *bs.Value) { v.AType = bs.E4M3 }), "seed.blockscale.k64-a-type",
		"require(p.a_type == fp4_e2m1_type())", ""},
	{"K 64 e2m3 B", bsWith(bsK64, func(v *bs.Value) { v.BType = bs.E2M3 }), "seed.blockscale.k64-b-type",
		"require(p.b_type == fp4_e2m1_type())", ""},
	{"K 64 8-bit fragment at 32", bsWith(bsK64, func(v *bs.Value) { v.ScaleFragmentBits = 8 }), "seed.blockscale.k64-fragment-bits",
		"require(p.scale_fragment_bits * p.scale_vector_size == 512)", ""},
	{"fail-first: svs 8 at K 16 reports the size", bsWith(bsK32, func(v *bs.Value) { v.K, v.ScaleVecSize = 16, 8 }),
		"seed.blockscale.scale-vector-size", "require(p.scale_vector_size == 16 || p.scale_vector_size == 32)", ""},
	{"K 32 e2m1 x e5m2", bs.New(bs.MXF8F6F4, bs.E2M1, bs.E5M2, bs.UE8M0), "", "", "scale_vec::1X"},
	{"K 64 ue8m0 32", bsK64, "", "", "scale_vec::2X"},
	{"K 64 ue4m3 16", bsNV4X, "", "", "scale_vec::4X"},
	{"K 64 never checks sf_type: ue4m3 at 32", bsWith(bsNV4X, func(v *bs.Value) { v.ScaleVecSize, v.ScaleFragmentBits = 32, 16 }),
		"", "", "scale_vec::2X"},
	{"the lattice never sees the kind", bsWith(bsK32, func(v *bs.Value) { v.Kind = bs.MXF4 }), "", "", "scale_vec::1X"},
	{"the lattice has no target gate", bsWith(bsK64, func(v *bs.Value) { v.Tgt = target.MustParse("sm_100a", "") }), "", "", "scale_vec::2X"},
}

// bsPTXCases fire every ptxisa rule in order and pin Table 36's rows.
var bsPTXCases = []ladderCase[bs.Value]{
	{"sm_120a at PTX 8.6", bsWith(bsK32, func(v *bs.Value) { v.Tgt = target.MustParse("sm_120a", "8.6") }),
		"ptxisa.blockscale.target-ptx-version", "PTX ISA version does not know the .target: sm_120a (PTX 8.6)", ""},
	{"sm_100a", bsWith(bsK64, func(v *bs.Value) { v.Tgt = target.MustParse("sm_100a", "") }), "ptxisa.blockscale.target",
		"mma .block_scale requires sm_120a, or sm_120f from PTX ISA 8.8: sm_100a (PTX 8.6)", ""},
	{"kind f8f6f4", bsWith(bsK32, func(v *bs.Value) { v.Kind = bs.F8F6F4 }), "ptxisa.blockscale.kind",
		".block_scale requires .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4", ""},
	{"mxf4 at K 32", bsWith(bsK32, func(v *bs.Value) { v.Kind = bs.MXF4 }), "ptxisa.blockscale.kind-shape",
		".kind::mxf8f6f4 is .m16n8k32; .kind::mxf4 and .kind::mxf4nvf4 are .m16n8k64: .mxf4 .m16n8k32", ""},
	{"mxf8f6f4 other B", bsWith(bsK32, func(v *bs.Value) { v.BType = bs.TypeOther }), "ptxisa.blockscale.mxf8f6f4-types",
		".kind::mxf8f6f4 takes .e4m3, .e5m2, .e3m2, .e2m3 or .e2m1 for A and B", ""},
	{"mxf4nvf4 e4m3 A", bsWith(bsNV2X, func(v *bs.Value) { v.AType = bs.E4M3 }), "ptxisa.blockscale.mxf4-types",
		".kind::mxf4 and .kind::mxf4nvf4 take .e2m1 for A and B", ""},
	{"24 elements at K 64", bsWith(bsK64, func(v *bs.Value) { v.ScaleVecSize = 24 }), "ptxisa.blockscale.scale-vec",
		"the scale vector size must split K into 1, 2 or 4 scale factors (.scale_vec::1X, ::2X, ::4X): K=64, 24 elements per scale", ""},
	{"mxf8f6f4 2X", bsWith(bsK32, func(v *bs.Value) { v.ScaleVecSize = 16 }), "ptxisa.blockscale.mxf8f6f4-scale-vec",
		".kind::mxf8f6f4 allows only .scale_vec::1X", ""},
	{"mxf4 4X", bsWith(bsK64, func(v *bs.Value) { v.ScaleVecSize, v.ScaleFragmentBits = 16, 32 }), "ptxisa.blockscale.mxf4-scale-vec",
		".kind::mxf4 allows only .scale_vec::2X", ""},
	{"mxf4nvf4 1X", bsWith(bsNV2X, func(v *bs.Value) { v.ScaleVecSize, v.ScaleFragmentBits = 64, 8 }), "ptxisa.blockscale.mxf4nvf4-scale-vec",
		".kind::mxf4nvf4 requires .scale_vec::2X or ::4X", ""},
	{"mxf4 ue4m3", bsWith(bsK64, func(v *bs.Value) { v.SFType = bs.UE4M3 }), "ptxisa.blockscale.stype-ue8m0",
		".kind::mxf8f6f4 and .kind::mxf4 take .ue8m0 scale factors", ""},
	{"mxf4nvf4 ue4m3 2X", bsWith(bsNV2X, func(v *bs.Value) { v.SFType = bs.UE4M3 }), "ptxisa.blockscale.mxf4nvf4-stype",
		".kind::mxf4nvf4 takes .ue8m0 with .scale_vec::2X and .ue4m3 with ::4X (.ue8m0 with ::4X needs PTX ISA 9.1)", ""},
	{"mxf4nvf4 ue8m0 4X", bsWith(bsNV4X, func(v *bs.Value) { v.SFType = bs.UE8M0 }), "ptxisa.blockscale.mxf4nvf4-stype",
		".kind::mxf4nvf4 takes .ue8m0 with .scale_vec::2X and .ue4m3 with ::4X (.ue8m0 with ::4X needs PTX ISA 9.1)", ""},
	{"4X with 16 fragment bits", bsWith(bsNV4X, func(v *bs.Value) { v.ScaleFragmentBits = 16 }), "ptxisa.blockscale.scale-fragment-bits",
		"a row's scale fragment is N 8-bit scale factors (8 × N bits for .scale_vec::NX): want 32", ""},
	{"mxf8f6f4 1X", bs.New(bs.MXF8F6F4, bs.E3M2, bs.E2M1, bs.UE8M0), "", "", "scale_vec::1X"},
	{"mxf4 2X", bsK64, "", "", "scale_vec::2X"},
	{"mxf4nvf4 2X ue8m0", bsNV2X, "", "", "scale_vec::2X"},
	{"mxf4nvf4 4X ue4m3", bsNV4X, "", "", "scale_vec::4X"},
	{"sm_120f from PTX 8.8", bsWith(bsNV4X, func(v *bs.Value) { v.Tgt = target.MustParse("sm_120f", "") }), "", "", "scale_vec::4X"},
}

func TestBlockScaleSeedLadder(t *testing.T)   { runLadderCases(t, blockscaleSeed, bsSeedCases) }
func TestBlockScalePTXISALadder(t *testing.T) { runLadderCases(t, blockscalePTXISA, bsPTXCases) }

func TestBlockScaleSeedRulesAreVerbatim(t *testing.T) {
	for _, r := range blockscaleSeed.Rules() {
		if !strings.HasPrefix(r.Message, "require(") || !strings.Contains(r.Message, "p.") || !strings.HasSuffix(r.Message, ")") {
			t.Errorf("%s: %q is not a require(...) line", r.ID, r.Message)
		}
	}
}

// TestBlockScaleLatticeSelfCheck enumerates the lattice once and checks
// both ladders against their closed forms, and pins the closed forms'
// accept sets at sm_120a: 25 + 3 rows each, differing where PTX and the
// seed disagree.
func TestBlockScaleLatticeSelfCheck(t *testing.T) {
	if err := checkBlockScaleLattice(bsK64); err != nil {
		t.Fatal(err)
	}
	var seedOnly, ptxOnly, both int
	for _, k := range []uint8{32, 64} {
		for svs := range 65 {
			for bits := range 65 {
				for a := range len(bs.Types) {
					for b := range len(bs.Types) {
						for sf := range len(bs.SFs) {
							v := bs.Value{K: k, AType: bs.Type(a), BType: bs.Type(b), SFType: bs.SF(sf),
								ScaleVecSize: uint8(svs), ScaleFragmentBits: uint8(bits), Tgt: bsK64.Tgt}
							v.Kind = bs.MXF8F6F4
							if v.K == 64 {
								v.Kind = bs.MXF4
								if v.SFType == bs.UE4M3 || v.ScaleVecSize == 16 {
									v.Kind = bs.MXF4NVF4
								}
							}
							s, p := seedLatticeAccepts(v), ptxBlockScaleAccepts(v)
							switch {
							case s && p:
								both++
							case s:
								seedOnly++
							case p:
								ptxOnly++
							}
						}
					}
				}
			}
		}
	}
	// Both: 25 FP4/6/8 pairs at K 32, mxf4 2X, mxf4nvf4 4X ue4m3. The seed
	// alone: K 64 with another sf_type (ue4m3/other at 2X, ue8m0/other at 4X).
	if both != 27 || seedOnly != 4 || ptxOnly != 0 {
		t.Fatalf("both %d, seed only %d, ptxisa only %d; want 27, 4, 0", both, seedOnly, ptxOnly)
	}
}
