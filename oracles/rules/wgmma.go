package rules

import (
	"fmt"

	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

func init() { register(wgmmaSeed, wgmmaPTXISA) }

const (
	wgmmaSeedVerify  = "seed 004, Verification Invariants (WGMMA)"
	wgmmaSeedOps     = "seed 004, nvgpu.warpgroup.mma operand table"
	wgmmaSeedLower   = "seed 004, Lowering-Target Table (nvgpu.warpgroup.mma)"
	wgmmaSeedPerArch = "seed 004, Per-Arch Availability (nvgpu.warpgroup.mma)"
)

func wgmmaSeedRule(name, msg, source, doubt string) *Rule {
	return seedRule(wg.Name, name, msg, source, doubt)
}

// wgmmaSeedType reports whether t is one of the A/B types the seed's
// lowering spells (in any combination, always with an f32 accumulator).
func wgmmaSeedType(t wg.Type) bool {
	return t == wg.F16 || t == wg.BF16 || t == wg.E4M3 || t == wg.E5M2
}

// wgmmaSeed is seed 004's nvgpu.warpgroup.mma: the five Verification
// Invariants in the seed's order (rank-2 fragments, compatible M/N/K, a
// supported tile shape, matching accumulator and result types, legal
// transpose flags), then what its operand table and lowering can express,
// then its per-arch floor. The seed gives no diagnostics; the messages are
// ours. Our readings: the supported tile is the lowering's m64nXkY with X a
// multiple of 8 up to 256 and Y one 32-byte row of A; legal transposes are
// those on 16-bit types, where the seed wires them into the layout. On
// accept the value is the instruction its lowering prints.
var wgmmaSeed = &Ladder[wg.Value]{Set: Seed, Domain: wg.Name,
	Value: func(v wg.Value) string {
		return fmt.Sprintf("wgmma.mma_async.sync.aligned.%s.f32.%s.%s", v.ShapeName(), v.AType, v.BType)
	},
	Checks: []Check[wg.Value]{
		{Rule: wgmmaSeedRule("rank", "matrix fragments must be rank 2", wgmmaSeedVerify, ""),
			Fires:  func(v wg.Value) bool { return v.Rank != 2 },
			Detail: func(v wg.Value) string { return fmt.Sprintf(", got rank %d", v.Rank) }},
		{Rule: wgmmaSeedRule("mnk", "M/N/K must be compatible: A is MxK and B is KxN", wgmmaSeedVerify, ""),
			Fires:  func(v wg.Value) bool { return v.BK != v.K },
			Detail: func(v wg.Value) string { return fmt.Sprintf(": A has K=%d, B has K=%d", v.K, v.BK) }},
		{Rule: wgmmaSeedRule("tile-shape", "unsupported tile shape: the lowering emits m64nXkY, X a multiple of 8 up to 256, Y one 32-byte row of A",
			wgmmaSeedVerify+"; "+wgmmaSeedLower, ""),
			Fires: func(v wg.Value) bool {
				return v.M != 64 || v.N%8 != 0 || v.N < 8 || v.N > 256 || v.K != wg.NaturalK(v.AType, false)
			},
			Detail: func(v wg.Value) string { return ", got " + v.ShapeName() }},
		{Rule: wgmmaSeedRule("acc-result", "accumulator and result types must match", wgmmaSeedVerify, ""),
			Fires:  func(v wg.Value) bool { return v.DType != v.ResultType },
			Detail: func(v wg.Value) string { return fmt.Sprintf(": %s vs %s", v.DType, v.ResultType) }},
		{Rule: wgmmaSeedRule("transpose", "transpose flags are legal only for f16/bf16", wgmmaSeedVerify, ""),
			Fires: func(v wg.Value) bool {
				return (v.TransA || v.TransB) && v.AType != wg.F16 && v.AType != wg.BF16
			}},
		{Rule: wgmmaSeedRule("types", "the lowering emits only wgmma.mma_async.sync.aligned.m64nXkY.f32.{f16,bf16,e4m3,e5m2}.{f16,bf16,e4m3,e5m2}",
			wgmmaSeedLower,
			"PTX also has .tf32, .s8/.u8 (.s32), .b1 and .f16 accumulators (over f16, e4m3, e5m2); and PTX needs "+
				".atype == .btype for f16/bf16, while the seed's cross product allows f16 x bf16 or f16 x e4m3"),
			Fires: func(v wg.Value) bool {
				return !wgmmaSeedType(v.AType) || !wgmmaSeedType(v.BType) || v.DType != wg.AccF32
			}},
		{Rule: wgmmaSeedRule("a-descriptor", "nvgpu.warpgroup.mma takes A as a shared-memory descriptor (descriptorA)",
			wgmmaSeedOps, "PTX also takes A from registers"),
			Fires: func(v wg.Value) bool { return v.ARegister }},
		{Rule: wgmmaSeedRule("imm-scales", "the lowering passes imm-scale-a = imm-scale-b = 1", wgmmaSeedLower,
			"PTX allows -1 (negate A or B) for floating-point types"),
			Fires: func(v wg.Value) bool { return v.ScaleA != 1 || v.ScaleB != 1 }},
		{Rule: wgmmaSeedRule("qualifiers", "nvgpu.warpgroup.mma has no .sp or .satfinite form", wgmmaSeedOps,
			"PTX has wgmma.mma_async.sp (PTX ISA 8.2) and .satfinite for .s8/.u8"),
			Fires: func(v wg.Value) bool { return v.Sparse || v.Satfinite }},
		{Rule: wgmmaSeedRule("arch-floor", "nvgpu.warpgroup.mma requires sm_90a (plain sm_90 rejects it) and PTX ISA 8.0",
			wgmmaSeedPerArch,
			"read as a floor, it admits sm_100a, sm_120a and later; PTX's wgmma.mma_async requires exactly sm_90a"),
			Fires: func(v wg.Value) bool {
				a := v.Tgt.Arch
				return a.SM < 90 || (a.SM == 90 && !a.ArchSpecific()) || !ptxAtLeast(v.Tgt, 80)
			},
			Detail: func(v wg.Value) string { return ": " + v.Tgt.String() }},
	},
}
