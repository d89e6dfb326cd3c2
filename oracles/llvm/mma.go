package llvm

import (
	"fmt"
	"strings"

	mm "github.com/legalfuzz/legalfuzz/fuzz/mma"
)

// LLVM spells warp-level mma as one intrinsic per form, everything in the
// name and nothing as an immarg but the sparsity selector:
//
//	llvm.nvvm.mma[.sp|.sp.ordered.metadata][.xor.popc|.and.popc].m<M>n<N>k<K>.<alayout>.<blayout>[.satfinite].<signature>
//
// (the .sp forms put the bit operation nowhere: mma.sp has none). The
// signature names what the other parts do not fix: D, A, B and C for FP8;
// D and C for f16; A and B when they differ; else A alone, C and D then
// being fixed by A's type. Operands are A's, B's and C's registers, then
// for .sp the metadata register and the selector immarg; the result is D's
// registers. LLVM 19 has the dense forms up to sm_80's; LLVM 22 adds FP8,
// the sm_90 f64 shapes and every mma.sp form, and drops m16n8k16 with
// different C and D types.
const mmaPrefix = "llvm.nvvm.mma"

// frag is one fragment's registers: count values of IR type typ.
type frag struct {
	typ   string
	count int
}

const (
	v2f16 = "<2 x half>"
	f32   = "float"
	f64   = "double"
	i32   = "i32"
)

// mmaFragKey names a fragment as IntrinsicsNVVM.td's WMMA_REGS does:
// "m16n8k16:a:f16" (geometry, fragment, PTX element type).
func mmaFragKey(m, n, k int, f byte, typ string) string {
	return fmt.Sprintf("m%dn%dk%d:%c:%s", m, n, k, f, typ)
}

