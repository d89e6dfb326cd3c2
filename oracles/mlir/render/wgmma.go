package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

func init() {
	renderers[wg.Name] = typed(renderWGMMA)
	wantFuncs[wg.Name] = wantsWGMMA
}

var (
	// wgmmaElems are the memref element types nvgpu.warpgroup.mma reads
	// (spelledAs picks one).
	wgmmaElems = map[wg.Type][]string{wg.F16: {"f16"}, wg.BF16: {"bf16"}, wg.TF32: {"tf32"}, wg.E4M3: {"f8E4M3FN"},
		wg.E5M2: {"f8E5M2"}, wg.S8: {"i8", "si8"}, wg.U8: {"ui8"}, wg.B1: {"i1"}, wg.F64: {"f64"}, wg.S4: {"i4", "si4"}}
	wgmmaAccElems = map[wg.AccType]string{wg.AccF16: "f16", wg.AccF32: "f32", wg.AccS32: "i32", wg.AccF64: "f64"}
	// nvvmWGMMATypes are the #nvvm.wgmma_type spellings LLVM 19 has.
	nvvmWGMMATypes = map[wg.Type]string{wg.F16: "f16", wg.BF16: "bf16", wg.TF32: "tf32", wg.E4M3: "e4m3",
		wg.E5M2: "e5m2", wg.S8: "s8", wg.U8: "u8", wg.B1: "b1"}
	nvvmWGMMAAcc = map[wg.AccType]string{wg.AccF16: "f16", wg.AccF32: "f32", wg.AccS32: "s32"}
)

// renderWGMMA spells the value with seed 004's op, nvgpu.warpgroup.mma,
// when it can say everything the value says: descriptors for A and B,
// imm-scale 1, accumulate (scale-d true), no .sp and no .satfinite. There
// M×N×K is the op's matrix shape (A memref MxK, B memref BKxN, accumulator
// MxN of the rank the value names; the lowering splits it into
// instructions), the accumulator type the init op's and the result type
// the op's result. Otherwise it spells the one instruction with LLVM 19's
// nvvm.wgmma.mma_async, which has no rank, no separate B K, no register A
// and no .sp.
func renderWGMMA(v wg.Value) (Kernel, error) {
	if v.Sparse {
		return Kernel{}, unsupported("sparse", "any", "LLVM 19 has no wgmma.mma_async.sp")
	}
	if TileLevel(v) {
		return renderWarpgroupMMA(v)
	}
	return renderNVVMWGMMA(v)
}

// fragmentDims spells a rows x cols matrix at a rank: rank 0 a scalar, rank
// 1 flattened, rank 2 as is, higher ranks with leading unit dimensions.
func fragmentDims(rank, rows, cols int) []int64 {
	switch rank {
	case 0:
		return nil
	case 1:
		return []int64{int64(rows * cols)}
	}
	dims := make([]int64, rank-2, rank)
	for i := range dims {
		dims[i] = 1
	}
	return append(dims, int64(rows), int64(cols))
}

func vectorType(shape []int64, elem string) string {
	var b strings.Builder
	b.WriteString("vector<")
	for _, d := range shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	return b.String() + elem + ">"
}

func renderWarpgroupMMA(v wg.Value) (Kernel, error) {
	a, bb := spelledAs(v, wgmmaElems[v.AType]), spelledAs(v, wgmmaElems[v.BType])
	acc, res := wgmmaAccElems[v.DType], wgmmaAccElems[v.ResultType]
	r := int(v.Rank)
	descA := fmt.Sprintf("!nvgpu.warpgroup.descriptor<tensor = %s>", memrefType(fragmentDims(r, int(v.M), int(v.K)), a, 3))
	descB := fmt.Sprintf("!nvgpu.warpgroup.descriptor<tensor = %s>", memrefType(fragmentDims(r, int(v.BK), int(v.N)), bb, 3))
	accType := fmt.Sprintf("!nvgpu.warpgroup.accumulator<fragmented = %s>", vectorType(fragmentDims(r, int(v.M), int(v.N)), acc))
	resType := fmt.Sprintf("!nvgpu.warpgroup.accumulator<fragmented = %s>", vectorType(fragmentDims(r, int(v.M), int(v.N)), res))
	// The generic form (see genericOp): MLIR after 23 spells transposeA and
	// transposeB as keywords.
	b := newBody("      ")
	da := b.val("builtin.unrealized_conversion_cast %%da : i64 to %s", descA)
	db := b.val("builtin.unrealized_conversion_cast %%db : i64 to %s", descB)
	c := b.val("nvgpu.warpgroup.mma.init.accumulator -> %s", accType)
	mma := generic("nvgpu.warpgroup.mma", false).args(descA, da).args(descB, db).args(accType, c).returns(resType)
	if v.TransA {
		mma.prop("transposeA")
	}
	if v.TransB {
		mma.prop("transposeB")
	}
	b.val("%s", mma)
	return Kernel{Params: "%da: i64, %db: i64", Body: b.String()}, nil
}

