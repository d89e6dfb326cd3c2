package llvm

import (
	"context"
	"os/exec"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// f16 is the legal tcgen05.mma.cta_group::1.kind::f16 on tgt, changed by edit.
func f16(tgt string, edit func(*kw.Value)) domain.Case {
	arch, ptx, _ := splitTarget(tgt)
	v := kw.Value{Kind: kw.F16, CTAGroup: 1, ArchConditional: true, Tgt: target.MustParse(arch, ptx)}
	return editCase(kw.Name, v, edit)
}

// splitTarget reads "sm_100a" or "sm_100a/8.8".
func splitTarget(s string) (arch, ptx string, ok bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestKindWordKnownAnswers pins what llc 22.1.8 said when run by hand on
// the rendered modules (llc -march=nvptx64 -mcpu=<target> -mattr=+ptxNN).
func TestKindWordKnownAnswers(t *testing.T) {
	o := shared(t, 22)
	sel := func(diag string) want { return want{oracles.Reject, RuleCannotSelect, diag} }
	for _, tc := range []struct {
		name string
		c    domain.Case
		want want
	}{
		{"f16 cta_group::1 on sm_100a", f16("sm_100a", nil), want{oracles.Accept, RuleAccepted, ""}},
		{"f16 cta_group::2 A in tensor memory", f16("sm_100a", func(v *kw.Value) { v.CTAGroup, v.ATMem = 2, true }), want{oracles.Accept, RuleAccepted, ""}},
		{"tf32 .ashift", f16("sm_100a", func(v *kw.Value) { v.Kind, v.AShift, v.ATMem = kw.TF32, true, true }), want{oracles.Accept, RuleAccepted, ""}},
		{"i8 .ws", f16("sm_100a", func(v *kw.Value) { v.Kind, v.WS = kw.I8, true }), want{oracles.Accept, RuleAccepted, ""}},
		{"f8f6f4 .sp", f16("sm_100a", func(v *kw.Value) { v.Kind, v.Sparse = kw.F8F6F4, true }), want{oracles.Accept, RuleAccepted, ""}},
		{"mxf4 block_scale", f16("sm_100a", func(v *kw.Value) { v.Kind, v.BlockScale = kw.MXF4, true }), want{oracles.Accept, RuleAccepted, ""}},
		{"mxf4nvf4 4X at PTX 8.8", f16("sm_100a/8.8", func(v *kw.Value) { v.Kind, v.BlockScale, v.ScaleVec = kw.MXF4NVF4, true, kw.Scale4X }), want{oracles.Accept, RuleAccepted, ""}},
		{"scale-input-d on sm_100f", f16("sm_100f", func(v *kw.Value) { v.ScaleInputAcc, v.ScaleInputD = true, 3 }), want{oracles.Accept, RuleAccepted, ""}},
		{"f16 on sm_90a", f16("sm_90a", nil), sel("Cannot select: intrinsic llvm.nvvm.tcgen05.mma.shared")},
		{"f16 on sm_100 (not arch-conditional)", f16("sm_100", nil), sel("Cannot select: intrinsic llvm.nvvm.tcgen05.mma.shared")},
		{"i8 on sm_103a", f16("sm_103a", func(v *kw.Value) { v.Kind = kw.I8 }), sel("Cannot select: intrinsic llvm.nvvm.tcgen05.mma.shared")},
		{"scale-input-d on sm_101a", f16("sm_101a", func(v *kw.Value) { v.ScaleInputAcc = true }), sel("llvm.nvvm.tcgen05.mma.shared.scale_d")},
		{"sparse mxf4 on sm_100f", f16("sm_100f", func(v *kw.Value) { v.Kind, v.BlockScale, v.Sparse = kw.MXF4, true, true }), sel("sp.shared.mxf4.block_scale")},
		{"mxf4nvf4 4X before PTX 8.8", f16("sm_100a/8.7", func(v *kw.Value) { v.Kind, v.BlockScale, v.ScaleVec = kw.MXF4NVF4, true, kw.Scale4X }), want{oracles.Unsupported, rule("scale_vec", "before-ptx-8.8"), "before PTX ISA 8.8"}},
		{"PTX 8.4 for sm_100a", f16("sm_100a/8.4", nil), want{oracles.Reject, RuleFatal, "PTX version 8.4 does not support target 'sm_100a'"}},
		{"cta_group 3", f16("sm_100a", func(v *kw.Value) { v.CTAGroup = 3 }), want{oracles.Reject, RuleVerifier, "immarg value 3 out of range [1, 3)"}},
		{"scale-input-d with f8f6f4", f16("sm_100a", func(v *kw.Value) { v.Kind, v.ScaleInputAcc = kw.F8F6F4, true }), want{oracles.Reject, RuleVerifier, "immarg value 2 out of range [0, 2)"}},
		{"ashift with collector::a::use", f16("sm_100a", func(v *kw.Value) { v.AShift, v.ATMem, v.CollectorA = true, true, kw.Use }), want{oracles.Reject, RuleVerifier, "immarg value 3 out of range [0, 2)"}},
		{"reserved kind 6", f16("sm_100a", func(v *kw.Value) { v.Kind = kw.Reserved6 }), want{oracles.Unsupported, rule("kind", "reserved-6"), "reserved kind 6"}},
		{".ws with cta_group::2", f16("sm_100a", func(v *kw.Value) { v.WS, v.CTAGroup = true, 2 }), want{oracles.Unsupported, rule("ws", "cta-group-2"), "cta_group::1 only"}},
		{"scale_vec::2X on sm_100f", f16("sm_100f", func(v *kw.Value) { v.Kind, v.BlockScale, v.ScaleVec = kw.MXF4, true, kw.Scale2X }), want{oracles.Unsupported, rule("scale_vec", "gated-on-target"), "gated differently"}},
		{"f16 at PTX 9.0", f16("sm_100a/9.0", nil), want{oracles.Accept, RuleAccepted, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.check(t, judge(t, o, []domain.Case{tc.c})[0])
		})
	}
}

// TestKindWordLLC19Unsupported: LLVM 19 has no tcgen05, and does not know
// sm_100a; neither is ever a reject.
func TestKindWordLLC19Unsupported(t *testing.T) {
	o := shared(t, 19)
	for _, c := range []domain.Case{f16("sm_100a", nil), f16("sm_90a", nil)} {
		v := judge(t, o, []domain.Case{c})[0]
		want{oracles.Unsupported, rule("domain", "not-in-release"), "no tcgen05"}.check(t, v)
	}
}

// TestKindWordSeedsRenderValidIR runs every seed the PTX ISA calls legal
// through llvm-as-22, which rejects a wrong intrinsic signature, and checks
// no seed at all is answered as invalid IR.
func TestKindWordSeedsRenderValidIR(t *testing.T) {
	o := shared(t, 22)
	var all, legal []domain.Case
	for _, s := range kw.Seeds() {
		c := domain.NewCase(kw.Name, s)
		all = append(all, c)
		if j, err := rules.JudgeValue(rules.PTXISA, kw.Name, s); err == nil && j.Accept {
			legal = append(legal, c)
		}
	}
	judge(t, o, all)
	asmValid(t, o, legal)
}

// asmValid assembles the modules Judge would build for cases with
// llvm-as-22 (skipped when it is missing).
func asmValid(t *testing.T, o *Oracle, cases []domain.Case) {
	t.Helper()
	as := findTool(t, "llvm-as-22")
	if as == "" {
		t.Skip("llvm-as-22 not found; install with make oracles")
	}
	batches, err := o.Batches(cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		cmd := exec.CommandContext(context.Background(), as, "-o", "/dev/null", "-")
		cmd.Stdin = bytesReader(b.Module)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("llvm-as-22 rejects the module for %s: %v\n%s\n%s", b.Target, err, out, b.Module)
		}
	}
}
