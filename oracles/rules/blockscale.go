package rules

import (
	"fmt"
	"slices"
	"sync"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func init() { register(blockscaleSeed, blockscalePTXISA) }

const seed001Lattice = "seed 001, SM120 Block-Scaled Lattice (verify_sm120_scale_lattice)"

// fp4fp6fp8 is the seed's is_fp4_fp6_or_fp8 allow-list.
var fp4fp6fp8 = []bs.Type{bs.E2M1, bs.E3M2, bs.E2M3, bs.E4M3, bs.E5M2}

const (
	doubtK64SF = "the K = 64 branch never checks sf_type: PTX pairs .ue8m0 only with .scale_vec::2X and .ue4m3 only with ::4X " +
		"(.ue8m0 with ::4X from PTX ISA 9.1), and allows no other .stype"
	doubtKind = "the lattice never sees the .kind: PTX ties K = 32 to .kind::mxf8f6f4 and K = 64 to ::mxf4/::mxf4nvf4, " +
		"and .block_scale to sm_120a (sm_120f from PTX 8.8), which the seed does not gate"
)

func blockscaleSeedRule(name, msg, doubt string) *Rule {
	return seedRule(bs.Name, name, msg, seed001Lattice, doubt)
}

// scaleVecValue spells the .scale_vec::NX a value implies, N = K /
// scale_vector_size.
func scaleVecValue(v bs.Value) string {
	n, _ := v.ScaleVecN()
	return fmt.Sprintf("scale_vec::%dX", n)
}

// blockscaleSeed is verify_sm120_scale_lattice as written: two common
// requires, then the K = 32 row or the K = 64 row; messages are the
// require(...) text verbatim. The K = 64 row narrows A and B to e2m1 ("Do
// not reuse the K = 32 FP6/FP8 allow-list there"), as PTX's mxf4 kinds do.
// On accept it carries the implied .scale_vec::NX.
var blockscaleSeed = &Ladder[bs.Value]{Set: Seed, Domain: bs.Name, Value: scaleVecValue,
	Checks: []Check[bs.Value]{
		{Rule: blockscaleSeedRule("scale-vector-size", "require(p.scale_vector_size == 16 || p.scale_vector_size == 32)", ""),
			Fires: func(v bs.Value) bool { return v.ScaleVecSize != 16 && v.ScaleVecSize != 32 }},
		{Rule: blockscaleSeedRule("k", "require(p.k == 32 || p.k == 64)", doubtKind),
			Fires: func(v bs.Value) bool { return v.K != 32 && v.K != 64 }},
		{Rule: blockscaleSeedRule("k32-a-type", "require(is_fp4_fp6_or_fp8(p.a_type))", ""),
			Fires: func(v bs.Value) bool { return v.K == 32 && !slices.Contains(fp4fp6fp8, v.AType) }},
		{Rule: blockscaleSeedRule("k32-b-type", "require(is_fp4_fp6_or_fp8(p.b_type))", ""),
			Fires: func(v bs.Value) bool { return v.K == 32 && !slices.Contains(fp4fp6fp8, v.BType) }},
		{Rule: blockscaleSeedRule("k32-sf-type", "require(p.sf_type == e8m0_type())", "the seed writes e8m0; PTX's .stype is .ue8m0"),
			Fires: func(v bs.Value) bool { return v.K == 32 && v.SFType != bs.UE8M0 }},
		{Rule: blockscaleSeedRule("k32-scale-vector-size", "require(p.scale_vector_size == 32)", ""),
			Fires: func(v bs.Value) bool { return v.K == 32 && v.ScaleVecSize != 32 }},
		{Rule: blockscaleSeedRule("k32-fragment-bits", "require(p.scale_fragment_bits == 8)", ""),
			Fires: func(v bs.Value) bool { return v.K == 32 && v.ScaleFragmentBits != 8 }},
		{Rule: blockscaleSeedRule("k64-a-type", "require(p.a_type == fp4_e2m1_type())", ""),
			Fires: func(v bs.Value) bool { return v.K == 64 && v.AType != bs.E2M1 }},
		{Rule: blockscaleSeedRule("k64-b-type", "require(p.b_type == fp4_e2m1_type())", ""),
			Fires: func(v bs.Value) bool { return v.K == 64 && v.BType != bs.E2M1 }},
		{Rule: blockscaleSeedRule("k64-fragment-bits", "require(p.scale_fragment_bits * p.scale_vector_size == 512)", doubtK64SF),
			Fires: func(v bs.Value) bool {
				return v.K == 64 && int(v.ScaleFragmentBits)*int(v.ScaleVecSize) != 512
			}},
	},
}

// seedLatticeAccepts is the seed's accept set in closed form, as we
// document it: K = 32 with FP4/FP6/FP8 A and B, ue8m0, 32 elements per
// scale and an 8-bit fragment; or K = 64 with e2m1 A and B, 16 or 32
// elements per scale, any scale type, and fragment bits × size = 512.
func seedLatticeAccepts(v bs.Value) bool {
	fp := func(t bs.Type) bool { return slices.Contains(fp4fp6fp8, t) }
	switch v.K {
	case 32:
		return fp(v.AType) && fp(v.BType) && v.SFType == bs.UE8M0 && v.ScaleVecSize == 32 && v.ScaleFragmentBits == 8
	case 64:
		return v.AType == bs.E2M1 && v.BType == bs.E2M1 && (v.ScaleVecSize == 16 || v.ScaleVecSize == 32) &&
			int(v.ScaleFragmentBits)*int(v.ScaleVecSize) == 512
	}
	return false
}

// ptxTable36 is PTX ISA 9.7.14.3's Table 36 of valid (.kind, .stype,
// .scale_vec) with the kind's K, up to PTX ISA 9.0.
var ptxTable36 = []struct {
	kind  bs.Kind
	k, n  int
	stype bs.SF
}{
	{bs.MXF8F6F4, 32, 1, bs.UE8M0},
	{bs.MXF4, 64, 2, bs.UE8M0},
	{bs.MXF4NVF4, 64, 2, bs.UE8M0},
	{bs.MXF4NVF4, 64, 4, bs.UE4M3},
}

// ptxBlockScaleAccepts is the PTX ISA's accept set in closed form: a
// block-scale target, a row of Table 36, the kind's A/B types, and
// 8 × N fragment bits.
func ptxBlockScaleAccepts(v bs.Value) bool {
	n, ok := v.ScaleVecN()
	if !ok || !blockScaleTarget(v.Tgt) || !v.Tgt.Names() || int(v.ScaleFragmentBits) != 8*n {
		return false
	}
	for _, row := range ptxTable36 {
		if row.kind == v.Kind && row.k == int(v.K) && row.n == n && row.stype == v.SFType {
			return blockScaleTypesOK(v)
		}
	}
	return false
}

func init() { registerSelfCheck(bs.Name, checkBlockScaleLattice) }

var (
	latticeOnce sync.Once
	latticeErr  error
)

// checkBlockScaleLattice compares both ladders with their documented
// closed forms: on the given value, and once on the whole small lattice
// (every type, scale type and kind; K, sizes and fragment bits around the
// legal ones; a few targets).
func checkBlockScaleLattice(v bs.Value) error {
	latticeOnce.Do(func() { latticeErr = enumerateLattice() })
	if latticeErr != nil {
		return latticeErr
	}
	return compareClosedForms(v)
}

func compareClosedForms(v bs.Value) error {
	if got, want := blockscaleSeed.Judge(v).Accept, seedLatticeAccepts(v); got != want {
		return fmt.Errorf("%v: seed ladder accepts=%t, closed form %t", v, got, want)
	}
	if got, want := blockscalePTXISA.Judge(v).Accept, ptxBlockScaleAccepts(v); got != want {
		return fmt.Errorf("%v: ptxisa ladder accepts=%t, closed form %t", v, got, want)
	}
	return nil
}

func enumerateLattice() error {
	targets := []target.Target{target.MustParse("sm_120a", ""), target.MustParse("sm_120f", ""),
		target.MustParse("sm_100a", "")}
	for _, t := range targets {
		for _, k := range []uint8{0, 16, 32, 64, 128} {
			for _, svs := range []uint8{0, 8, 16, 24, 32, 64} {
				for _, bits := range []uint8{0, 8, 16, 32, 64} {
					if err := enumerateTypes(bs.Value{K: k, ScaleVecSize: svs, ScaleFragmentBits: bits, Tgt: t}); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// enumerateTypes varies the enumerated fields of v over all their values.
func enumerateTypes(v bs.Value) error {
	for a := range len(bs.Types) {
		for b := range len(bs.Types) {
			for sf := range len(bs.SFs) {
				for k := range len(bs.Kinds) {
					v.AType, v.BType, v.SFType, v.Kind = bs.Type(a), bs.Type(b), bs.SF(sf), bs.Kind(k)
					if err := compareClosedForms(v); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