// wgmmaScale spells imm-scale-a/b; only 1 and -1 exist.
func wgmmaScale(s int8) (string, error) {
	switch s {
	case 1:
		return "one", nil
	case -1:
		return "neg", nil
	}
	return "", unsupported("scale", "not-one-or-neg", "#nvvm.wgmma_scale_in has only one and neg, not %d", s)
}

func renderNVVMWGMMA(v wg.Value) (Kernel, error) {
	switch {
	case v.ARegister:
		return Kernel{}, unsupported("a_register", "register", "LLVM 19's nvvm.wgmma.mma_async takes A only as a descriptor")
	case v.Rank != 2 || v.BK != v.K:
		return Kernel{}, unsupported("rank", "not-rank-2-or-bk-differs", "nvvm.wgmma.mma_async has one shape and no fragment rank: rank %d, B K %d vs K %d has no spelling", v.Rank, v.BK, v.K)
	}
	ta, okA := nvvmWGMMATypes[v.AType]
	tb, okB := nvvmWGMMATypes[v.BType]
	td, okD := nvvmWGMMAAcc[v.DType]
	_, okR := nvvmWGMMAAcc[v.ResultType]
	if !okA || !okB || !okD || !okR {
		return Kernel{}, unsupported("types", "no-wgmma-type", "#nvvm.wgmma_type has no %s/%s/%s/%s", v.AType, v.BType, v.DType, v.ResultType)
	}
	sa, err := wgmmaScale(v.ScaleA)
	if err != nil {
		return Kernel{}, err
	}
	sb, err := wgmmaScale(v.ScaleB)
	if err != nil {
		return Kernel{}, err
	}
	scaleD, layoutA, layoutB, sat := "zero", "row", "col", ""
	if v.ScaleD {
		scaleD = "one"
	}
	if v.TransA {
		layoutA = "col"
	}
	if v.TransB {
		layoutB = "row"
	}
	if v.Satfinite {
		sat = ", <satfinite>"
	}
	accT, resT := accStruct(v.DType, int(v.N)), accStruct(v.ResultType, int(v.N))
	b := newBody("      ")
	c := b.val("llvm.mlir.undef : %s", accT)
	b.val("nvvm.wgmma.mma_async %%da, %%db, %s, #nvvm.shape<m = %d, n = %d, k = %d>, D [<%s>, #nvvm.wgmma_scale_out<%s>%s], "+
		"A [<%s>, #nvvm.wgmma_scale_in<%s>, <%s>], B [<%s>, #nvvm.wgmma_scale_in<%s>, <%s>] : %s -> %s",
		c, v.M, v.N, v.K, td, scaleD, sat, ta, sa, layoutA, tb, sb, layoutB, accT, resT)
	return Kernel{Params: "%da: i64, %db: i64", Body: b.String()}, nil
}

// accStruct is the accumulator's register struct for an m64nN tile: N/2
// 32-bit values, or N/4 pairs of f16 (at least one, so the type exists).
func accStruct(t wg.AccType, n int) string {
	elem, count := "f32", n/2
	switch t {
	case wg.AccS32:
		elem = "i32"
	case wg.AccF16:
		elem, count = "vector<2xf16>", n/4
	}
	return "!llvm.struct<(" + repeat(elem, max(count, 1)) + ")>"
}

// TileLevel reports whether the value is spelled with nvgpu.warpgroup.mma
// (descriptors for A and B, unit scales, no satfinite) rather than with
// nvvm.wgmma.mma_async.
func TileLevel(v wg.Value) bool {
	return !v.ARegister && v.ScaleA == 1 && v.ScaleB == 1 && v.ScaleD && !v.Satfinite
}

// wantsWGMMA is what the PTX of a wgmma case must hold. nvgpu.warpgroup.mma
// is a tile: MLIR splits it into m64nNkK instructions, K one 32-byte row of
// A, so an MxK tile needs ceil(M/64)*ceil(K/k) of them (a ragged K needs a
// last, padded step, or a refusal; never fewer). nvvm.wgmma.mma_async is
// one instruction of its own shape.
func wantsWGMMA(dv domain.Value) []Want {
	v, ok := dv.(wg.Value)
	if !ok || v.M == 0 || v.N == 0 || v.K == 0 {
		return nil
	}
	if !TileLevel(v) {
		return []Want{{What: fmt.Sprintf("wgmma.mma_async m%dn%dk%d", v.M, v.N, v.K),
			RE: regexp.MustCompile(fmt.Sprintf(`\bwgmma\.mma_async\.sync\.aligned\.m%dn%dk%d\.`, v.M, v.N, v.K)), N: 1,
			Why: "nvvm.wgmma.mma_async is one instruction"}}
	}
	k := int(wg.NaturalK(v.AType, false))
	if k == 0 {
		return nil
	}
	n := ceilDiv(int(v.M), 64) * ceilDiv(int(v.K), k)
	return []Want{{What: fmt.Sprintf("wgmma.mma_async m64n%dk%d", v.N, k),
		RE: regexp.MustCompile(fmt.Sprintf(`\bwgmma\.mma_async\.sync\.aligned\.m64n%dk%d\.`, v.N, k)), N: n,
		Why: fmt.Sprintf("a %dx%d tile in m64n%dk%d steps", v.M, v.K, v.N, k)}}
}
