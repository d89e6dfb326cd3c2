package rules

import (
	"fmt"

	ca "github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

func init() { register(cpasyncSeed, cpasyncPTXISA) }

const (
	cpasyncSeedOps     = "seed 004, nvgpu.device_async_copy operand table"
	cpasyncSeedVerify  = "seed 004, Verification Invariants (device async copy)"
	cpasyncSeedPerArch = "seed 004, Per-Arch Availability"
)

func cpasyncSeedRule(name, msg, source, doubt string) *Rule {
	return seedRule(ca.Name, name, msg, source, doubt)
}

// cpasyncSeed is seed 004's nvgpu.device_async_copy verifier. The seed gives
// no diagnostics, so the messages state its invariants in our words, in the
// order the Verification Invariants section lists them (matching element
// types, unit-stride minor dimensions, supported transfer sizes, alignment
// under bypassL1), then its per-arch floor. "Correct alignment when L1
// bypass is requested" is read as the one thing a verifier can check
// statically: the .cg copy it selects must move 16 bytes. On accept the
// value is the PTX the seed's lowering prints.
var cpasyncSeed = &Ladder[ca.Value]{Set: Seed, Domain: ca.Name,
	Value: func(v ca.Value) string {
		return fmt.Sprintf("cp.async.%s.shared.global [dst], [src], %d;", seedCacheOp(v), v.CPSize())
	},
	Checks: []Check[ca.Value]{
		{Rule: cpasyncSeedRule("element-types", "source and destination element types must match", cpasyncSeedVerify, ""),
			Fires:  func(v ca.Value) bool { return v.Elem != v.SrcElem },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": %s vs %s", v.SrcElem, v.Elem) }},
		{Rule: cpasyncSeedRule("dst-unit-stride", "minor dim must be unit-stride", cpasyncSeedOps+" (dst)", ""),
			Fires:  func(v ca.Value) bool { return v.DstStride != 1 },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": dst stride %d", v.DstStride) }},
		{Rule: cpasyncSeedRule("src-unit-stride", "minor dim must be unit-stride", cpasyncSeedOps+" (src)", ""),
			Fires:  func(v ca.Value) bool { return v.SrcStride != 1 },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": src stride %d", v.SrcStride) }},
		{Rule: cpasyncSeedRule("dst-elements", "dstElements must be 4, 8 or 16", cpasyncSeedOps+" (dstElements)",
			"the seed counts elements but lowers to cp_size = dstElements * element bytes, and PTX cp-size is 4, 8 or 16 bytes: "+
				"16 f32 elements make a 64-byte copy the seed accepts, 2 f32 elements an 8-byte copy it refuses; upstream MLIR checks the byte count"),
			Fires:  func(v ca.Value) bool { return v.DstElements != 4 && v.DstElements != 8 && v.DstElements != 16 },
			Detail: func(v ca.Value) string { return fmt.Sprintf(", got %d", v.DstElements) }},
		{Rule: cpasyncSeedRule("bypass-l1-size", "bypassL1 (.cg) requires a 16-byte copy (dstElements * element bytes)", cpasyncSeedVerify, ""),
			Fires:  func(v ca.Value) bool { return v.BypassL1() && v.CPSize() != 16 },
			Detail: func(v ca.Value) string { return fmt.Sprintf(", got %d bytes", v.CPSize()) }},
		{Rule: cpasyncSeedRule("arch-floor", "nvgpu.device_async_copy requires sm_80 and PTX ISA 7.0", cpasyncSeedPerArch, ""),
			Fires:  func(v ca.Value) bool { return v.Tgt.Arch.SM < 80 || !ptxAtLeast(v.Tgt, 70) },
			Detail: func(v ca.Value) string { return ": " + v.Tgt.String() }},
	},
}

// seedCacheOp is the seed's lowering: cp_modifier = bypassL1 ? cg : ca. A
// cache operator other than .cg reads as bypassL1 unset.
func seedCacheOp(v ca.Value) string {
	if v.BypassL1() {
		return "cg"
	}
	return "ca"
}
