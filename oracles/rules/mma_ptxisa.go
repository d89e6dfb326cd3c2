package rules

import (
	"fmt"
	"slices"
	"strings"

	mm "github.com/legalfuzz/legalfuzz/fuzz/mma"
)

const (
	mmaSrcDense  = "PTX ISA 9.7.14.5.14 (mma)"
	mmaSrcSparse = "PTX ISA 9.7.14.6.3 (mma.sp / mma.sp::ordered_metadata)"
	mmaSrcSel    = "PTX ISA 9.7.14.6.1 (sparse matrix storage: sparsity selector)"
)

// mmaFam is the PTX input-type family an instruction belongs to, named by
// its A type; tf32 is an f32 operand with tf32Enabled.
type mmaFam int

const (
	mmaFamNone mmaFam = iota // no mma takes this A type
	mmaFamF16
	mmaFamBF16
	mmaFamTF32
	mmaFamF64
	mmaFamFP8
	mmaFamI8
	mmaFamI4
	mmaFamB1
)

func mmaFamily(t mm.Type, tf32 bool) mmaFam {
	switch t {
	case mm.F16:
		return mmaFamF16
	case mm.BF16:
		return mmaFamBF16
	case mm.F32:
		if tf32 {
			return mmaFamTF32
		}
	case mm.F64:
		return mmaFamF64
	case mm.E4M3, mm.E5M2:
		return mmaFamFP8
	case mm.S8, mm.U8:
		return mmaFamI8
	case mm.S4, mm.U4:
		return mmaFamI4
	case mm.B1:
		return mmaFamB1
	}
	return mmaFamNone
}

// mmaShapes lists the m-n-k shapes per family, from the syntax blocks of the
// dense and sparse instructions.
var mmaShapes = map[bool]map[mmaFam][][3]int{
	false: {
		mmaFamF16: {{8, 8, 4}, {16, 8, 8}, {16, 8, 16}}, mmaFamBF16: {{16, 8, 8}, {16, 8, 16}},
		mmaFamTF32: {{16, 8, 4}, {16, 8, 8}}, mmaFamF64: {{8, 8, 4}, {16, 8, 4}, {16, 8, 8}, {16, 8, 16}},
		mmaFamFP8: {{16, 8, 16}, {16, 8, 32}}, mmaFamI8: {{8, 8, 16}, {16, 8, 16}, {16, 8, 32}},
		mmaFamI4: {{8, 8, 32}, {16, 8, 32}, {16, 8, 64}}, mmaFamB1: {{8, 8, 128}, {16, 8, 128}, {16, 8, 256}},
	},
	true: {
		mmaFamF16: {{16, 8, 16}, {16, 8, 32}}, mmaFamBF16: {{16, 8, 16}, {16, 8, 32}}, mmaFamTF32: {{16, 8, 8}, {16, 8, 16}},
		mmaFamFP8: {{16, 8, 64}}, mmaFamI8: {{16, 8, 32}, {16, 8, 64}}, mmaFamI4: {{16, 8, 64}, {16, 8, 128}},
	},
}

// mmaAccumulators lists the C/D types per family; FP8 takes .f16 only in
// the dense form.
func mmaAccumulators(f mmaFam, sparse bool) []mm.Type {
	switch f {
	case mmaFamF16:
		return []mm.Type{mm.F16, mm.F32}
	case mmaFamFP8:
		if sparse {
			return []mm.Type{mm.F32}
		}
		return []mm.Type{mm.F16, mm.F32}
	case mmaFamBF16, mmaFamTF32:
		return []mm.Type{mm.F32}
	case mmaFamF64:
		return []mm.Type{mm.F64}
	}
	return []mm.Type{mm.S32}
}

// mmaPairOK reports whether A and B may be combined: the same type, or two
// members of the FP8, 8-bit or 4-bit integer families.
func mmaPairOK(a, b mm.Type, tf32 bool) bool {
	fa, fb := mmaFamily(a, tf32), mmaFamily(b, tf32)
	return a == b || (fa == fb && (fa == mmaFamFP8 || fa == mmaFamI8 || fa == mmaFamI4))
}

// mmaSelectors is the number of sparsity-selector values a sparse shape
// allows: the metadata for a group of four threads comes from one thread
// (4 choices), a pair (2) or all four (1). For 16- and 32-bit inputs the
// smallest K takes 4, for 8- and 4-bit inputs 2, halving as K doubles.
func mmaSelectors(t mm.Type, k int) int {
	bits, base := t.Bits(), 4
	if bits < 16 {
		base = 2
	}
	if k*bits == 0 {
		return 0
	}
	return base * 256 / (k * bits)
}

