package rules

import (
	"fmt"
	"strconv"

	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

func init() { register(tmadescSeed, tmadescPTXISA) }

// Seed 000 is an audit table, not code: each claim it rates Valid or
// Oversimplified about cuTensorMapEncodeTiled and the TMA swizzle rules is a
// rule here, with the claim text (or, where the Hardware_Reality column adds
// a condition, that column's text) as its message, in row order. The seed
// speaks of tiled boxes only, so its boxDim claims judge tiled values only.

const seed000Row = "seed 000, Claim Verification Matrix row "

func tdSeedRule(row int, name, msg, doubt string) *Rule {
	return seedRule(td.Name, strconv.Itoa(row)+"-"+name, msg, seed000Row+strconv.Itoa(row), doubt)
}

const (
	doubtRank35 = "the seed also says \"Some documentation variants also state ranks 3–5\" without saying which applies; " +
		"3..5 is cuTensorMapEncodeIm2col's range, which the seed does not apply"
	doubtPacked32 = "the seed leaves \"certain packed types\" unnamed and does not check them; " +
		"ptx-facts: 16U4_ALIGN16B and 16U6_ALIGN16B need 32B too"
	doubtElem0 = "ptx-facts: elementStrides[0] is ignored when interleave is NONE; the seed checks every entry"
)

// tdFirstBad returns the index of the first of n entries that bad rejects, or -1.
func tdFirstBad(n int, bad func(i int) bool) int {
	for i := range n {
		if bad(i) {
			return i
		}
	}
	return -1
}

// tdArrayCheck fires when some entry is bad and names the first in its detail.
func tdArrayCheck(rule *Rule, field string, count func(v td.Value) int, bad func(v td.Value, i int) bool,
	show func(v td.Value, i int) string) Check[td.Value] {
	first := func(v td.Value) int { return tdFirstBad(count(v), func(i int) bool { return bad(v, i) }) }
	return Check[td.Value]{Rule: rule,
		Fires:  func(v td.Value) bool { return first(v) >= 0 },
		Detail: func(v td.Value) string { i := first(v); return fmt.Sprintf(" (%s[%d] = %s)", field, i, show(v, i)) },
	}
}

func tdDims(v td.Value) int { return v.Dims() }

// tdTiledDims is the box's entry count, zero for the im2col kinds, which
// have no boxDim.
func tdTiledDims(v td.Value) int {
	if v.Encoding != td.Tiled {
		return 0
	}
	return v.Dims()
}

func tdStrides(v td.Value) int { return v.StrideCount() }

func tdShowU64(x uint64) string { return strconv.FormatUint(x, 10) }

func tdHexDetail(what string, addr func(v td.Value) uint64) func(v td.Value) string {
	return func(v td.Value) string { return fmt.Sprintf(" (%s = 0x%x)", what, addr(v)) }
}

// tdSeedInnerTooWide is the seed's swizzle inner-dimension bound: a tiled box
// whose inner row is wider than the swizzle span. Unlike ptx-facts it does
// not exempt interleaved layouts.
func tdSeedInnerTooWide(v td.Value) bool {
	span := v.Swizzle.Span()
	return v.Encoding == td.Tiled && span > 0 && v.InnerBits() > span*8
}

// tmadescSeed is seed 000's claims about cuTensorMapEncodeTiled and the TMA
// swizzle constraints, fail-first in the table's row order.
var tmadescSeed = &Ladder[td.Value]{Set: Seed, Domain: td.Name,
	Checks: []Check[td.Value]{
		{Rule: tdSeedRule(1, "rank-max", "TMA tensor-map creation via `cuTensorMapEncodeTiled` requires `tensorRank ≤ 5`.", doubtRank35),
			Fires:  func(v td.Value) bool { return v.Rank > 5 },
			Detail: func(v td.Value) string { return fmt.Sprintf(" (tensorRank = %d)", v.Rank) }},
		{Rule: tdSeedRule(1, "rank-nonzero", "CUDA Driver API requires `tensorRank` non-zero and ≤ 5", doubtRank35),
			Fires: func(v td.Value) bool { return v.Rank == 0 }},
		{Rule: tdSeedRule(1, "rank-interleave", "if interleave is not NONE, `tensorRank` must be ≥ 3", ""),
			Fires:  func(v td.Value) bool { return v.Interleave != td.InterleaveNone && v.Rank < 3 },
			Detail: func(v td.Value) string { return fmt.Sprintf(" (interleave %s, tensorRank = %d)", v.Interleave, v.Rank) }},
		{Rule: tdSeedRule(2, "tensormap-align", "TMA descriptor object (`tensorMap`) must be 64B-aligned.", ""),
			Fires:  func(v td.Value) bool { return v.TensorMap%64 != 0 },
			Detail: tdHexDetail("tensorMap", func(v td.Value) uint64 { return v.TensorMap })},
		{Rule: tdSeedRule(3, "global-align", "TMA `globalAddress` must be 16B-aligned (often 32B in some modes).", ""),
			Fires:  func(v td.Value) bool { return v.GlobalAddress%16 != 0 },
			Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
		{Rule: tdSeedRule(3, "global-align-interleave", "Driver API: `globalAddress` must be 16B-aligned; must be 32B-aligned when `interleave` is 32B (and for certain packed types).", doubtPacked32),
			Fires:  func(v td.Value) bool { return v.Interleave == td.Interleave32B && v.GlobalAddress%32 != 0 },
			Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
		tdArrayCheck(tdSeedRule(4, "strides", "TMA `globalStrides` must be multiples of 16 and `< 2^40`.", ""),
			"globalStrides", tdStrides,
			func(v td.Value, i int) bool { s := v.GlobalStrides[i]; return s%16 != 0 || s >= 1<<40 },
			func(v td.Value, i int) string { return tdShowU64(v.GlobalStrides[i]) }),
		tdArrayCheck(tdSeedRule(4, "strides-interleave", "Driver API: strides must be multiples of 16 and `< 2^40`; also must be multiples of 32 under `interleave=32B` (and certain packed types).", doubtPacked32),
			"globalStrides", tdStrides,
			func(v td.Value, i int) bool { return v.Interleave == td.Interleave32B && v.GlobalStrides[i]%32 != 0 },
			func(v td.Value, i int) string { return tdShowU64(v.GlobalStrides[i]) }),
		tdArrayCheck(tdSeedRule(5, "box-dim", "TMA `boxDim ≤ 256`.", ""),
			"boxDim", tdTiledDims,
			func(v td.Value, i int) bool { return v.BoxDim[i] > 256 },
			func(v td.Value, i int) string { return tdShowU64(uint64(v.BoxDim[i])) }),
		tdArrayCheck(tdSeedRule(5, "box-dim-nonzero", "Driver API: each `boxDim[i]` must be non-zero and ≤ 256.", ""),
			"boxDim", tdTiledDims,
			func(v td.Value, i int) bool { return v.BoxDim[i] == 0 },
			func(v td.Value, i int) string { return "0" }),
		tdArrayCheck(tdSeedRule(6, "element-strides", "TMA `elementStrides ≤ 8`.", doubtElem0),
			"elementStrides", tdDims,
			func(v td.Value, i int) bool { return v.ElementStrides[i] > 8 },
			func(v td.Value, i int) string { return tdShowU64(uint64(v.ElementStrides[i])) }),
		tdArrayCheck(tdSeedRule(6, "element-strides-nonzero", "Driver API: each `elementStrides[i]` non-zero and ≤ 8.", doubtElem0),
			"elementStrides", tdDims,
			func(v td.Value, i int) bool { return v.ElementStrides[i] == 0 },
			func(v td.Value, i int) string { return "0" }),
		{Rule: tdSeedRule(7, "swizzle-inner", "“Additional swizzle/interleave coupling and inner-dimension bounds” affect legality.",
			"ptx-facts: the bound applies only with interleave NONE; the seed states it for every interleave"),
			Fires: tdSeedInnerTooWide,
			Detail: func(v td.Value) string {
				return fmt.Sprintf(" (box inner dimension %d bits exceeds the %s swizzle span of %d bytes)", v.InnerBits(), v.Swizzle, v.Swizzle.Span())
			}},
		{Rule: tdSeedRule(8, "swizzle-global-align", "Proposal accounts for TMA swizzle constraints such as **global alignment 128B**, shared alignment requirements, and “instruction invalid if inner dimension requirements are violated.”",
			"a CUDA programming guide (instruction-level) rule: cuTensorMapEncodeTiled itself asks only 16B, so the driver may accept what this rejects"),
			Fires:  func(v td.Value) bool { return v.Swizzle != td.SwizzleNone && v.GlobalAddress%128 != 0 },
			Detail: tdHexDetail("globalAddress", func(v td.Value) uint64 { return v.GlobalAddress })},
		{Rule: tdSeedRule(8, "swizzle-smem-align", "shared-memory alignment and inner-dimension requirements are stated",
			"the seed names no value; 128B is the CUDA programming guide's (ptx-facts claim 10: the 1024B of 128B swizzle is its repeat period, not an alignment)"),
			Fires: func(v td.Value) bool { return v.Swizzle != td.SwizzleNone && v.SMemAddress%128 != 0 },
			Detail: func(v td.Value) string {
				return fmt.Sprintf(" (shared address 0x%x is not 128B-aligned)", v.SMemAddress)
			}},
		{Rule: tdSeedRule(24, "compute-capability", "Tensor map objects are only supported on compute capability 9.0+ devices.", ""),
			Fires:  func(v td.Value) bool { return v.Tgt.Arch.SM < 90 },
			Detail: func(v td.Value) string { return " (" + v.Tgt.Arch.String() + ")" }},
	},
}