// denseFrags are the mma (not wmma) rows of WMMA_REGS in LLVM 22, which
// keeps LLVM 19's rows and adds FP8 and the sm_90 f64 shapes. m8n8k4 f16
// C and D use the generic rows (four <2 x half>, eight floats).
var denseFrags = map[string]frag{
	"m8n8k4:a:f16": {v2f16, 2}, "m8n8k4:b:f16": {v2f16, 2},
	"m8n8k4:c:f16": {v2f16, 4}, "m8n8k4:d:f16": {v2f16, 4}, "m8n8k4:c:f32": {f32, 8}, "m8n8k4:d:f32": {f32, 8},
	"m16n8k8:a:f16": {v2f16, 2}, "m16n8k8:b:f16": {v2f16, 1},
	"m16n8k8:c:f16": {v2f16, 2}, "m16n8k8:d:f16": {v2f16, 2}, "m16n8k8:c:f32": {f32, 4}, "m16n8k8:d:f32": {f32, 4},
	"m16n8k16:a:f16": {v2f16, 4}, "m16n8k16:b:f16": {v2f16, 2},
	"m16n8k16:c:f16": {v2f16, 2}, "m16n8k16:d:f16": {v2f16, 2}, "m16n8k16:c:f32": {f32, 4}, "m16n8k16:d:f32": {f32, 4},
	"m16n8k4:c:f32": {f32, 4}, "m16n8k4:d:f32": {f32, 4},
	"m16n8k32:c:f16": {v2f16, 2}, "m16n8k32:d:f16": {v2f16, 2}, "m16n8k32:c:f32": {f32, 4}, "m16n8k32:d:f32": {f32, 4},
	"m16n8k64:c:f32": {f32, 4}, "m16n8k64:d:f32": {f32, 4},
	"m16n8k4:a:tf32": {i32, 2}, "m16n8k4:b:tf32": {i32, 1}, "m16n8k8:a:tf32": {i32, 4}, "m16n8k8:b:tf32": {i32, 2},
	"m8n8k4:a:f64": {f64, 1}, "m8n8k4:b:f64": {f64, 1}, "m8n8k4:c:f64": {f64, 2}, "m8n8k4:d:f64": {f64, 2},
	"m16n8k4:a:f64": {f64, 2}, "m16n8k4:b:f64": {f64, 1}, "m16n8k4:c:f64": {f64, 4}, "m16n8k4:d:f64": {f64, 4},
	"m16n8k8:a:f64": {f64, 4}, "m16n8k8:b:f64": {f64, 2}, "m16n8k8:c:f64": {f64, 4}, "m16n8k8:d:f64": {f64, 4},
	"m16n8k16:a:f64": {f64, 8}, "m16n8k16:b:f64": {f64, 4}, "m16n8k16:c:f64": {f64, 4}, "m16n8k16:d:f64": {f64, 4},
	"m16n8k16:a:bf16": {i32, 4}, "m16n8k16:b:bf16": {i32, 2}, "m16n8k8:a:bf16": {i32, 2}, "m16n8k8:b:bf16": {i32, 1},
	"m8n8k16:a:u8": {i32, 1}, "m8n8k16:a:s8": {i32, 1}, "m8n8k16:b:u8": {i32, 1}, "m8n8k16:b:s8": {i32, 1},
	"m8n8k16:c:s32": {i32, 2}, "m8n8k16:d:s32": {i32, 2},
	"m16n8k16:a:u8": {i32, 2}, "m16n8k16:a:s8": {i32, 2}, "m16n8k16:b:u8": {i32, 1}, "m16n8k16:b:s8": {i32, 1},
	"m16n8k16:c:s32": {i32, 4}, "m16n8k16:d:s32": {i32, 4},
	"m16n8k32:a:u8": {i32, 4}, "m16n8k32:a:s8": {i32, 4}, "m16n8k32:b:u8": {i32, 2}, "m16n8k32:b:s8": {i32, 2},
	"m16n8k32:c:s32": {i32, 4}, "m16n8k32:d:s32": {i32, 4},
	"m8n8k32:a:u4": {i32, 1}, "m8n8k32:a:s4": {i32, 1}, "m8n8k32:b:u4": {i32, 1}, "m8n8k32:b:s4": {i32, 1},
	"m8n8k32:c:s32": {i32, 2}, "m8n8k32:d:s32": {i32, 2},
	"m16n8k32:a:u4": {i32, 2}, "m16n8k32:a:s4": {i32, 2}, "m16n8k32:b:u4": {i32, 1}, "m16n8k32:b:s4": {i32, 1},
	"m16n8k64:a:u4": {i32, 4}, "m16n8k64:a:s4": {i32, 4}, "m16n8k64:b:u4": {i32, 2}, "m16n8k64:b:s4": {i32, 2},
	"m16n8k64:c:s32": {i32, 4}, "m16n8k64:d:s32": {i32, 4},
	"m16n8k16:a:e4m3": {i32, 2}, "m16n8k16:a:e5m2": {i32, 2}, "m16n8k16:b:e4m3": {i32, 1}, "m16n8k16:b:e5m2": {i32, 1},
	"m16n8k32:a:e4m3": {i32, 4}, "m16n8k32:a:e5m2": {i32, 4}, "m16n8k32:b:e4m3": {i32, 2}, "m16n8k32:b:e5m2": {i32, 2},
	"m8n8k128:a:b1": {i32, 1}, "m8n8k128:b:b1": {i32, 1}, "m8n8k128:c:s32": {i32, 2}, "m8n8k128:d:s32": {i32, 2},
	"m16n8k128:a:b1": {i32, 2}, "m16n8k128:b:b1": {i32, 1}, "m16n8k128:c:s32": {i32, 4}, "m16n8k128:d:s32": {i32, 4},
	"m16n8k256:a:b1": {i32, 4}, "m16n8k256:b:b1": {i32, 2}, "m16n8k256:c:s32": {i32, 4}, "m16n8k256:d:s32": {i32, 4},
}

