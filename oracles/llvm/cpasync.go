package llvm

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

// renderCPAsync renders cp.async as llvm.nvvm.cp.async.{ca,cg}.shared.global
// .{4,8,16}[.s] (the same in LLVM 19 and 22): a shared destination, a global
// source, and with .s the src-size operand, written as the constant the value
// holds. The element types, strides and addresses are the nvgpu op's
// business; PTX's cp.async is untyped, and llc never sees an address.
func renderCPAsync(c cpasync.Value, k *kernel) error {
	size := c.CPSize()
	switch {
	case c.Cache != cpasync.CA && c.Cache != cpasync.CG:
		return noSpelling("cache", "not-ca-or-cg", "no LLVM spelling for cp.async.%s (the intrinsics have .ca and .cg)", c.Cache)
	case c.Prefetch != cpasync.PrefetchNone:
		return noSpelling("prefetch", "any", "no LLVM spelling for cp.async with .L2::%s prefetch", c.Prefetch)
	case c.CacheHint:
		return noSpelling("cache_hint", "any", "no LLVM spelling for cp.async with .L2::cache_hint")
	case c.IgnoreSrc:
		return noSpelling("ignore_src", "any", "no LLVM spelling for cp.async with an ignore-src predicate")
	case size != 4 && size != 8 && size != 16:
		return noSpelling("size", "not-4-8-16", "no LLVM spelling for cp.async of %d bytes (the intrinsics copy 4, 8 or 16)", size)
	case c.Cache == cpasync.CG && size != 16:
		return noSpelling("size", "cg-not-16", "no LLVM spelling for cp.async.cg of %d bytes (only .cg 16 has an intrinsic)", size)
	}
	name := fmt.Sprintf("llvm.nvvm.cp.async.%s.shared.global.%d", c.Cache, size)
	ops := []operand{k.param("ptr addrspace(3)", "dst"), k.param("ptr addrspace(1)", "src")}
	if c.HasSrcElements {
		name += ".s"
		ops = append(ops, imm("i32", int64(c.SrcSize())))
	}
	k.call("void", name, ops...)
	return nil
}
