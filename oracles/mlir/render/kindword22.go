package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles/intrinsic"
)

func init() { wantFuncs[kw.Name] = wantsKindWord }

// renderKindWord22 spells tcgen05.mma as MLIR 22's nvvm.tcgen05.mma ops
// (MLIR 19 has none): .sp, .block_scale and .ws are in the op's name, A's
// place in its operand type (!llvm.ptr<6> for tensor memory, an i64
// descriptor for shared memory), scale-input-d is the op's scaleInputD
// operand, and kind, cta_group, collector::a, .ashift and the block-scale
// alias are attributes. What the attributes can hold is written as the
// value says (.ashift on a shared-memory A included), so MLIR 22's verifier
// judges the combination; a value its enums cannot hold has no spelling.
// The seed's arch-conditional flag is the case's target, as for llc.
var renderKindWord22 = kindWordRenderer("block_scale_kind")

// renderKindWord23 is the spelling of MLIR 23 and later: the block-scaled
// ops take their kind as a #nvvm.tcgen05_mma_kind, which gained the mx
// kinds (llvm#184433), not MLIR 22's #nvvm.block_scale_kind, which they
// refuse ("attribute 'kind' failed to satisfy constraint") and which only
// nvvm.mma.block_scale keeps; the ops and everything else are MLIR 22's.
var renderKindWord23 = kindWordRenderer("tcgen05_mma_kind")

// kindWordRenderer spells tcgen05.mma with blockScaleKind the attribute
// (#nvvm.<blockScaleKind>) that holds the block-scaled ops' kind. The ops
// are in the generic form (see genericOp): MLIR after 23 spells their
// attributes as keywords.
func kindWordRenderer(blockScaleKind string) func(kw.Value) (Kernel, error) {
	return func(w kw.Value) (Kernel, error) {
		op, err := tcgen05Op(w, blockScaleKind)
		if err != nil {
			return Kernel{}, err
		}
		// The parameters are named by role, as llc's kindword kernel names
		// them: the value check (package valuecheck) reads both.
		a, aType := "%adesc", "i64"
		if w.ATMem {
			a, aType = "%atmem", ptrType(6)
		}
		params := []string{"%d: !llvm.ptr<6>", a + ": " + aType, "%bdesc: i64", "%idesc: i32", "%enable_d: i1"}
		g := generic(op.name, op.sized).prop(op.attrs...).args(ptrType(6), "%d").args(aType, a).
			args("i64", "%bdesc").args("i32", "%idesc").args("i1", "%enable_d")
		if w.Sparse {
			params = append(params, "%spmeta: !llvm.ptr<6>")
			g.args(ptrType(6), "%spmeta")
		}
		if w.BlockScale {
			params = append(params, "%scale_a: !llvm.ptr<6>", "%scale_b: !llvm.ptr<6>")
			g.args(ptrType(6), "%scale_a").args(ptrType(6), "%scale_b")
		}
		b := newBody("      ")
		if op.sized {
			// The optional scaleInputD and disableOutputLane segments.
			if w.ScaleInputAcc {
				g.args("i64", b.i64(uint64(w.ScaleInputD)))
			} else {
				g.absent()
			}
			g.absent()
		}
		b.op("%s", g)
		return Kernel{Params: strings.Join(params, ", "), Body: b.String()}, nil
	}
}

// tcgen05Spelling is an nvvm.tcgen05.mma op's name and attributes, and
// whether its operands come in sized segments (the dense ops, whose
// scaleInputD and disableOutputLane are optional).
type tcgen05Spelling struct {
	name  string
	attrs []string
	sized bool
}

