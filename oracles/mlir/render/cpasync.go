package render

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

func init() { renderers[cpasync.Name] = typed(renderCPAsync) }

// cpasyncElems are the memref element types of each element type
// (spelledAs picks one; source and destination alike): cp.async copies
// bytes, and the lowering sizes the copy by the element type's width, so
// every type of that width must copy alike.
var cpasyncElems = map[cpasync.ElemType][]string{
	cpasync.I8: {"i8", "si8", "ui8", "f8E4M3FN"}, cpasync.F16: {"f16"}, cpasync.BF16: {"bf16"}, cpasync.F32: {"f32"},
	cpasync.I32: {"i32", "si32", "ui32"}, cpasync.F64: {"f64"},
}

// renderCPAsync spells cp.async as nvgpu.device_async_copy between 2-D
// memrefs at the value's addresses (global source in the generic space as
// nvgpu expects, shared destination), with the value's minor strides, then
// nvgpu.device_async_create_group and nvgpu.device_async_wait. nvgpu knows
// only the .ca and .cg (bypassL1) cache operators and no .L2::prefetch,
// .L2::cache_hint or ignore-src predicate.
func renderCPAsync(v cpasync.Value) (Kernel, error) {
	switch {
	case v.Cache != cpasync.CA && v.Cache != cpasync.CG:
		return Kernel{}, unsupported("cache", "not-ca-or-cg", "nvgpu.device_async_copy has only .ca and .cg (bypassL1), not .%s", v.Cache)
	case v.Prefetch != cpasync.PrefetchNone:
		return Kernel{}, unsupported("prefetch", "any", "nvgpu.device_async_copy has no .L2::%s prefetch", v.Prefetch)
	case v.CacheHint:
		return Kernel{}, unsupported("cache_hint", "any", "nvgpu.device_async_copy has no .L2::cache_hint")
	case v.IgnoreSrc:
		return Kernel{}, unsupported("ignore_src", "any", "nvgpu.device_async_copy has no ignore-src predicate")
	}
	dstElem, srcElem := spelledAs(v, cpasyncElems[v.Elem]), spelledAs(v, cpasyncElems[v.SrcElem])
	if dstElem == "" || srcElem == "" {
		return Kernel{}, unsupported("elem", "no-element-type", "no MLIR element type for %s or %s", v.Elem, v.SrcElem)
	}
	if v.Elem != v.SrcElem {
		// cp.async copies bytes: PTX has no element types to disagree, so
		// MLIR's "same element type" contract has no PTX question to answer.
		return Kernel{}, unsupported("src_elem", "differs", "nvgpu.device_async_copy copies between memrefs of one element type, not %s to %s (PTX's cp.async has no element types)", v.SrcElem, v.Elem)
	}
	b := newBody("      ")
	shape := []int64{16, 128}
	src, srcType := b.stridedAt(v.SrcAddr, shape, []int64{4096, int64(v.SrcStride)}, srcElem, 0)
	dst, dstType := b.stridedAt(uint64(v.DstAddr), shape, []int64{4096, int64(v.DstStride)}, dstElem, 3)
	c0 := b.index(0)
	// The generic form (see genericOp): MLIR after 23 spells bypassL1 and
	// numGroups as keywords.
	cp := generic("nvgpu.device_async_copy", true).args(dstType, dst).args("index", c0, c0).
		args(srcType, src).args("index", c0, c0).prop(fmt.Sprintf("dstElements = %d : index", v.DstElements))
	if v.HasSrcElements {
		cp.args("index", b.index(int64(v.SrcElements)))
	} else {
		cp.absent()
	}
	if v.Cache == cpasync.CG {
		cp.prop("bypassL1")
	}
	const token = "!nvgpu.device.async.token"
	tok := b.val("%s", cp.returns(token))
	g := b.val("nvgpu.device_async_create_group %s", tok)
	b.op("%s", generic("nvgpu.device_async_wait", false).args(token, g).prop("numGroups = 0 : i32"))
	return Kernel{Body: b.String()}, nil
}