// sparseFrags are WMMA_REGS's sparse rows in LLVM 22 (the types the seed
// can hold: no e3m2, e2m3 or e2m1).
var sparseFrags = map[string]frag{
	"m16n8k16:a:bf16": {i32, 2}, "m16n8k16:a:f16": {v2f16, 2}, "m16n8k16:b:bf16": {i32, 2}, "m16n8k16:b:f16": {v2f16, 2},
	"m16n8k16:c:f16": {v2f16, 2}, "m16n8k16:c:f32": {f32, 4}, "m16n8k16:d:f16": {v2f16, 2}, "m16n8k16:d:f32": {f32, 4},
	"m16n8k32:a:bf16": {i32, 4}, "m16n8k32:a:f16": {v2f16, 4}, "m16n8k32:b:bf16": {i32, 4}, "m16n8k32:b:f16": {v2f16, 4},
	"m16n8k32:c:f16": {v2f16, 2}, "m16n8k32:c:f32": {f32, 4}, "m16n8k32:d:f16": {v2f16, 2}, "m16n8k32:d:f32": {f32, 4},
	"m16n8k16:a:tf32": {i32, 4}, "m16n8k16:b:tf32": {i32, 4},
	"m16n8k8:a:tf32": {i32, 2}, "m16n8k8:b:tf32": {i32, 2}, "m16n8k8:c:f32": {f32, 4}, "m16n8k8:d:f32": {f32, 4},
	"m16n8k32:a:u8": {i32, 2}, "m16n8k32:a:s8": {i32, 2}, "m16n8k32:b:u8": {i32, 2}, "m16n8k32:b:s8": {i32, 2},
	"m16n8k32:c:s32": {i32, 4}, "m16n8k32:d:s32": {i32, 4},
	"m16n8k64:a:u8": {i32, 4}, "m16n8k64:a:s8": {i32, 4}, "m16n8k64:a:e4m3": {i32, 4}, "m16n8k64:a:e5m2": {i32, 4},
	"m16n8k64:b:u8": {i32, 4}, "m16n8k64:b:s8": {i32, 4}, "m16n8k64:b:e4m3": {i32, 4}, "m16n8k64:b:e5m2": {i32, 4},
	"m16n8k64:c:f16": {v2f16, 2}, "m16n8k64:c:f32": {f32, 4}, "m16n8k64:d:f16": {v2f16, 2}, "m16n8k64:d:f32": {f32, 4},
	"m16n8k64:a:u4": {i32, 2}, "m16n8k64:a:s4": {i32, 2}, "m16n8k64:b:u4": {i32, 2}, "m16n8k64:b:s4": {i32, 2},
	"m16n8k64:c:s32": {i32, 4}, "m16n8k64:d:s32": {i32, 4},
	"m16n8k128:a:u4": {i32, 4}, "m16n8k128:a:s4": {i32, 4}, "m16n8k128:b:u4": {i32, 4}, "m16n8k128:b:s4": {i32, 4},
	"m16n8k128:c:s32": {i32, 4}, "m16n8k128:d:s32": {i32, 4},
}

// fixedAcc is the C and D type LLVM implies when the signature names
// neither: s32 for the integer and single-bit forms, f32 for bf16 and tf32,
// f64 for f64.
var fixedAcc = map[string]string{"s8": "s32", "u8": "s32", "s4": "s32", "u4": "s32", "b1": "s32",
	"bf16": "f32", "tf32": "f32", "f64": "f64"}

func mmaFP8(t string) bool { return t == "e4m3" || t == "e5m2" }

func mmaHalfAcc(t string) bool { return t == "f16" || t == "f32" }