func mmaFamOf(v mm.Value) mmaFam { return mmaFamily(v.AType, v.TF32) }

func mmaShapeOK(v mm.Value) bool {
	return slices.Contains(mmaShapes[v.Sparse()][mmaFamOf(v)], [3]int{v.M(), v.N(), v.K()})
}

func mmaIsInt(v mm.Value) bool { f := mmaFamOf(v); return f == mmaFamI8 || f == mmaFamI4 }

func mmaRule(name, msg, source string) *Rule { return ptxRule(mm.Name, name, msg, source) }

// mmaPTXISA judges the instruction from the PTX ISA: structure first, then
// the target and PTX version gates.
var mmaPTXISA = &Ladder[mm.Value]{Set: PTXISA, Domain: mm.Name,
	Value: func(v mm.Value) string {
		op := map[mm.Sparsity]string{mm.Dense: "mma.sync.aligned", mm.SP: "mma.sp.sync.aligned",
			mm.SPOrdered: "mma.sp::ordered_metadata.sync.aligned"}[v.Sparsity]
		return mmaSpelling(v, op, v.ALayout, v.BLayout)
	},
	Checks: append([]Check[mm.Value]{
		targetPTXCheck[mm.Value](mm.Name),
		{Rule: mmaRule("shape-rank", "the shape is .mMnNkK: three entries", mmaSrcDense),
			Fires: func(v mm.Value) bool { return v.ShapeRank != 3 }},
		{Rule: mmaRule("tf32-operands", ".tf32 applies only when A and B are 32-bit floats", mmaSrcDense),
			Fires: func(v mm.Value) bool { return v.TF32 && (v.AType != mm.F32 || v.BType != mm.F32) }},
		{Rule: mmaRule("input-type", "no mma takes this .atype/.btype (32-bit floats only as .tf32)", mmaSrcDense),
			Fires: func(v mm.Value) bool {
				return mmaFamOf(v) == mmaFamNone || mmaFamily(v.BType, v.TF32) == mmaFamNone
			},
			Detail: func(v mm.Value) string { return ": ." + v.TypeName(v.AType) + "/." + v.TypeName(v.BType) }},
		{Rule: mmaRule("type-pair", ".atype and .btype must match, or both be FP8, 8-bit or 4-bit integers", mmaSrcDense),
			Fires: func(v mm.Value) bool { return !mmaPairOK(v.AType, v.BType, v.TF32) }},
		{Rule: mmaRule("sparse-type", "mma.sp has no .f64 or .b1 form", mmaSrcSparse),
			Fires: func(v mm.Value) bool { f := mmaFamOf(v); return v.Sparse() && (f == mmaFamF64 || f == mmaFamB1) }},
		{Rule: mmaRule("shape", "no mma of this shape for this .atype", mmaSrcDense+"; "+mmaSrcSparse),
			Fires:  func(v mm.Value) bool { return !mmaShapeOK(v) },
			Detail: func(v mm.Value) string { return ": ." + v.ShapeName() + " ." + v.TypeName(v.AType) }},
		{Rule: mmaRule("accumulator-type", ".ctype/.dtype not allowed for this .atype", mmaSrcDense+"; "+mmaSrcSparse),
			Fires: func(v mm.Value) bool {
				acc := mmaAccumulators(mmaFamOf(v), v.Sparse())
				return !slices.Contains(acc, v.CType) || !slices.Contains(acc, v.DType)
			}},
		{Rule: mmaRule("dtype-ctype", ".dtype must equal .ctype (only m8n8k4 .f16 lets an .f16 C give an .f32 D)", mmaSrcDense),
			Fires: func(v mm.Value) bool {
				if v.K() == 4 && v.M() == 8 && mmaFamOf(v) == mmaFamF16 {
					return v.CType == mm.F32 && v.DType == mm.F16
				}
				return v.CType != v.DType
			}},
		{Rule: mmaRule("layout", ".row.col is the only layout except for dense .m8n8k4 .f16", mmaSrcDense),
			Fires: func(v mm.Value) bool {
				free := !v.Sparse() && v.M() == 8 && v.K() == 4 && mmaFamOf(v) == mmaFamF16
				return !free && (v.ALayout != mm.Row || v.BLayout != mm.Col)
			}},
		{Rule: mmaRule("satfinite", ".satfinite applies only to .s8/.u8/.s4/.u4", mmaSrcDense),
			Fires: func(v mm.Value) bool { return v.Satfinite && !mmaIsInt(v) }},
		{Rule: mmaRule("bit-op", ".b1 needs .xor.popc or .and.popc, and only .b1 takes them", mmaSrcDense),
			Fires: func(v mm.Value) bool { return (mmaFamOf(v) == mmaFamB1) != (v.BitOp != mm.NoBitOp) }},
		{Rule: mmaRule("selector", "sparsity selector out of range for this shape and type", mmaSrcSel),
			Fires: func(v mm.Value) bool {
				return v.Sparse() && int(v.Selector) >= mmaSelectors(v.AType, v.K())
			},
			Detail: func(v mm.Value) string {
				return fmt.Sprintf(": %d, allowed 0..%d", v.Selector, mmaSelectors(v.AType, v.K())-1)
			}},
	}, mmaGates...),
}

