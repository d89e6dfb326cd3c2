package rules

import (
	"testing"

	ca "github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var caBase = ca.Value{Elem: ca.F32, SrcElem: ca.F32, DstElements: 4, DstStride: 1, SrcStride: 1,
	DstAddr: 0x100, SrcAddr: 0x2000, Tgt: target.MustParse("sm_80", "")}

func caWith(f func(*ca.Value)) ca.Value { v := caBase; f(&v); return v }

func caPTX(p string) target.Target { return target.MustParse("sm_80", p) }

func TestCPAsyncSeedRules(t *testing.T) {
	runLadderCases(t, cpasyncSeed, []ladderCase[ca.Value]{
		{"f32 x 4 with .ca", caBase, "", "", "cp.async.ca.shared.global [dst], [src], 16;"},
		{"bypassL1 selects .cg", caWith(func(v *ca.Value) { v.Cache = ca.CG }), "", "", "cp.async.cg.shared.global [dst], [src], 16;"},
		{"element types", caWith(func(v *ca.Value) { v.SrcElem = ca.F16 }),
			"seed.cpasync.element-types", "source and destination element types must match: f16 vs f32", ""},
		{"dst stride", caWith(func(v *ca.Value) { v.DstStride = 2 }),
			"seed.cpasync.dst-unit-stride", "minor dim must be unit-stride: dst stride 2", ""},
		{"src stride", caWith(func(v *ca.Value) { v.SrcStride = 0 }),
			"seed.cpasync.src-unit-stride", "minor dim must be unit-stride: src stride 0", ""},
		{"two f32 elements: 8 legal bytes refused", caWith(func(v *ca.Value) { v.DstElements = 2 }),
			"seed.cpasync.dst-elements", "dstElements must be 4, 8 or 16, got 2", ""},
		{"sixteen f32 elements: a 64-byte copy accepted", caWith(func(v *ca.Value) { v.DstElements = 16 }),
			"", "", "cp.async.ca.shared.global [dst], [src], 64;"},
		{"bypassL1 with 8 bytes", caWith(func(v *ca.Value) { v.Cache, v.Elem, v.SrcElem = ca.CG, ca.F16, ca.F16 }),
			"seed.cpasync.bypass-l1-size", "bypassL1 (.cg) requires a 16-byte copy (dstElements * element bytes), got 8 bytes", ""},
		{"PTX 6.5", caWith(func(v *ca.Value) { v.Tgt = caPTX("6.5") }),
			"seed.cpasync.arch-floor", "nvgpu.device_async_copy requires sm_80 and PTX ISA 7.0: sm_80 (PTX 6.5)", ""},
		{"a .cs operator reads as bypassL1 unset", caWith(func(v *ca.Value) { v.Cache = ca.CS }),
			"", "", "cp.async.ca.shared.global [dst], [src], 16;"},
		{"fail-first: mismatched types and stride report the types", caWith(func(v *ca.Value) { v.SrcElem, v.SrcStride = ca.I8, 4 }),
			"seed.cpasync.element-types", "source and destination element types must match: i8 vs f32", ""},
	})
}

func TestCPAsyncPTXISARules(t *testing.T) {
	runLadderCases(t, cpasyncPTXISA, []ladderCase[ca.Value]{
		{"f32 x 4", caBase, "", "", "cp.async.ca.shared.global [dst], [src], 16;"},
		{"every option", caWith(func(v *ca.Value) {
			v.Cache, v.Prefetch, v.CacheHint, v.HasSrcElements, v.SrcElements, v.Tgt = ca.CG, ca.Prefetch128B, true, true, 3, caPTX("7.4")
		}), "", "", "cp.async.cg.shared.global.L2::cache_hint.L2::128B [dst], [src], 16, 12, cache-policy;"},
		{"ignore-src", caWith(func(v *ca.Value) { v.IgnoreSrc, v.Tgt = true, caPTX("7.5") }),
			"", "", "cp.async.ca.shared.global [dst], [src], 16, ignore-src;"},
		{"ptx older than the target", caWith(func(v *ca.Value) { v.Tgt = caPTX("6.5") }),
			"ptxisa.cpasync.target-ptx-version", "PTX ISA version does not know the .target: sm_80 (PTX 6.5)", ""},
		{".lu", caWith(func(v *ca.Value) { v.Cache = ca.LU }),
			"ptxisa.cpasync.cache-op", "cp.async takes only the .ca and .cg cache operators, got .lu", ""},
		{"64 bytes", caWith(func(v *ca.Value) { v.DstElements = 16 }),
			"ptxisa.cpasync.cp-size", "cp-size must be 4, 8 or 16 bytes, got 64", ""},
		{"8 bytes of f32", caWith(func(v *ca.Value) { v.DstElements = 2 }), "", "", "cp.async.ca.shared.global [dst], [src], 8;"},
		{".cg with 8 bytes", caWith(func(v *ca.Value) { v.Cache, v.DstElements = ca.CG, 2 }),
			"ptxisa.cpasync.cg-size", ".cg requires cp-size 16", ""},
		{"src-size and ignore-src", caWith(func(v *ca.Value) {
			v.HasSrcElements, v.IgnoreSrc, v.Tgt = true, true, caPTX("7.5")
		}), "ptxisa.cpasync.src-size-ignore-src", "src-size and ignore-src are alternative operands, not both", ""},
		{"src-size past cp-size", caWith(func(v *ca.Value) { v.HasSrcElements, v.SrcElements = true, 5 }),
			"ptxisa.cpasync.src-size", "src-size larger than cp-size is undefined behavior: 20 > 16", ""},
		{"ignore-src before 7.5", caWith(func(v *ca.Value) { v.IgnoreSrc, v.Tgt = true, caPTX("7.4") }),
			"ptxisa.cpasync.ignore-src-ptx", "the ignore-src operand requires PTX ISA 7.5", ""},
		{"prefetch before 7.4", caWith(func(v *ca.Value) { v.Prefetch = ca.Prefetch64B }),
			"ptxisa.cpasync.l2-qualifier-ptx", ".L2::cache_hint and .L2::64B/128B/256B require PTX ISA 7.4", ""},
		{"strided source", caWith(func(v *ca.Value) { v.SrcStride = 2 }),
			"ptxisa.cpasync.unit-stride", "cp.async copies cp-size contiguous bytes: both minor dimensions must be unit-stride", ""},
		{"dst on 8 bytes", caWith(func(v *ca.Value) { v.DstAddr = 0x108 }),
			"ptxisa.cpasync.dst-align", "the shared destination must be aligned to cp-size: 0x108", ""},
		{"src on 4 bytes", caWith(func(v *ca.Value) { v.SrcAddr = 0x2004 }),
			"ptxisa.cpasync.src-align", "the global source must be aligned to cp-size: 0x2004", ""},
		{"element types do not matter to PTX", caWith(func(v *ca.Value) { v.SrcElem = ca.I8 }),
			"", "", "cp.async.ca.shared.global [dst], [src], 16;"},
	})
}

func TestCPAsyncAligned(t *testing.T) {
	for _, tc := range []struct {
		addr uint64
		size int
		want bool
	}{{0, 16, true}, {8, 16, false}, {8, 8, true}, {4, 4, true}, {6, 4, false}, {16, 0, false}} {
		if got := cpasyncAligned(tc.addr, tc.size); got != tc.want {
			t.Errorf("cpasyncAligned(%d, %d) = %v, want %v", tc.addr, tc.size, got, tc.want)
		}
	}
}
