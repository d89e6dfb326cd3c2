package render

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

// NVVMSince is the oldest release the mlir-nvvm oracle judges: MLIR 22 is
// the first whose nvvm ops name every type, shape and element type the
// cases do (nvvm.ldmatrix's shape and eltType, nvvm.mma.sp.sync).
const NVVMSince = 22

// nvvmRenderers spell the cases of the ops nvgpu lowers to with the nvvm
// ops themselves, the entry point other front ends (Triton, IREE, a DSL
// writing NVVM) use: the op's own verifier and translation, not nvgpu's.
// The nvvm ops take registers and pointers, so they spell what nvgpu's
// memrefs and fragments cannot (any layout, .b1 operations, ordered
// metadata, every ldmatrix shape); the case's values are written as they
// are, and the release's verifier judges them.
func nvvmRenderers(major int) map[string]Renderer {
	return map[string]Renderer{
		mma.Name:     typed(renderNVVMMMA),
		ldsm.Name:    nvvmLdsmRenderer,
		wg.Name:      typed(renderNVVMWGMMAOnly),
		cpasync.Name: typed(func(v cpasync.Value) (Kernel, error) { return renderNVVMCPAsync(v, major) }),
	}
}

// nvvmMMATypes are the #nvvm.mma_type spellings of the multiplicands
// (tf32 is f32 with tf32Enabled).
var nvvmMMATypes = map[mma.Type]string{
	mma.F16: "f16", mma.BF16: "bf16", mma.F32: "f32", mma.F64: "f64", mma.E4M3: "e4m3", mma.E5M2: "e5m2",
	mma.S8: "s8", mma.U8: "u8", mma.S4: "s4", mma.U4: "u4", mma.B1: "b1", mma.S32: "s32",
}

// mmaRegister is the LLVM type of one register of a fragment of type t and
// the elements it holds: f16 pairs in vector<2xf16>, f64 and f32 alone,
// every narrower type packed into an i32, as the intrinsics take them.
func mmaRegister(t mma.Type, tf32 bool) (typ string, per int) {
	switch {
	case t == mma.F16:
		return "vector<2xf16>", 2
	case t == mma.F64:
		return "f64", 1
	case t == mma.F32 && !tf32:
		return "f32", 1
	case t == mma.S32 || t == mma.F32:
		return "i32", 1
	}
	return "i32", 32 / t.Bits()
}

// accRegister is the LLVM type of one accumulator register of type t:
// the op takes C's and D's types from their registers, so only the PTX
// accumulator types have one.
func accRegister(t mma.Type) (typ string, per int, err error) {
	switch t {
	case mma.F16:
		return "vector<2xf16>", 2, nil
	case mma.F32:
		return "f32", 1, nil
	case mma.F64:
		return "f64", 1, nil
	case mma.S32:
		return "i32", 1, nil
	}
	return "", 0, unsupported("accumulator", "not-ptx-accumulator", "nvvm.mma.sync types C and D by their registers: a %s accumulator has none", t)
}

// mmaRegisters is how many registers of per elements each thread holds of
// a rows x cols fragment spread over threads: the PTX ISA's fragment
// tables in closed form (32 threads, 8 for the quad-pair m8n8k4 .f16).
func mmaRegisters(rows, cols, threads, per int, halve bool) int {
	elems := rows * cols / threads
	if halve {
		elems /= 2
	}
	return ceilDiv(elems, per)
}