// mmaGates are the target and PTX version requirements of the instruction
// forms; every known target already has sm_80 and PTX ISA 7.0.
var mmaGates = []Check[mm.Value]{
	{Rule: mmaRule("fp8-target", ".e4m3/.e5m2 mma requires sm_89 or higher", mmaSrcDense),
		Fires: func(v mm.Value) bool { return mmaFamOf(v) == mmaFamFP8 && v.Tgt.Arch.SM < 89 }},
	{Rule: mmaRule("fp8-ptx", ".e4m3/.e5m2 mma requires PTX ISA 8.4", mmaSrcDense),
		Fires: func(v mm.Value) bool { return mmaFamOf(v) == mmaFamFP8 && !ptxAtLeast(v.Tgt, 84) }},
	{Rule: mmaRule("fp8-k16-f16-ptx", ".e4m3/.e5m2 mma with .m16n8k16 or .f16 accumulators requires PTX ISA 8.7", mmaSrcDense),
		Fires: func(v mm.Value) bool {
			return mmaFamOf(v) == mmaFamFP8 && (v.K() == 16 || v.CType == mm.F16) && !ptxAtLeast(v.Tgt, 87)
		}},
	{Rule: mmaRule("f64-target", ".f64 mma with .m16n8k4/k8/k16 requires sm_90 or higher", mmaSrcDense),
		Fires: func(v mm.Value) bool { return mmaFamOf(v) == mmaFamF64 && v.M() == 16 && v.Tgt.Arch.SM < 90 }},
	{Rule: mmaRule("and-popc-ptx", ".and.popc requires PTX ISA 7.1", mmaSrcDense),
		Fires: func(v mm.Value) bool { return v.BitOp == mm.AndPopc && !ptxAtLeast(v.Tgt, 71) }},
	{Rule: mmaRule("sparse-ptx", "mma.sp requires PTX ISA 7.1", mmaSrcSparse),
		Fires: func(v mm.Value) bool { return v.Sparse() && !ptxAtLeast(v.Tgt, 71) }},
	{Rule: mmaRule("ordered-metadata-ptx", "mma.sp::ordered_metadata requires PTX ISA 8.5", mmaSrcSparse),
		Fires: func(v mm.Value) bool { return v.Sparsity == mm.SPOrdered && !ptxAtLeast(v.Tgt, 85) }},
}

// mmaSpelling spells op.shape.alayout.blayout{.satfinite}.d.a.b.c{.bitop.popc}.
func mmaSpelling(v mm.Value, op string, a, b mm.Layout) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s.%s.%s.%s", op, v.ShapeName(), a, b)
	if v.Satfinite {
		s.WriteString(".satfinite")
	}
	fmt.Fprintf(&s, ".%s.%s.%s.%s", v.DType, v.TypeName(v.AType), v.TypeName(v.BType), v.CType)
	if v.BitOp != mm.NoBitOp {
		fmt.Fprintf(&s, ".%s.popc", v.BitOp)
	}
	return s.String()
}

func init() { registerSelfCheck(mm.Name, checkMMASelectors) }

// mmaSelectorTable is PTX ISA 9.7.14.6.1 transcribed: selector values per
// sparse family and K.
var mmaSelectorTable = map[mmaFam]map[int]int{
	mmaFamF16: {16: 4, 32: 2}, mmaFamBF16: {16: 4, 32: 2}, mmaFamTF32: {8: 4, 16: 2},
	mmaFamI8: {32: 2, 64: 1}, mmaFamI4: {64: 2, 128: 1}, mmaFamFP8: {64: 1},
}

// checkMMASelectors holds the selector rule's closed form to the transcribed
// table for every sparse shape the value's family has.
func checkMMASelectors(val mm.Value) error {
	f := mmaFamOf(val)
	for _, shape := range mmaShapes[true][f] {
		want, got := mmaSelectorTable[f][shape[2]], mmaSelectors(val.AType, shape[2])
		if want != got {
			return fmt.Errorf("selector count for %s k%d: closed form %d, PTX table %d", val.TypeName(val.AType), shape[2], got, want)
		}
	}
	return nil
}
