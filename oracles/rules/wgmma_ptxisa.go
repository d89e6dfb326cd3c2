package rules

import (
	"fmt"
	"slices"
	"strings"

	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

const (
	wgmmaSrc       = "PTX ISA 9.7.15.5.2 (wgmma.mma_async)"
	wgmmaSrcSparse = "PTX ISA 9.7.15.6.3 (wgmma.mma_async.sp)"
	// wgmmaSrcN notes where the integer N list comes from: the dense integer
	// syntax block stops at 224, while the sparse integer and .b1 blocks,
	// CUTLASS and MLIR's NVVM verifier go on to 240 and 256.
	wgmmaSrcN = wgmmaSrc + ", shape lists (dense .s8/.u8 N 240 and 256 as in the .b1 and sparse integer lists)"
)

func wgmmaRule(name, msg, source string) *Rule { return ptxRule(wg.Name, name, msg, source) }

// wgmmaIntForm reports whether t makes an .s32 form (8-bit integer or .b1).
func wgmmaIntForm(t wg.Type) bool { return t.Int8() || t == wg.B1 }

// wgmmaPairOK: A and B are the same type, or both FP8, or both 8-bit
// integers (the mixed integer pairs from PTX ISA 8.4).
func wgmmaPairOK(a, b wg.Type) bool {
	switch {
	case a.FP8():
		return b.FP8()
	case a.Int8():
		return b.Int8()
	}
	return a == b
}

// wgmmaDTypes lists the .dtype values per A type.
func wgmmaDTypes(a wg.Type) []wg.AccType {
	switch {
	case a == wg.F16 || a.FP8():
		return []wg.AccType{wg.AccF16, wg.AccF32}
	case a == wg.BF16 || a == wg.TF32:
		return []wg.AccType{wg.AccF32}
	}
	return []wg.AccType{wg.AccS32}
}

// wgmmaNOK is the closed form of the shape lists: N a multiple of 8 in
// [8, 256] for the floating-point types; 8, 16, 24 and multiples of 16 up to
// 256 for .s8/.u8/.b1.
func wgmmaNOK(t wg.Type, n int) bool {
	if wgmmaIntForm(t) {
		return n == 8 || n == 16 || n == 24 || (n%16 == 0 && n >= 32 && n <= 256)
	}
	return n%8 == 0 && n >= 8 && n <= 256
}

// wgmmaSpSelMax is the largest sp-sel: a thread pair (0 or 1) contributes
// the metadata for .tf32/.f16/.bf16, all four threads (0) for FP8 and .s8/.u8.
func wgmmaSpSelMax(t wg.Type) uint8 {
	if t == wg.F16 || t == wg.BF16 || t == wg.TF32 {
		return 1
	}
	return 0
}

// wgmmaPTXISA judges the instruction from the PTX ISA; every form needs
// exactly sm_90a.
var wgmmaPTXISA = &Ladder[wg.Value]{Set: PTXISA, Domain: wg.Name,
	Value: wgmmaSpelling,
	Checks: append([]Check[wg.Value]{
		targetPTXCheck[wg.Value](wg.Name),
		{Rule: wgmmaRule("target", "wgmma.mma_async requires sm_90a", wgmmaSrc),
			Fires:  func(v wg.Value) bool { return !archIn(v.Tgt, "sm_90a") },
			Detail: func(v wg.Value) string { return ", got " + v.Tgt.Arch.String() }},
		{Rule: wgmmaRule("rank", "A (MxK), B (KxN) and D (MxN) are 2-D matrices", wgmmaSrc),
			Fires: func(v wg.Value) bool { return v.Rank != 2 }},
		{Rule: wgmmaRule("mnk", "A and B must share K: one .shape names both", wgmmaSrc),
			Fires: func(v wg.Value) bool { return v.BK != v.K }},
		{Rule: wgmmaRule("acc-result", "d is both accumulator and destination: one .dtype", wgmmaSrc),
			Fires: func(v wg.Value) bool { return v.ResultType != v.DType }},
		{Rule: wgmmaRule("input-type", "no wgmma.mma_async takes this .atype/.btype", wgmmaSrc),
			Fires: func(v wg.Value) bool {
				return v.AType == wg.F64 || v.AType == wg.S4 || v.BType == wg.F64 || v.BType == wg.S4
			},
			Detail: func(v wg.Value) string { return ": ." + v.AType.String() + "/." + v.BType.String() }},
		{Rule: wgmmaRule("type-pair", ".atype and .btype must match, or both be FP8 or both 8-bit integers", wgmmaSrc),
			Fires: func(v wg.Value) bool { return !wgmmaPairOK(v.AType, v.BType) }},
		{Rule: wgmmaRule("sparse-b1", "wgmma.mma_async.sp has no .b1 form", wgmmaSrcSparse),
			Fires: func(v wg.Value) bool { return v.Sparse && v.AType == wg.B1 }},
		{Rule: wgmmaRule("dtype", ".dtype not allowed for this .atype", wgmmaSrc),
			Fires:  func(v wg.Value) bool { return !slices.Contains(wgmmaDTypes(v.AType), v.DType) },
			Detail: func(v wg.Value) string { return ": ." + v.DType.String() + " with ." + v.AType.String() }},
		{Rule: wgmmaRule("m", "M must be 64", wgmmaSrc),
			Fires: func(v wg.Value) bool { return v.M != 64 }},
		{Rule: wgmmaRule("k", "K must be one 32-byte row of A (16 .f16/.bf16, 8 .tf32, 32 8-bit, 256 .b1), doubled with .sp",
			wgmmaSrc+"; "+wgmmaSrcSparse),
			Fires:  func(v wg.Value) bool { return v.K != wg.NaturalK(v.AType, v.Sparse) },
			Detail: func(v wg.Value) string { return fmt.Sprintf(": got %d, want %d", v.K, wg.NaturalK(v.AType, v.Sparse)) }},
		{Rule: wgmmaRule("n", "N not allowed for this .atype", wgmmaSrcN),
			Fires:  func(v wg.Value) bool { return !wgmmaNOK(v.AType, int(v.N)) },
			Detail: func(v wg.Value) string { return fmt.Sprintf(": n%d with .%s", v.N, v.AType) }},
		{Rule: wgmmaRule("sp-sel", "sp-sel must be 0 or 1 for .tf32/.f16/.bf16 and 0 for FP8 and .s8/.u8", wgmmaSrcSparse),
			Fires: func(v wg.Value) bool { return v.Sparse && v.SpSel > wgmmaSpSelMax(v.AType) }},
	}, wgmmaOperandChecks...),
}

// wgmmaOperandChecks are the immediates, qualifiers and PTX version gates.
var wgmmaOperandChecks = []Check[wg.Value]{
	{Rule: wgmmaRule("transpose", "imm-trans-a/b apply only to .f16/.bf16", wgmmaSrc),
		Fires: func(v wg.Value) bool { return (v.TransA || v.TransB) && v.AType != wg.F16 && v.AType != wg.BF16 }},
	{Rule: wgmmaRule("trans-a-register", "imm-trans-a needs A from a shared-memory descriptor", wgmmaSrc),
		Fires: func(v wg.Value) bool { return v.TransA && v.ARegister }},
	{Rule: wgmmaRule("scale-values", "imm-scale-a/b must be -1 or 1", wgmmaSrc),
		Fires: func(v wg.Value) bool { return !wgmmaUnitScale(v.ScaleA) || !wgmmaUnitScale(v.ScaleB) }},
	{Rule: wgmmaRule("scale-integer", "integer and .b1 forms take no imm-scale-a/b: no negation", wgmmaSrc),
		Fires: func(v wg.Value) bool { return wgmmaIntForm(v.AType) && (v.ScaleA == -1 || v.ScaleB == -1) }},
	{Rule: wgmmaRule("satfinite", ".satfinite applies only to .s8/.u8", wgmmaSrc),
		Fires: func(v wg.Value) bool { return v.Satfinite && !v.AType.Int8() }},
	{Rule: wgmmaRule("sparse-ptx", "wgmma.mma_async.sp requires PTX ISA 8.2", wgmmaSrcSparse),
		Fires: func(v wg.Value) bool { return v.Sparse && !ptxAtLeast(v.Tgt, 82) }},
	{Rule: wgmmaRule("mixed-int-ptx", ".u8.s8 and .s8.u8 require PTX ISA 8.4", wgmmaSrc+"; "+wgmmaSrcSparse),
		Fires: func(v wg.Value) bool { return v.AType.Int8() && v.AType != v.BType && !ptxAtLeast(v.Tgt, 84) }},
}

func wgmmaUnitScale(s int8) bool { return s == 1 || s == -1 }

// wgmmaSpelling spells the accepted instruction:
// wgmma.mma_async{.sp}.sync.aligned.SHAPE{.satfinite}.D.A.B{.and.popc}.
func wgmmaSpelling(v wg.Value) string {
	var s strings.Builder
	s.WriteString("wgmma.mma_async")
	if v.Sparse {
		s.WriteString(".sp")
	}
	s.WriteString(".sync.aligned." + v.ShapeName())
	if v.Satfinite {
		s.WriteString(".satfinite")
	}
	fmt.Fprintf(&s, ".%s.%s.%s", v.DType, v.AType, v.BType)
	if v.AType == wg.B1 {
		s.WriteString(".and.popc")
	}
	return s.String()
}

func init() { registerSelfCheck(wg.Name, checkWGMMAShapeLists) }

// wgmmaNLists are the PTX shape lists transcribed: every multiple of 8 for
// the floating-point types, the short list for .s8/.u8/.b1.
var wgmmaNLists = map[bool][]int{
	false: {8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128,
		136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256},
	true: {8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256},
}

// wgmmaKTable is K per input type from the syntax blocks: dense, sparse
// (0: no sparse form).
var wgmmaKTable = map[wg.Type][2]uint16{
	wg.F16: {16, 32}, wg.BF16: {16, 32}, wg.TF32: {8, 16}, wg.E4M3: {32, 64}, wg.E5M2: {32, 64},
	wg.S8: {32, 64}, wg.U8: {32, 64}, wg.B1: {256, 0},
}

// checkWGMMAShapeLists holds the N and K closed forms to the transcribed
// lists at the value's own N and type.
func checkWGMMAShapeLists(val wg.Value) error {
	k, ok := wgmmaKTable[val.AType]
	if !ok {
		return nil
	}
	if want := slices.Contains(wgmmaNLists[wgmmaIntForm(val.AType)], int(val.N)); wgmmaNOK(val.AType, int(val.N)) != want {
		return fmt.Errorf("N=%d for .%s: closed form says %v, PTX list %v", val.N, val.AType, !want, want)
	}
	if wg.NaturalK(val.AType, false) != k[0] || (k[1] != 0 && wg.NaturalK(val.AType, true) != k[1]) {
		return fmt.Errorf("K for .%s: closed form %d/%d, PTX %d/%d", val.AType,
			wg.NaturalK(val.AType, false), wg.NaturalK(val.AType, true), k[0], k[1])
	}
	return nil
}