// renderNVVMMMA spells mma.sync as nvvm.mma.sync and mma.sp as
// nvvm.mma.sp.sync: shape, layouts, multiplicand types, overflow behaviour
// and single-bit operation as attributes, the fragments as the registers
// the PTX ISA's tables give each thread. C's and D's types are the
// registers' (the op has no attribute for them).
func renderNVVMMMA(v mma.Value) (Kernel, error) {
	if v.ShapeRank != 3 {
		return Kernel{}, unsupported("shape_rank", "not-3", "#nvvm.shape has m, n and k: a %d-entry mmaShape has no spelling", v.ShapeRank)
	}
	m, n, k := v.M(), v.N(), v.K()
	threads := 32
	if m == 8 && n == 8 && k == 4 && v.AType == mma.F16 {
		threads = 8 // the quad-pair form: eight threads per matrix
	}
	// The nvvm ops have no property for what follows; MLIR would drop one
	// written anyway without a word, and the case would be judged as
	// another (TestNVVMPropertiesKept).
	switch {
	case v.Sparse() && (v.ALayout != mma.Row || v.BLayout != mma.Col):
		return Kernel{}, unsupported("layout", "not-row-col", "nvvm.mma.sp.sync is always .row.col, not .%s.%s", v.ALayout, v.BLayout)
	case v.Sparse() && v.BitOp != mma.NoBitOp:
		return Kernel{}, unsupported("bit_op", "any", "nvvm.mma.sp.sync has no single-bit operation (.%s.popc)", v.BitOp)
	case v.TF32 && v.AType != mma.F32:
		return Kernel{}, unsupported("tf32_enabled", "not-f32", "nvvm.mma.sync has no tf32Enabled flag: .tf32 is a multiplicand type, for f32 operands, not %s", v.AType)
	}
	tf32 := v.TF32 && v.AType == mma.F32
	aReg, aPer := mmaRegister(v.AType, tf32)
	bReg, bPer := mmaRegister(v.BType, tf32 && v.BType == mma.F32)
	cReg, cPer, err := accRegister(v.CType)
	if err != nil {
		return Kernel{}, err
	}
	dReg, dPer, err := accRegister(v.DType)
	if err != nil {
		return Kernel{}, err
	}
	na := mmaRegisters(m, k, threads, aPer, v.Sparse())
	nb := mmaRegisters(k, n, threads, bPer, false)
	nc := mmaRegisters(m, n, threads, cPer, false)
	nd := mmaRegisters(m, n, threads, dPer, false)
	aType, bType := nvvmMMATypes[v.AType], nvvmMMATypes[v.BType]
	if tf32 {
		aType = "tf32"
	}
	if v.BType == mma.F32 && v.TF32 {
		bType = "tf32"
	}
	op := generic("nvvm.mma.sync", true).args(aReg, times("%a", na)...).args(bReg, times("%b", nb)...).args(cReg, times("%c", nc)...)
	if !v.Sparse() {
		op.prop(fmt.Sprintf("layoutA = #nvvm.mma_layout<%s>", v.ALayout), fmt.Sprintf("layoutB = #nvvm.mma_layout<%s>", v.BLayout))
	}
	op.prop(fmt.Sprintf("multiplicandAPtxType = #nvvm.mma_type<%s>", aType), fmt.Sprintf("multiplicandBPtxType = #nvvm.mma_type<%s>", bType),
		fmt.Sprintf("shape = #nvvm.shape<m = %d, n = %d, k = %d>", m, n, k))
	switch {
	case v.Satfinite:
		op.prop("intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>")
	case !v.AType.Float():
		op.prop("intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>")
	}
	if v.BitOp != mma.NoBitOp {
		op.prop(fmt.Sprintf("b1Op = #nvvm.mma_b1op<%s_popc>", v.BitOp))
	}
	params := fmt.Sprintf("%%a: %s, %%b: %s, %%c: %s, %%out: !llvm.ptr<1>", aReg, bReg, cReg)
	b := newBody("      ")
	if v.Sparse() {
		op.name = "nvvm.mma.sp.sync"
		op.args("i32", "%meta").args("i32", b.val("llvm.mlir.constant(%d : i32) : i32", v.Selector))
		if v.Sparsity == mma.SPOrdered {
			op.prop("orderedMetadata")
		}
		params += ", %meta: i32"
	}
	res := "!llvm.struct<(" + strings.Join(times(dReg, nd), ", ") + ")>"
	d := b.val("%s", op.returns(res))
	e := b.val("llvm.extractvalue %s[0] : %s", d, res)
	b.op("llvm.store %s, %%out : %s, !llvm.ptr<1>", e, dReg)
	return Kernel{Params: params, Body: b.String()}, nil
}

// nvvmLdsmRenderer spells ldmatrix as nvvm.ldmatrix and stmatrix as
// nvvm.stmatrix, both with the shape and element type as attributes.
var nvvmLdsmRenderer = ldsmRenderer(renderNVVMLdmatrix, renderStmatrix22)

