package rules

import (
	"fmt"

	sw "github.com/legalfuzz/legalfuzz/fuzz/swizzle"
)

func init() {
	register(swizzleSeed, swizzlePTXISA)
	registerSelfCheck(sw.Name, checkSwizzleClosedForm)
	registerSelfCheck(sw.Name, checkSwizzlePerAddress)
}

const seed001Swizzle = "seed 001, Swizzle Legality"

// seedKnownMode is the closed enum the seed's words imply: none, 32B, 64B and
// 128B (a bare CuTe triple is a swizzle, not a parsed mode name, so it passes).
func seedKnownMode(m sw.Mode) bool { return m == sw.CuTe || (m >= sw.None && m <= sw.B128) }

// partitionMask is our definition of the bits offset_preserves_swizzle_partition
// guards, which the seed names but never defines: every address bit below
// the top of the swizzle's window 2^(B+M+S). That covers the bits the swizzle
// reads (YMask) and writes (ZMask) and every bit below them, since a carry
// out of a lower bit changes them too; the gap bits between the two fields
// are inside it as well. Masking only YMask|ZMask would be unsound: k=1 and
// x=143 under Swizzle<3,4,3> carry into bit 4 and break the equation.
func partitionMask(v sw.Value) uint64 { return 1<<v.Window() - 1 }

// offsetPreservesPartition is offset_preserves_swizzle_partition(swizzle,
// offset): (k & mask) == 0, i.e. k is a multiple of the repeat period.
func offsetPreservesPartition(v sw.Value) bool { return uint64(v.K)&partitionMask(v) == 0 }

// swizzleSeed is verify_swizzle_offset_commutation, preceded by the seed's
// closed-enum rule for parsed mode names.
var swizzleSeed = &Ladder[sw.Value]{Set: Seed, Domain: sw.Name,
	Checks: []Check[sw.Value]{
		{Rule: seedRule(sw.Name, "unknown-mode",
			"Accepted swizzle modes are a closed target-aware enum. Unknown modes must not silently fold to identity after parsing.",
			seed001Swizzle+" (closed mode enum)",
			"the seed calls the enum target-aware but lists no targets; we read it as none/32B/64B/128B on every target, "+
				"so tcgen05's 128B-with-32B-atom mode (<2,5,2>, which the seed's own UMMA verifier accepts) is unknown to it"),
			Fires:  func(v sw.Value) bool { return !seedKnownMode(v.Mode) },
			Detail: func(v sw.Value) string { return " (mode " + v.Mode.String() + ")" }},
		{Rule: seedRule(sw.Name, "partition", "require(offset_preserves_swizzle_partition(swizzle, offset))",
			seed001Swizzle+", verify_swizzle_offset_commutation; the seed does not define the predicate: ours is "+
				"(k & mask) == 0 with mask = every address bit below 2^(B+M+S), the bits the swizzle reads and writes and the bits whose carry reaches them",
			"the seed's predicate is undefined; ours rejects every offset that is not a multiple of the repeat period, "+
				"for every address, although for many addresses such an offset commutes"),
			Fires: func(v sw.Value) bool { return !v.Identity() && !offsetPreservesPartition(v) }},
	},
}

// checkSwizzleClosedForm brute-forces the seed set's closed form: when it
// says the offset commutes, the equation must hold for every address in the
// swizzle's window, with the high bits zero and with the value's own.
func checkSwizzleClosedForm(val sw.Value) error {
	if !seedKnownMode(val.Mode) || (!val.Identity() && !offsetPreservesPartition(val)) {
		return nil
	}
	window := uint32(1) << val.Window()
	for _, hi := range []uint32{0, val.X &^ (window - 1)} {
		for low := range window {
			x := hi | low
			if lhs, rhs := applyBits(val, x)+uint32(val.K), applyBits(val, sw.AddOffset(x, val.K)); lhs != rhs {
				return fmt.Errorf("%v: closed form says the offset commutes, but at x=0x%x swizzle(x)+k=0x%x, swizzle(x+k)=0x%x", val, x, lhs, rhs)
			}
		}
	}
	return nil
}

// checkSwizzlePerAddress compares the ptxisa set's per-address verdict and
// accepted address with a direct, bit-by-bit evaluation.
func checkSwizzlePerAddress(val sw.Value) error {
	commutes := applyBits(val, val.X)+uint32(val.K) == applyBits(val, sw.AddOffset(val.X, val.K))
	if got := !swizzleCommuteCheck.Fires(val); got != commutes {
		return fmt.Errorf("%v: ptxisa commute rule says commutes=%v, direct evaluation %v", val, got, commutes)
	}
	if j := swizzlePTXISA.Judge(val); j.Accept {
		if want := fmt.Sprintf("0x%08x", applyBits(val, sw.AddOffset(val.X, val.K))); j.Value != want {
			return fmt.Errorf("%v: ptxisa value %s, direct evaluation %s", val, j.Value, want)
		}
	}
	return nil
}

// applyBits evaluates the swizzle one bit at a time from the original
// address: destination bit M+i flips when source bit M+S+i is set. It shares
// no code with Value.Apply, so each checks the other.
func applyBits(v sw.Value, o uint32) uint32 {
	out := o
	for i := range uint(v.B) {
		src, dst := uint(v.M)+uint(v.S)+i, uint(v.M)+i
		if o>>src&1 == 1 {
			out ^= 1 << dst
		}
	}
	return out
}
