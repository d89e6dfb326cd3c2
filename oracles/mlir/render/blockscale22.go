package render

import (
	"fmt"
	"regexp"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/intrinsic"
)

func init() { wantFuncs[bs.Name] = wantsBlockScale }

// renderBlockScale22 spells sm_120's block-scaled mma.sync as MLIR 22's
// nvvm.mma.block_scale (MLIR 19 has none): A as four i32 registers, B as
// two, C as four f32, each scale as its data (i32), byte id and thread id
// (i16), all kernel parameters; kind, shape, both multiplicand types, the
// scale vector and the scale-factor format are attributes, written as the
// value says so that MLIR 22's verifier judges them. The result's first
// element is stored, so the op cannot fold away. The values no instruction
// spells are intrinsic.ScaleVec's; the unscaled kind::f8f6f4 has no
// nvvm.mma.block_scale.
func renderBlockScale22(v bs.Value) (Kernel, error) {
	n, err := intrinsic.ScaleVec(v)
	if err != nil {
		return Kernel{}, unsupported("scale_vec", "no-instruction", "%v", err)
	}
	if v.Kind == bs.F8F6F4 {
		return Kernel{}, unsupported("kind", "unscaled-f8f6f4", "MLIR 22's #nvvm.block_scale_kind has no unscaled kind::f8f6f4")
	}
	const result = "!llvm.struct<(f32, f32, f32, f32)>"
	b := newBody("      ")
	// The generic form (see genericOp): MLIR after 23 spells the attributes
	// as keywords. The operand segments: A, B, C, then each scale's data,
	// byte id and thread id.
	d := b.val("%s", generic("nvvm.mma.block_scale", true).
		args("i32", "%a0", "%a1", "%a2", "%a3").args("i32", "%b0", "%b1").args("f32", "%c0", "%c1", "%c2", "%c3").
		args("i32", "%scale_a").args("i16", "%byte_id_a").args("i16", "%thread_id_a").
		args("i32", "%scale_b").args("i16", "%byte_id_b").args("i16", "%thread_id_b").
		prop(fmt.Sprintf("blockScaleFormat = #nvvm.block_scale_format<%s>", v.SFType),
			fmt.Sprintf("kind = #nvvm.block_scale_kind<%s>", v.Kind),
			fmt.Sprintf("multiplicandAPtxType = #nvvm.mma_type<%s>", v.AType),
			fmt.Sprintf("multiplicandBPtxType = #nvvm.mma_type<%s>", v.BType),
			fmt.Sprintf("scaleVecSize = #nvvm.scale_vec_size<x%d>", n),
			fmt.Sprintf("shape = #nvvm.shape<m = 16, n = 8, k = %d>", v.K)).
		returns(result))
	e := b.val("llvm.extractvalue %s[0] : %s", d, result)
	b.op("llvm.store %s, %%out : f32, !llvm.ptr<1>", e)
	params := "%a0: i32, %a1: i32, %a2: i32, %a3: i32, %b0: i32, %b1: i32, %c0: f32, %c1: f32, %c2: f32, %c3: f32, " +
		"%scale_a: i32, %byte_id_a: i16, %thread_id_a: i16, %scale_b: i32, %byte_id_b: i16, %thread_id_b: i16, %out: !llvm.ptr<1>"
	return Kernel{Params: params, Body: b.String()}, nil
}

// wantsBlockScale: one block-scaled mma of the op's shape, kind, scale
// vector, types and scale-factor format, as llc 22 prints it (checked on
// the seeds).
func wantsBlockScale(dv domain.Value) []Want {
	v, ok := dv.(bs.Value)
	if !ok {
		return nil
	}
	n, err := intrinsic.ScaleVec(v)
	if err != nil {
		return nil
	}
	q := fmt.Sprintf("mma.sync.aligned.%s.row.col.kind::%s.block_scale.scale_vec::%dX.f32.%s.%s.f32.%s",
		v.Shape(), v.Kind, n, v.AType, v.BType, v.SFType)
	return []Want{{What: q, N: 1, Why: "the op names one instruction", RE: regexp.MustCompile(regexp.QuoteMeta(q) + ` `)}}
}
