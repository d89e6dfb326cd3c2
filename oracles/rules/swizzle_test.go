package rules

import (
	"strings"
	"testing"

	sw "github.com/legalfuzz/legalfuzz/fuzz/swizzle"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var (
	swSM90a  = target.MustParse("sm_90a", "")
	swSM100a = target.MustParse("sm_100a", "")
)

func swNamed(m sw.Mode, k int64, x uint32, t target.Target) sw.Value {
	b, mm, s := m.Triple()
	return sw.Value{Mode: m, B: b, M: mm, S: s, K: k, X: x, Tgt: t}
}

func swCuTe(b, m, s uint8, k int64) sw.Value {
	return sw.Value{Mode: sw.CuTe, B: b, M: m, S: s, K: k, Tgt: swSM90a}
}

const (
	swUnknown   = "Accepted swizzle modes are a closed target-aware enum. Unknown modes must not silently fold to identity after parsing."
	swPartition = "require(offset_preserves_swizzle_partition(swizzle, offset))"
)

func TestSwizzleSeedLadder(t *testing.T) {
	runRuleRows(t, swizzleSeed, []ruleRow[sw.Value]{
		{"identity commutes with any offset", swNamed(sw.None, 3, 0x1234, swSM90a), "", ""},
		{"128B with one period", swNamed(sw.B128, 1024, 0x10, swSM90a), "", ""},
		{"128B with a negative period", swNamed(sw.B128, -4096, 0x10, swSM90a), "", ""},
		{"32B with its 256-byte period", swNamed(sw.B32, 256, 0, swSM90a), "", ""},
		{"bare triple on its period", swCuTe(2, 3, 3, 256), "", ""},
		{"128B off its period", swNamed(sw.B128, 512, 0, swSM90a), "seed.swizzle.partition", swPartition},
		{"carry from below the fields", swNamed(sw.B128, 1, 0, swSM90a), "seed.swizzle.partition", swPartition},
		{"reserved mode", swNamed(sw.Reserved6, 0, 0, swSM90a), "seed.swizzle.unknown-mode", swUnknown + " (mode reserved6)"},
		{"128B with 32-byte atoms is not in the enum", swNamed(sw.B128Base32B, 512, 0, swSM100a),
			"seed.swizzle.unknown-mode", swUnknown + " (mode 128B_base32B)"},
	})
}

func TestSwizzlePTXISALadder(t *testing.T) {
	runRuleRows(t, swizzlePTXISA, []ruleRow[sw.Value]{
		{"old PTX", swNamed(sw.B128, 1024, 0, target.MustParse("sm_90a", "7.8")),
			"ptxisa.swizzle.target-ptx-version", "PTX ISA version does not know the .target: sm_90a (PTX 7.8)"},
		{"reserved mode", swNamed(sw.Reserved7, 0, 0, swSM90a), "ptxisa.swizzle.reserved-mode", "no swizzle mode has this encoding: reserved7"},
		{"8-byte chunks", swCuTe(2, 3, 3, 256), "ptxisa.swizzle.pattern",
			"not a hardware swizzle: Swizzle<B,4,3> with B <= 3, or Swizzle<2,5,2>: Swizzle<2,3,3>"},
		{"wider than 128B", swCuTe(4, 4, 3, 0), "ptxisa.swizzle.pattern",
			"not a hardware swizzle: Swizzle<B,4,3> with B <= 3, or Swizzle<2,5,2>: Swizzle<4,4,3>"},
		{"128B on sm_80", swNamed(sw.B128, 1024, 0, target.MustParse("sm_80", "")), "ptxisa.swizzle.target",
			"hardware swizzle modes (TMA, wgmma and tcgen05 descriptors) require sm_90 or newer"},
		{"none on sm_80", swNamed(sw.None, 5, 0, target.MustParse("sm_80", "")), "", "0x00000005"},
		{"32-byte atoms on Hopper", swNamed(sw.B128Base32B, 512, 0, swSM90a), "ptxisa.swizzle.base32b-target",
			"128B swizzling with 32-byte atoms requires an sm_100-class target"},
		{"32-byte atoms on Blackwell", swNamed(sw.B128Base32B, 512, 0, swSM100a), "", "0x00000200"},
		{"carry into the XORed bits", swNamed(sw.B128, 1, 143, swSM90a), "ptxisa.swizzle.commute-here",
			"add_offset and apply_swizzle do not commute at this address: swizzle(x)+k=0x000000a0, swizzle(x+k)=0x00000080"},
		{"misaligned offset that commutes here", swNamed(sw.B128, 1, 0, swSM90a), "", "0x00000001"},
		{"one period", swNamed(sw.B128, 1024, 0x100, swSM90a), "", "0x00000520"},
		{"wrap past 2^32", swNamed(sw.B128, 0x400, 0xfffffc80, swSM90a), "", "0x00000090"},
	})
}

// TestSwizzleDisagreement pins the campaign's main finding in this domain:
// the seed rejects every offset off the repeat period, while for a given
// address such an offset may commute.
func TestSwizzleDisagreement(t *testing.T) {
	v := swNamed(sw.B128, 1, 0, swSM90a)
	if swizzleSeed.Judge(v).Accept || !swizzlePTXISA.Judge(v).Accept {
		t.Fatal("want seed reject, ptxisa accept")
	}
}

// TestSwizzleNaiveMaskIsUnsound shows why the partition mask covers every
// bit below the window: k=1 touches neither bit field, yet its carry breaks
// the equation at x=143, which the brute force would report.
func TestSwizzleNaiveMaskIsUnsound(t *testing.T) {
	v := swNamed(sw.B128, 1, 143, swSM90a)
	if uint32(v.K)&(v.YMask()|v.ZMask()) != 0 {
		t.Fatal("k=1 should miss both bit fields")
	}
	if !swizzleCommuteCheck.Fires(v) {
		t.Fatal("k=1 should break the equation at x=143")
	}
	if offsetPreservesPartition(v) {
		t.Fatal("our predicate must reject k=1")
	}
}

// TestSwizzleSelfChecksExhaustive runs both self-checks over every
// representable triple with offsets on, off and around the repeat period.
func TestSwizzleSelfChecksExhaustive(t *testing.T) {
	maxB := uint8(sw.MaxB)
	if testing.Short() {
		maxB = 3
	}
	for b := range maxB + 1 {
		for m := range uint8(sw.MaxM + 1) {
			for s := range uint8(sw.MaxS + 1) {
				period := int64(1) << (b + m + s)
				for _, k := range []int64{0, period, -period, 3 * period, period / 2, 1, period - 1} {
					v := swCuTe(b, m, s, k)
					v.X = 0xdead_beef
					if err := SelfCheck(sw.Name, v); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestSwizzleSelfCheckCatchesABadPredicate feeds the brute force a value
// that a naive closed form would call commuting, by checking the equation
// directly over the window.
func TestSwizzleSelfCheckCatchesABadPredicate(t *testing.T) {
	v := swNamed(sw.B128, 1, 0, swSM90a)
	broken := 0
	for x := range uint32(1) << v.Window() {
		if applyBits(v, x)+1 != applyBits(v, x+1) {
			broken++
		}
	}
	if broken == 0 {
		t.Fatal("the brute force finds no address that breaks k=1, so it could not catch an unsound predicate")
	}
}

func TestSwizzleSeedRulesAreVerbatim(t *testing.T) {
	for _, r := range swizzleSeed.Rules() {
		if !strings.HasPrefix(r.Source, "seed 001, Swizzle Legality") || r.Doubtful == "" {
			t.Errorf("%s: source %q, doubtful %q", r.ID, r.Source, r.Doubtful)
		}
	}
}
