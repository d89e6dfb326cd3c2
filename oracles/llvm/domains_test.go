package llvm

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

func ldsmCase(op ldsm.Op, s ldsm.Shape, num int, trans bool, size ldsm.Size, tgt string) domain.Case {
	arch, ptx, _ := splitTarget(tgt)
	return domain.NewCase(ldsm.Name, ldsm.New(op, s, num, trans, size, target.MustParse(arch, ptx)))
}

// editCase is v changed by edit, when not nil, as a case of the domain
// name: the tables here write their cases as edits of one legal value.
func editCase[V domain.Value](name string, v V, edit func(*V)) domain.Case {
	if edit != nil {
		edit(&v)
	}
	return domain.NewCase(name, v)
}

func cpCase(cache cpasync.CacheOp, elems uint8, edit func(*cpasync.Value)) domain.Case {
	v := cpasync.Value{Elem: cpasync.F32, SrcElem: cpasync.F32, DstElements: elems, Cache: cache,
		DstStride: 1, SrcStride: 1, Tgt: target.MustParse("sm_80", "")}
	return editCase(cpasync.Name, v, edit)
}

// TestBothLLCsKnownAnswers pins what llc 19.1.7 and llc 22.1.8 said when run
// by hand on the same rendered modules: the two oracles judge the same IR,
// so where they differ the difference is LLVM's.
func TestBothLLCsKnownAnswers(t *testing.T) {
	o19, o22 := shared(t, 19), shared(t, 22)
	acc := want{oracles.Accept, RuleAccepted, ""}
	noIntr := want{oracles.Unsupported, ruleNoIntrinsic, "has no intrinsic llvm.nvvm."}
	for _, tc := range []struct {
		name     string
		c        domain.Case
		w19, w22 want
	}{
		{"ldmatrix m8n8 x4 b16 on sm_90a", ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, "sm_90a"), acc, acc},
		// llc 19 raises .version to what sm_90a needs; llc 22 refuses.
		{"ldmatrix at PTX 7.8 on sm_90a", ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, "sm_90a/7.8"), acc,
			want{oracles.Reject, RuleFatal, "PTX version 7.8 does not support target 'sm_90a'"}},
		{"stmatrix m8n8 on sm_90", ldsmCase(ldsm.Store, ldsm.M8N8, 1, false, ldsm.B16, "sm_90"), noIntr, acc},
		{"stmatrix m8n8 on sm_80", ldsmCase(ldsm.Store, ldsm.M8N8, 1, false, ldsm.B16, "sm_80"), noIntr,
			want{oracles.Reject, RuleCannotSelect, "Cannot select: intrinsic llvm.nvvm.stmatrix.sync.aligned.m8n8.x1.b16"}},
		{"ldmatrix m16n16 on sm_90a", ldsmCase(ldsm.Load, ldsm.M16N16, 2, true, ldsm.B8, "sm_90a"), noIntr,
			want{oracles.Reject, RuleCannotSelect, "ldmatrix.sync.aligned.m16n16.x2.trans.b8"}},
		{"ldmatrix m16n16 on sm_100a", ldsmCase(ldsm.Load, ldsm.M16N16, 1, true, ldsm.B8, "sm_100a"),
			want{oracles.Unsupported, ruleUnknown, "does not know processor sm_100a"}, acc},
		{"ldmatrix m8n8 .b8 (no such intrinsic)", ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B8, "sm_90a"), noIntr, noIntr},
		{"ldmatrix .u16 (the seed's spelling)", ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.U16, "sm_90a"),
			want{oracles.Unsupported, rule("size", "no-intrinsic"), ".u16"}, want{oracles.Unsupported, rule("size", "no-intrinsic"), ".u16"}},
		{"cp.async.ca 16 on sm_80", cpCase(cpasync.CA, 4, nil), acc, acc},
		{"cp.async.cg 16 with src-size", cpCase(cpasync.CG, 4, func(v *cpasync.Value) { v.HasSrcElements, v.SrcElements = true, 2 }), acc, acc},
		{"cp.async.ca 4 on sm_90a", cpCase(cpasync.CA, 1, func(v *cpasync.Value) { v.Tgt = target.MustParse("sm_90a", "") }), acc, acc},
		{"cp.async.cs", cpCase(cpasync.CS, 4, nil), want{oracles.Unsupported, rule("cache", "not-ca-or-cg"), "cp.async.cs"},
			want{oracles.Unsupported, rule("cache", "not-ca-or-cg"), "cp.async.cs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.w19.check(t, judge(t, o19, []domain.Case{tc.c})[0])
			tc.w22.check(t, judge(t, o22, []domain.Case{tc.c})[0])
		})
	}
}

// TestLDSMAndCPAsyncSeedsRenderValidIR assembles the modules of every seed
// with llvm-as-22.
func TestLDSMAndCPAsyncSeedsRenderValidIR(t *testing.T) {
	o := shared(t, 22)
	var cs []domain.Case
	for _, s := range ldsm.Seeds() {
		cs = append(cs, domain.NewCase(ldsm.Name, s))
	}
	for _, s := range cpasync.Seeds() {
		cs = append(cs, domain.NewCase(cpasync.Name, s))
	}
	judge(t, o, cs)
	asmValid(t, o, cs)
}

// TestUnknownIntrinsicAfter22: llc after 22 refuses a call to an llvm.*
// name it has no intrinsic for ("call to unknown intrinsic ... cannot be
// lowered by the NVPTX backend", llc 23.1.4 and the 2026-10-25 trunk)
// where llc 22 compiled it as an external function: both are unsupported,
// never an unexplained failure, and the other kernels of the module are
// still judged.
func TestUnknownIntrinsicAfter22(t *testing.T) {
	ins, _, err := toolchain.Discover(context.Background(), toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B8, "sm_90a")
	good := ldsmCase(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, "sm_90a")
	tested := 0
	for _, in := range ins {
		if in.Major <= 22 {
			continue
		}
		tested++
		o := discoverIn(t, in)
		vs := judge(t, o, []domain.Case{bad, good})
		want{oracles.Unsupported, ruleNoIntrinsic, "has no intrinsic llvm.nvvm.ldmatrix"}.check(t, vs[0])
		want{oracles.Accept, RuleAccepted, ""}.check(t, vs[1])
	}
	if tested == 0 {
		t.Skip("no LLVM after 22 installed (make oracles)")
	}
}