// mmaSignature is the name's type suffix (MMA_SIGNATURE in
// IntrinsicsNVVM.td), or why the value's types cannot all be written. It
// also keeps the name a function of the types, even for forms LLVM lacks:
// every type the suffix leaves out is the one LLVM fixes (B for f16, C and
// D for the fixed-accumulator forms), and f16's D and C are f16 or f32, so
// "f64.f16" cannot mean both f16 A with f64 D and f64 A with f16 B.
func mmaSignature(a, b, c, d string) (string, error) {
	switch {
	case mmaFP8(a):
		return strings.Join([]string{d, a, b, c}, "."), nil
	case a == "f16" && b != "f16":
		return "", noSpelling("types", "f16-a-other-b", "no LLVM spelling for mma with f16 A and %s B (the f16 names fix B to f16)", b)
	case a == "f16" && (!mmaHalfAcc(c) || !mmaHalfAcc(d)):
		return "", noSpelling("types", "f16-c-d", "no LLVM spelling for f16 mma with C .%s and D .%s (the f16 names take f16 or f32)", c, d)
	case a == "f16":
		return d + "." + c, nil
	}
	acc, ok := fixedAcc[a]
	switch {
	case !ok:
		return "", noSpelling("types", "a-type", "no LLVM mma takes .%s A", a)
	case c != acc || d != acc:
		return "", noSpelling("types", "c-d-fixed", "no LLVM spelling for mma .%s with C .%s and D .%s (the names fix both to .%s)", a, c, d, acc)
	case a != b:
		return a + "." + b, nil
	}
	return a, nil
}

// renderMMA renders one mma.sync or mma.sp instruction. A form LLVM lacks
// whose fragments LLVM does define (mma.sp in LLVM 19, a layout other than
// row.col, .satfinite on floats) is still written: llc then compiles it as
// an external call and the case comes back unsupported.
func renderMMA(m mm.Value, k *kernel) error {
	switch {
	case m.ShapeRank != 3:
		return noSpelling("shape_rank", "below-3", "no LLVM spelling for a rank-%d shape %s", m.ShapeRank, m.ShapeName())
	case m.TF32 && m.AType != mm.F32 && m.BType != mm.F32:
		return noSpelling("tf32", "not-f32-operands", "no LLVM spelling for tf32Enabled with .%s/.%s operands (tf32 is how f32 operands are spelt)", m.AType, m.BType)
	case m.Sparse() && m.BitOp != mm.NoBitOp:
		return noSpelling("bit_op", "sparse", "no LLVM spelling for mma.sp with .%s.popc", m.BitOp)
	}
	a, b, c, d := m.TypeName(m.AType), m.TypeName(m.BType), m.CType.String(), m.DType.String()
	sig, err := mmaSignature(a, b, c, d)
	if err != nil {
		return err
	}
	frags := denseFrags
	name := mmaPrefix
	switch m.Sparsity {
	case mm.SP:
		frags, name = sparseFrags, name+".sp"
	case mm.SPOrdered:
		frags, name = sparseFrags, name+".sp.ordered.metadata"
	}
	if m.BitOp != mm.NoBitOp {
		name += "." + m.BitOp.String() + ".popc"
	}
	name += fmt.Sprintf(".%s.%s.%s", m.ShapeName(), m.ALayout, m.BLayout)
	if m.Satfinite {
		name += ".satfinite"
	}
	name += "." + sig
	var fs [4]frag
	for i, f := range []struct {
		part byte
		typ  string
	}{{'a', a}, {'b', b}, {'c', c}, {'d', d}} {
		fr, ok := frags[mmaFragKey(m.M(), m.N(), m.K(), f.part, f.typ)]
		if !ok {
			return noSpelling("fragment", "no-intrinsic", "no LLVM %s fragment %s", map[bool]string{true: "mma.sp", false: "mma"}[m.Sparse()],
				mmaFragKey(m.M(), m.N(), m.K(), f.part, f.typ))
		}
		fs[i] = fr
	}
	var ops []operand
	for i, part := range []string{"a", "b", "c"} {
		for j := range fs[i].count {
			ops = append(ops, k.param(fs[i].typ, fmt.Sprintf("%s%d", part, j)))
		}
	}
	if m.Sparse() {
		ops = append(ops, k.param(i32, "meta"), imm(i32, int64(m.Selector)))
	}
	k.sink(k.call(regsType(fs[3]), name, ops...))
	return nil
}

// regsType is the IR type of a fragment's registers: the type, or a literal
// struct of count of them.
func regsType(f frag) string {
	if f.count == 1 {
		return f.typ
	}
	return "{" + strings.Repeat(f.typ+", ", f.count-1) + f.typ + "}"
}