// tcgen05Op names the op and its attributes, or says why MLIR 22 cannot
// spell the value: its enums have no reserved kind and no cta_group but
// ::1 and ::2; the dense ops take only the four dense kinds and no scale
// vector, the block-scaled ones only the three mx kinds and neither
// .ashift nor a scale operand, and .ws neither (it is cta_group::1 and
// collects B, not A).
func tcgen05Op(w kw.Value, blockScaleKind string) (tcgen05Spelling, error) {
	collector := fmt.Sprintf("collectorOp = #nvvm.tcgen05_mma_collectorop<%s>", w.CollectorA)
	cta := fmt.Sprintf("ctaGroup = #nvvm.cta_group<cta_%d>", w.CTAGroup)
	switch {
	case w.Kind == kw.Reserved6:
		return tcgen05Spelling{}, unsupported("kind", "reserved-6", "MLIR 22 has no spelling for reserved kind 6")
	case w.CTAGroup != 1 && w.CTAGroup != 2:
		return tcgen05Spelling{}, unsupported("cta_group", "not-1-or-2", "MLIR 22's #nvvm.cta_group has cta_1 and cta_2, not %d", w.CTAGroup)
	case w.WS:
		if w.CTAGroup != 1 || w.BlockScale || w.Kind.BlockScaled() || w.ScaleVec != kw.ScaleDefault ||
			w.ScaleInputAcc || w.AShift || w.CollectorA != kw.Discard {
			return tcgen05Spelling{}, unsupported("ws", "not-dense-b-collector", "nvvm.tcgen05.mma.ws has only a dense kind and B's collector (cta_group::1, no scale vector, scale-input-d, .ashift or collector::a)")
		}
		return tcgen05Spelling{name: "nvvm.tcgen05.mma.ws" + sparseSuffix(w),
			attrs: []string{fmt.Sprintf("kind = #nvvm.tcgen05_mma_kind<%s>", w.Kind)}}, nil
	case w.BlockScale:
		if !w.Kind.BlockScaled() || w.AShift || w.ScaleInputAcc {
			return tcgen05Spelling{}, unsupported("block_scale", "kind-or-operands", "nvvm.tcgen05.mma.block_scale takes only kinds mxf8f6f4, mxf4 and mxf4nvf4, and neither .ashift nor a scale operand")
		}
		alias, err := intrinsic.BlockSuffix(w)
		if err != nil {
			return tcgen05Spelling{}, unsupported("scale_vec", "no-instruction", "%v", err)
		}
		attrs := []string{fmt.Sprintf("kind = #nvvm.%s<%s>", blockScaleKind, w.Kind), cta, collector}
		if alias != "" {
			attrs = append(attrs, fmt.Sprintf("blockScale = #nvvm.tcgen05_mma_block_scale<%s>", strings.TrimPrefix(alias, ".")))
		}
		return tcgen05Spelling{name: "nvvm.tcgen05.mma" + sparseSuffix(w) + ".block_scale", attrs: attrs}, nil
	case w.Kind.BlockScaled() || w.ScaleVec != kw.ScaleDefault:
		return tcgen05Spelling{}, unsupported("scale_vec", "without-block-scale", "nvvm.tcgen05.mma takes the dense kinds without a scale vector; kind::%s with scale vector %q needs .block_scale", w.Kind, w.ScaleVec.String())
	}
	attrs := []string{fmt.Sprintf("kind = #nvvm.tcgen05_mma_kind<%s>", w.Kind), cta, collector}
	if w.AShift {
		attrs = append(attrs, "aShift")
	}
	return tcgen05Spelling{name: "nvvm.tcgen05.mma" + sparseSuffix(w), attrs: attrs, sized: true}, nil
}

func sparseSuffix(w kw.Value) string {
	if w.Sparse {
		return ".sp"
	}
	return ""
}

// wantsKindWord: one tcgen05.mma with the op's qualifiers, in the order
// llc 22 prints them (checked on the seeds): .ws and .sp, cta_group, kind,
// .block_scale and its alias, the collector (B's b0 for .ws), .ashift;
// and the scale-input-d immediate last. A lowering that drops or changes
// one of them computes something else.
func wantsKindWord(dv domain.Value) []Want {
	w, ok := dv.(kw.Value)
	if !ok {
		return nil
	}
	q := "tcgen05.mma"
	if w.WS {
		q += ".ws"
	}
	q += sparseSuffix(w) + fmt.Sprintf(".cta_group::%d.kind::%s", w.CTAGroup, w.Kind)
	if w.BlockScale {
		alias, _ := intrinsic.BlockSuffix(w) // a rendered case has its spelling
		q += ".block_scale" + alias
	}
	coll := ".collector::a::" + w.CollectorA.String()
	if w.WS {
		coll = ".collector::b0::" + w.CollectorA.String()
	}
	// The PTX ISA writes .ashift before the collector usage
	// (.kind.ashift{.collector_usage}); llc 22 prints it after, llc after 23
	// before. Either order names the instruction the op asked for.
	quals := regexp.QuoteMeta(coll)
	if w.AShift {
		quals = "(?:" + regexp.QuoteMeta(".ashift"+coll) + "|" + regexp.QuoteMeta(coll+".ashift") + ")"
		coll = ".ashift" + coll
	}
	end := ""
	if w.ScaleInputAcc {
		end = fmt.Sprintf(", %d", w.ScaleInputD)
	}
	return []Want{{What: q + coll + end, N: 1, Why: "the op names one instruction",
		RE: regexp.MustCompile(regexp.QuoteMeta(q) + quals + ` [^;]*` + regexp.QuoteMeta(end) + `;`)}}
}
