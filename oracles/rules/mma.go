package rules

import (
	"fmt"

	mm "github.com/legalfuzz/legalfuzz/fuzz/mma"
)

func init() { register(mmaSeed, mmaPTXISA) }

const (
	mmaSeedOps     = "seed 004, nvgpu.mma.sync / nvgpu.mma.sp.sync operand tables"
	mmaSeedVerify  = "seed 004, Verification Invariants (MMA and sparse MMA)"
	mmaSeedLower   = "seed 004, Lowering-Target Table"
	mmaSeedPerArch = "seed 004, Per-Arch Availability"
)

func mmaSeedRule(name, msg, source, doubt string) *Rule {
	return seedRule(mm.Name, name, msg, source, doubt)
}

// mmaSeedClass is the element type as an MLIR vector sees it: integers are
// signless, so s8/u8 and s4/u4 are one type each.
func mmaSeedClass(t mm.Type) mm.Type {
	switch t {
	case mm.U8:
		return mm.S8
	case mm.U4:
		return mm.S4
	}
	return t
}

// mmaSeed is seed 004's nvgpu.mma.sync / nvgpu.mma.sp.sync verifier: the
// operand tables' mmaShape array and sparsity selector, the Verification
// Invariants' element-type and tf32 checks, the lowering table's shapes and
// the per-arch floors. The seed gives no diagnostics; the messages are ours.
// It names no layout attribute (its lowering prints {row,col}.{row,col}), no
// type list and no ordered-metadata form, so it checks none of them. On
// accept the value is the instruction its lowering prints.
var mmaSeed = &Ladder[mm.Value]{Set: Seed, Domain: mm.Name,
	Value: mmaSeedLowering,
	Checks: []Check[mm.Value]{
		{Rule: mmaSeedRule("shape-rank", "mmaShape must be an array of length 3", mmaSeedOps, ""),
			Fires:  func(v mm.Value) bool { return v.ShapeRank != 3 },
			Detail: func(v mm.Value) string { return fmt.Sprintf(", got %d entries", v.ShapeRank) }},
		{Rule: mmaSeedRule("element-types", "matrixA and matrixB must have the same element type", mmaSeedVerify,
			"our reading of the seed's \"element-type checks\" over signless MLIR types; PTX mixes .e4m3 with .e5m2 "+
				"(dense m16n8k16/k32, sparse m16n8k64)"),
			Fires: func(v mm.Value) bool { return mmaSeedClass(v.AType) != mmaSeedClass(v.BType) }},
		{Rule: mmaSeedRule("tf32-operands", "tf32 only pairs with valid floating-point operands", mmaSeedVerify,
			"PTX's .tf32 and upstream MLIR (\"expected tf32 tensor cores only for F32 operands\") take only 32-bit float "+
				"operands; the seed's wording lets tf32Enabled pair with f16, bf16, f64 or FP8"),
			Fires: func(v mm.Value) bool { return v.TF32 && !v.AType.Float() }},
		{Rule: mmaSeedRule("sparsity-selector", "sparsitySelector must be 0 or 1", mmaSeedOps+" (sparsitySelector)",
			"PTX ISA 9.7.14.6.1: the selector is 0..3 at f16/bf16 m16n8k16 and tf32 m16n8k8, and only 0 at "+
				"s8/u8/FP8 m16n8k64 and s4/u4 m16n8k128"),
			Fires:  func(v mm.Value) bool { return v.Sparse() && v.Selector > 1 },
			Detail: func(v mm.Value) string { return fmt.Sprintf(", got %d", v.Selector) }},
		{Rule: mmaSeedRule("sparse-shape", "nvgpu.mma.sp.sync lowers only to mma.sp.sync.aligned.m16n8k{16,32}", mmaSeedLower,
			"PTX mma.sp also has m16n8k8 (tf32), m16n8k64 (s8/u8/s4/u4/FP8) and m16n8k128 (s4/u4)"),
			Fires: func(v mm.Value) bool {
				return v.Sparse() && !(v.M() == 16 && v.N() == 8 && (v.K() == 16 || v.K() == 32))
			},
			Detail: func(v mm.Value) string { return ", got " + v.ShapeName() }},
		{Rule: mmaSeedRule("dense-shape", "nvgpu.mma.sync lowers to mma.sync.aligned.m16n8kK", mmaSeedLower,
			"PTX mma also has m8n8k4 (f16, f64), m8n8k16 (s8/u8), m8n8k32 (s4/u4) and m8n8k128 (b1); the seed puts no bound on K"),
			Fires:  func(v mm.Value) bool { return !v.Sparse() && (v.M() != 16 || v.N() != 8) },
			Detail: func(v mm.Value) string { return ", got " + v.ShapeName() }},
		{Rule: mmaSeedRule("ptx-floor", "nvgpu.mma.sync requires sm_80 and PTX ISA 7.0", mmaSeedPerArch,
			"PTX has mma.sync since PTX ISA 6.4 (m8n8k4 on sm_70); moot on the targets legalfuzz knows"),
			Fires:  func(v mm.Value) bool { return !v.Sparse() && (v.Tgt.Arch.SM < 80 || !ptxAtLeast(v.Tgt, 70)) },
			Detail: func(v mm.Value) string { return ": " + v.Tgt.String() }},
		{Rule: mmaSeedRule("sparse-ptx-floor", "nvgpu.mma.sp.sync requires sm_80 and PTX ISA 7.1", mmaSeedPerArch, ""),
			Fires:  func(v mm.Value) bool { return v.Sparse() && (v.Tgt.Arch.SM < 80 || !ptxAtLeast(v.Tgt, 71)) },
			Detail: func(v mm.Value) string { return ": " + v.Tgt.String() }},
		{Rule: mmaSeedRule("hopper-path", "nvgpu.mma.sync on sm_90 redirects through nvvm.wgmma.mma_async, which needs PTX ISA 8.0",
			mmaSeedPerArch+" (Hopper path)",
			"mma.sync stays mma.sync on sm_90: upstream lowers nvgpu.mma.sync to nvvm.mma.sync on every target, and PTX "+
				"accepts it on sm_90 from PTX ISA 7.8"),
			Fires:  func(v mm.Value) bool { return !v.Sparse() && v.Tgt.Arch.SM >= 90 && !ptxAtLeast(v.Tgt, 80) },
			Detail: func(v mm.Value) string { return ": " + v.Tgt.String() }},
	},
}

// mmaSeedLowering is what the seed's lowering table prints: dense mma on
// sm_90 and later goes the Hopper path, sparse mma is always the
// row.col inline-asm template without ordered metadata.
func mmaSeedLowering(v mm.Value) string {
	switch {
	case v.Sparse():
		return mmaSpelling(v, "mma.sp.sync.aligned", mm.Row, mm.Col)
	case v.Tgt.Arch.SM >= 90:
		return "nvvm.wgmma.mma_async (seed 004's Hopper path)"
	}
	return mmaSpelling(v, "mma.sync.aligned", v.ALayout, v.BLayout)
}
