package rules

import (
	"fmt"

	sw "github.com/legalfuzz/legalfuzz/fuzz/swizzle"
)

const (
	ptxSwizzleModes = "PTX ISA 9.7.15.5.1.2.2 and 9.7.16.4.1 (descriptor swizzle modes); CUDA programming guide, TMA swizzle (16-byte granularity)"
	ptxSwizzleMath  = "CUDA programming guide, TMA swizzle: the pattern repeats every 1024/512/256 B; evaluated for this address"
)

// hardwareTriple reports whether the triple is one the hardware implements:
// identity, 16-byte chunks permuted across 8 rows of 32/64/128 bytes
// (Swizzle<1..3,4,3>), or 128 bytes with 32-byte atoms (Swizzle<2,5,2>).
func hardwareTriple(v sw.Value) bool {
	switch {
	case v.Identity():
		return true
	case v.M == 4 && v.S == 3:
		return v.B <= 3
	}
	return v.B == 2 && v.M == 5 && v.S == 2
}

// base32B reports whether v is the 128B-with-32B-atom pattern.
func base32B(v sw.Value) bool { return !v.Identity() && v.B == 2 && v.M == 5 && v.S == 2 }

// swizzleCommuteCheck judges the rewrite at this address only.
var swizzleCommuteCheck = Check[sw.Value]{
	Rule: ptxRule(sw.Name, "commute-here", "add_offset and apply_swizzle do not commute at this address", ptxSwizzleMath),
	Fires: func(v sw.Value) bool {
		return v.Apply(v.X)+uint32(v.K) != v.Apply(sw.AddOffset(v.X, v.K))
	},
	Detail: func(v sw.Value) string {
		return fmt.Sprintf(": swizzle(x)+k=0x%08x, swizzle(x+k)=0x%08x", v.Apply(v.X)+uint32(v.K), v.Swizzled())
	},
}

// swizzlePTXISA judges the hardware modes per target and the rewrite at
// this address; on accept it carries apply_swizzle(x + k).
var swizzlePTXISA = &Ladder[sw.Value]{Set: PTXISA, Domain: sw.Name,
	Value: func(v sw.Value) string { return fmt.Sprintf("0x%08x", v.Swizzled()) },
	Checks: []Check[sw.Value]{
		targetPTXCheck[sw.Value](sw.Name),
		{Rule: ptxRule(sw.Name, "reserved-mode", "no swizzle mode has this encoding", ptxSwizzleModes),
			Fires:  func(v sw.Value) bool { return v.Mode == sw.Reserved6 || v.Mode == sw.Reserved7 },
			Detail: func(v sw.Value) string { return ": " + v.Mode.String() }},
		{Rule: ptxRule(sw.Name, "pattern", "not a hardware swizzle: Swizzle<B,4,3> with B <= 3, or Swizzle<2,5,2>", ptxSwizzleModes),
			Fires:  func(v sw.Value) bool { return !hardwareTriple(v) },
			Detail: func(v sw.Value) string { return fmt.Sprintf(": Swizzle<%d,%d,%d>", v.B, v.M, v.S) }},
		{Rule: ptxRule(sw.Name, "target", "hardware swizzle modes (TMA, wgmma and tcgen05 descriptors) require sm_90 or newer", ptxSwizzleModes),
			Fires: func(v sw.Value) bool { return !v.Identity() && v.Tgt.Arch.SM < 90 }},
		{Rule: ptxRule(sw.Name, "base32b-target", "128B swizzling with 32-byte atoms requires an sm_100-class target",
			"PTX ISA 9.7.16.4.1 (tcgen05 descriptor swizzle mode 1); driver CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B"),
			Fires: func(v sw.Value) bool { return base32B(v) && v.Tgt.Arch.SM < 100 }},
		swizzleCommuteCheck,
	},
}