// renderNVVMLdmatrix spells ldmatrix as nvvm.ldmatrix from a pointer at
// the value's alignment in the source's address space. The op returns the
// lane's registers (one i32, or a struct of them), so the value's fragment
// must be rank 1 with the per-lane element count of its shape and matrix
// count, as for stmatrix.
func renderNVVMLdmatrix(v ldsm.Value) (Kernel, error) {
	space, ok := ldsmSpaces[v.Src]
	switch {
	case !ok:
		return Kernel{}, unsupported("src", "not-memory", "nvvm.ldmatrix reads through a pointer; a %s source has no spelling", v.Src)
	case v.Dst != ldsm.Register:
		return Kernel{}, unsupported("dst", "not-register", "nvvm.ldmatrix always loads into registers, not %s", v.Dst)
	}
	props, err := ldStMatrixProps("nvvm.ldmatrix", v)
	if err != nil {
		return Kernel{}, err
	}
	regs := max(ldsm.RegistersPerLane(v.Shape, int(v.NumMatrices)), 1)
	res := "i32"
	if regs > 1 {
		res = "!llvm.struct<(" + strings.Join(times("i32", regs), ", ") + ")>"
	}
	b := newBody("      ")
	p := b.val("llvm.inttoptr %s : i64 to %s", b.i64(uint64(v.Align)), ptrType(space))
	// The generic form (see genericOp): MLIR after 23 spells the layout,
	// shape and element type as keywords.
	r := b.val("%s", generic("nvvm.ldmatrix", false).args(ptrType(space), p).prop(props...).
		prop(fmt.Sprintf("num = %d : i32", v.NumMatrices)).returns(res))
	if regs > 1 {
		r = b.val("llvm.extractvalue %s[0] : %s", r, res)
	}
	b.op("llvm.store %s, %%out : i32, !llvm.ptr<1>", r)
	return Kernel{Params: "%out: !llvm.ptr<1>", Body: b.String()}, nil
}

// renderNVVMWGMMAOnly spells every wgmma case as one nvvm.wgmma.mma_async,
// the instruction itself, where the mlir oracle spells a tile the nvgpu op
// splits as nvgpu.warpgroup.mma.
func renderNVVMWGMMAOnly(v wg.Value) (Kernel, error) {
	if v.Sparse {
		return Kernel{}, unsupported("sparse", "any", "nvvm has no wgmma.mma_async.sp op")
	}
	return renderNVVMWGMMA(v)
}

// renderNVVMCPAsync spells cp.async as nvvm.cp.async.shared.global
// between pointers at the value's addresses: the copy size and cache
// operator as attributes (any cache operator: the verifier judges it), the
// src-size as its optional i32 operand. The op has no .L2 prefetch, cache
// hint or ignore-src, and no element types: the memrefs' strides and types
// nvgpu checks are not its question.
func renderNVVMCPAsync(v cpasync.Value, major int) (Kernel, error) {
	switch {
	case v.Prefetch != cpasync.PrefetchNone:
		return Kernel{}, unsupported("prefetch", "any", "nvvm.cp.async.shared.global has no .L2::%s prefetch", v.Prefetch)
	case v.CacheHint:
		return Kernel{}, unsupported("cache_hint", "any", "nvvm.cp.async.shared.global has no .L2::cache_hint")
	case v.IgnoreSrc:
		return Kernel{}, unsupported("ignore_src", "any", "nvvm.cp.async.shared.global has no ignore-src predicate")
	case v.Elem != v.SrcElem:
		return Kernel{}, unsupported("src_elem", "differs", "nvvm.cp.async.shared.global copies bytes: %s to %s has no spelling", v.SrcElem, v.Elem)
	case v.DstStride != 1 || v.SrcStride != 1:
		return Kernel{}, unsupported("stride", "not-unit", "nvvm.cp.async.shared.global copies contiguous bytes: strides %d and %d have no spelling", v.DstStride, v.SrcStride)
	}
	b := newBody("      ")
	dst := b.val("llvm.inttoptr %s : i64 to %s", b.i64(uint64(v.DstAddr)), ptrType(3))
	src := b.val("llvm.inttoptr %s : i64 to %s", b.i64(v.SrcAddr), ptrType(1))
	cp := generic("nvvm.cp.async.shared.global", false).args(ptrType(3), dst).args(ptrType(1), src).prop(
		"modifier = "+cacheModifier(v.Cache, major), fmt.Sprintf("size = %d : i32", v.CPSize()))
	if v.HasSrcElements {
		cp.args("i32", b.val("llvm.mlir.constant(%d : i32) : i32", v.SrcSize()))
	}
	b.op("%s", cp)
	b.op("%s", generic("nvvm.cp.async.commit.group", false))
	b.op("%s", generic("nvvm.cp.async.wait.group", false).prop("n = 0 : i32"))
	return Kernel{Body: b.String()}, nil
}

// cacheModifier spells a #nvvm.load_cache_modifier: MLIR up to 23 prints
// and parses it as #nvvm<load_cache_modifier ca>, trunk (24) only as
// #nvvm.load_cache_modifier<ca> (seen on mlir-opt-22 22.1.8, -23 23.1.4 and
// the 2026-10-25 trunk snapshot).
func cacheModifier(c cpasync.CacheOp, major int) string {
	if major >= 24 {
		return fmt.Sprintf("#nvvm.load_cache_modifier<%s>", c)
	}
	return fmt.Sprintf("#nvvm<load_cache_modifier %s>", c)
}
