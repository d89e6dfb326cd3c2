package rules

import (
	"fmt"
	"strings"

	ca "github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

const (
	cpasyncSrc      = "PTX ISA 9.7.9.25.3.1 (cp.async)"
	cpasyncAlignSrc = "PTX ISA 6.4.1 (Addresses as Operands: naturally aligned to the access size), for cp.async's cp-size"
)

func cpasyncRule(name, msg string) *Rule { return ptxRule(ca.Name, name, msg, cpasyncSrc) }

// cpasyncPTXISA judges the PTX instruction the copy lowers to. cp.async is
// untyped, so the element types matter only through the byte counts. Every
// known target is sm_80 or newer with PTX ISA 7.0 or newer, so the base
// instruction's own floor is covered by the target check.
var cpasyncPTXISA = &Ladder[ca.Value]{Set: PTXISA, Domain: ca.Name,
	Value: cpasyncSpelling,
	Checks: []Check[ca.Value]{
		targetPTXCheck[ca.Value](ca.Name),
		{Rule: cpasyncRule("cache-op", "cp.async takes only the .ca and .cg cache operators"),
			Fires:  func(v ca.Value) bool { return v.Cache != ca.CA && v.Cache != ca.CG },
			Detail: func(v ca.Value) string { return ", got ." + v.Cache.String() }},
		{Rule: cpasyncRule("cp-size", "cp-size must be 4, 8 or 16 bytes"),
			Fires:  func(v ca.Value) bool { n := v.CPSize(); return n != 4 && n != 8 && n != 16 },
			Detail: func(v ca.Value) string { return fmt.Sprintf(", got %d", v.CPSize()) }},
		{Rule: cpasyncRule("cg-size", ".cg requires cp-size 16"),
			Fires: func(v ca.Value) bool { return v.Cache == ca.CG && v.CPSize() != 16 }},
		{Rule: cpasyncRule("src-size-ignore-src", "src-size and ignore-src are alternative operands, not both"),
			Fires: func(v ca.Value) bool { return v.HasSrcElements && v.IgnoreSrc }},
		{Rule: cpasyncRule("src-size", "src-size larger than cp-size is undefined behavior"),
			Fires:  func(v ca.Value) bool { return v.HasSrcElements && v.SrcSize() > v.CPSize() },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": %d > %d", v.SrcSize(), v.CPSize()) }},
		{Rule: cpasyncRule("ignore-src-ptx", "the ignore-src operand requires PTX ISA 7.5"),
			Fires: func(v ca.Value) bool { return v.IgnoreSrc && !ptxAtLeast(v.Tgt, 75) }},
		{Rule: cpasyncRule("l2-qualifier-ptx", ".L2::cache_hint and .L2::64B/128B/256B require PTX ISA 7.4"),
			Fires: func(v ca.Value) bool {
				return (v.CacheHint || v.Prefetch != ca.PrefetchNone) && !ptxAtLeast(v.Tgt, 74)
			}},
		{Rule: cpasyncRule("unit-stride", "cp.async copies cp-size contiguous bytes: both minor dimensions must be unit-stride"),
			Fires: func(v ca.Value) bool { return v.DstStride != 1 || v.SrcStride != 1 }},
		{Rule: ptxRule(ca.Name, "dst-align", "the shared destination must be aligned to cp-size", cpasyncAlignSrc),
			Fires:  func(v ca.Value) bool { return !cpasyncAligned(uint64(v.DstAddr), v.CPSize()) },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": 0x%x", v.DstAddr) }},
		{Rule: ptxRule(ca.Name, "src-align", "the global source must be aligned to cp-size", cpasyncAlignSrc),
			Fires:  func(v ca.Value) bool { return !cpasyncAligned(v.SrcAddr, v.CPSize()) },
			Detail: func(v ca.Value) string { return fmt.Sprintf(": 0x%x", v.SrcAddr) }},
	},
}

// cpasyncAligned reports whether addr is a multiple of size; a size that is not
// positive aligns nothing.
func cpasyncAligned(addr uint64, size int) bool { return size > 0 && addr%uint64(size) == 0 }

// cpasyncSpelling spells the accepted instruction with its operands:
// cp.async.CACHE.shared.global{.L2::cache_hint}{.L2::NB} [dst], [src],
// cp-size{, src-size | ignore-src}{, cache-policy};
func cpasyncSpelling(v ca.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cp.async.%s.shared.global", v.Cache)
	if v.CacheHint {
		b.WriteString(".L2::cache_hint")
	}
	if v.Prefetch != ca.PrefetchNone {
		b.WriteString(".L2::" + v.Prefetch.String())
	}
	fmt.Fprintf(&b, " [dst], [src], %d", v.CPSize())
	if v.HasSrcElements {
		fmt.Fprintf(&b, ", %d", v.SrcSize())
	}
	if v.IgnoreSrc {
		b.WriteString(", ignore-src")
	}
	if v.CacheHint {
		b.WriteString(", cache-policy")
	}
	b.WriteString(";")
	return b.String()
}
