package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
)

func init() {
	renderers[mma.Name] = typed(renderMMA)
	wantFuncs[mma.Name] = wantsMMA
}

// mmaElems are the MLIR element types of the operands (spelledAs picks
// one): unsigned PTX types are unsigned integers, signed ones signless or
// signed. Accumulators are signless: the kernel stores one of them.
var mmaElems = map[mma.Type][]string{
	mma.F16: {"f16"}, mma.BF16: {"bf16"}, mma.F32: {"f32"}, mma.F64: {"f64"}, mma.E4M3: {"f8E4M3FN"}, mma.E5M2: {"f8E5M2"},
	mma.S8: {"i8", "si8"}, mma.U8: {"ui8"}, mma.S4: {"i4", "si4"}, mma.U4: {"ui4"}, mma.B1: {"i1"}, mma.S32: {"i32"},
}

// renderMMA spells mma.sync as nvgpu.mma.sync and mma.sp as
// nvgpu.mma.sp.sync: the value's mmaShape array, tf32Enabled and sparsity
// selector literally, A/B/C/D element types on the operand fragments. The
// fragments have the per-thread shape of the instruction
// ([tiles, elements per 32 bits]); shapes that do not divide are rounded up
// so the verifier still sees the value's m, n, k. nvgpu.mma.sync is always
// .row.col, always .satfinite for integer types and never for others, and
// has no single-bit operation or ordered metadata.
func renderMMA(v mma.Value) (Kernel, error) {
	if v.ShapeRank < 3 {
		// Not a spelling gap but a reproducibility one: MLIR 19 and 22
		// read three entries whatever the array holds, so a shorter one
		// gives diagnostics with whatever lies past it.
		return Kernel{}, unsupported("shape_rank", "below-3", "nvgpu.mma.sync reads mmaShape[0..2] unchecked before MLIR 23; a %d-entry array is read past its end", v.ShapeRank)
	}
	return renderMMA23(v)
}

// renderMMA23 is renderMMA for MLIR 23 and later, whose verifier checks
// the mmaShape array's length first ("mmaShape must have exactly 3
// elements"), so arrays of every length are asked about.
func renderMMA23(v mma.Value) (Kernel, error) {
	intA := v.AType == mma.S8 || v.AType == mma.U8 || v.AType == mma.S4 || v.AType == mma.U4
	switch {
	case v.Sparsity == mma.SPOrdered:
		return Kernel{}, unsupported("sparsity", "ordered-metadata", "nvgpu.mma.sp.sync has no ::ordered_metadata")
	case v.ALayout != mma.Row || v.BLayout != mma.Col:
		return Kernel{}, unsupported("layout", "not-row-col", "nvgpu.mma.sync is always .row.col, not .%s.%s", v.ALayout, v.BLayout)
	case v.BitOp != mma.NoBitOp:
		return Kernel{}, unsupported("bit_op", "any", "nvgpu.mma.sync has no .%s.popc", v.BitOp)
	case v.M() == 8 && v.N() == 8 && v.K() == 4 && v.AType == mma.F16:
		// PTX's m8n8k4 .f16 is the sm_70 quad-pair form, eight threads per
		// matrix; nvgpu.mma.sync's fragments are warp-wide, so it has no
		// spelling for it (its m8n8k4 is the f64 form).
		return Kernel{}, unsupported("shape", "m8n8k4-f16", "nvgpu.mma.sync has no m8n8k4 .f16 (the quad-pair form); its m8n8k4 is .f64")
	case v.Satfinite != intA:
		return Kernel{}, unsupported("satfinite", "not-integer-a", "nvgpu.mma.sync emits .satfinite exactly for integer A types (satfinite=%t with %s)", v.Satfinite, v.AType)
	}
	aT, bT := spelledAs(v, mmaElems[v.AType]), spelledAs(v, mmaElems[v.BType])
	cT, dT := mmaElems[v.CType][0], mmaElems[v.DType][0]
	a, bb, c := mmaFragments(v)
	aType := fmt.Sprintf("vector<%dx%dx%s>", a[0], a[1], aT)
	bType := fmt.Sprintf("vector<%dx%dx%s>", bb[0], bb[1], bT)
	cType := fmt.Sprintf("vector<%dx%dx%s>", c[0], c[1], cT)
	dType := fmt.Sprintf("vector<%dx%dx%s>", c[0], c[1], dT)
	dims := make([]string, v.ShapeRank)
	for i := range dims {
		dims[i] = fmt.Sprint(v.Shape[i])
	}
	b := newBody("      ")
	// The generic form (see genericOp): MLIR after 23 spells the ops'
	// attributes as keywords (mmaShape = [...] without braces).
	params := fmt.Sprintf("%%a: %s, %%b: %s, %%c: %s, %%out: !llvm.ptr<1>", aType, bType, cType)
	op := generic("nvgpu.mma.sync", false).args(aType, "%a").args(bType, "%b").args(cType, "%c").
		prop("mmaShape = [" + strings.Join(dims, ", ") + "]")
	if v.TF32 {
		op.prop("tf32Enabled")
	}
	if v.Sparse() {
		op.name = "nvgpu.mma.sp.sync"
		op.args("vector<2xi16>", "%meta").prop(fmt.Sprintf("sparsitySelector = %d : i32", v.Selector))
		params += ", %meta: vector<2xi16>"
	}
	d := b.val("%s", op.returns(dType))
	e := b.val("vector.extract %s[0, 0] : %s from %s", d, dT, dType)
	b.op("llvm.store %s, %%out : %s, !llvm.ptr<1>", e, dT)
	return Kernel{Params: params, Body: b.String()}, nil
}

// mmaFragments is the per-thread fragment shape of A, B and C by nvgpu's
// reading of the instruction: 8x8 tiles of 128-bit rows (f64: 4 elements),
// one 32-bit register per tile for A and B (f64: one element), two
// accumulators per C tile, half of A for sparse forms.
func mmaFragments(v mma.Value) (a, b, c [2]int) {
	bits := v.AType.Bits()
	k, per := 128/bits, 32/bits
	if v.AType == mma.F64 {
		k, per = 4, 1
	}
	mt, nt, kt := ceilDiv(v.M(), 8), ceilDiv(v.N(), 8), ceilDiv(v.K(), k)
	at := mt * kt
	if v.Sparse() {
		at = ceilDiv(at, 2)
	}
	return [2]int{at, per}, [2]int{kt * nt, per}, [2]int{mt * nt, 2}
}

// ceilDiv rounds up, and never below 1 (a vector dimension must be positive).
func ceilDiv(x, y int) int { return max((x+y-1)/y, 1) }

// wantsMMA is what the PTX of an mma case must hold: the one instruction of
// the shape nvgpu.mma.sync (or mma.sp.sync) names.
func wantsMMA(dv domain.Value) []Want {
	v, ok := dv.(mma.Value)
	if !ok || v.ShapeRank < 3 {
		return nil
	}
	return []Want{{What: fmt.Sprintf("mma m%dn%dk%d", v.M(), v.N(), v.K()),
		RE: regexp.MustCompile(fmt.Sprintf(`\bmma(?:\.sp(?:::ordered_metadata)?)?\.sync\.aligned\.m%dn%dk%d\.`, v.M(), v.N(), v.K())), N: 1,
		Why: "mmaShape names one instruction"}}
}
