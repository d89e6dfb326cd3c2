package rules

import (
	"testing"

	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

var (
	sm100  = target.MustParse("sm_100", "")
	sm100a = target.MustParse("sm_100a", "")
)

// TestKindWordWorkedExamples pins seed 001's worked examples.
func TestKindWordWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         kw.Value
		wantRule  string
		wantDiag  string
		wantValue string
	}{
		{"0x42 not arch-conditional", kw.FromRaw(0x42, 0, false, sm100),
			"seed.kindword.1-int8-arch-conditional", "INT8 type is supported only on arch-conditional variants.", ""},
		{"0x42 arch-conditional", kw.FromRaw(0x42, 0, true, sm100), "", "", "10522"},
		{"0xE2", kw.FromRaw(0xE2, 0, true, sm100a),
			"seed.kindword.6-block-scale-kind", "Block scale is not supported for f16, tf32, f8f6f4, and i8 types", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := kindwordSeed.Judge(tc.v)
			checkJudgment(t, j, tc.wantRule, tc.wantDiag, tc.wantValue)
		})
	}
}

// checkJudgment asserts a judgment fired wantRule with wantDiag, or, when
// wantRule is empty, accepted with wantValue.
func checkJudgment(t *testing.T, j Judgment, wantRule, wantDiag, wantValue string) {
	t.Helper()
	if wantRule == "" {
		if !j.Accept {
			t.Fatalf("rejected by %s (%q), want accept", j.Rule.ID, j.Diagnostic)
		}
		if j.Value != wantValue {
			t.Fatalf("value %q, want %q", j.Value, wantValue)
		}
		return
	}
	if j.Accept {
		t.Fatalf("accepted (value %q), want %s", j.Value, wantRule)
	}
	if j.Rule.ID != wantRule || j.Diagnostic != wantDiag {
		t.Fatalf("fired %s %q, want %s %q", j.Rule.ID, j.Diagnostic, wantRule, wantDiag)
	}
}

// TestKindWordSeedLadder fires each of the 13 rules and shows the fail-first
// order: the first violated rule wins even when later ones are violated too.
func TestKindWordSeedLadder(t *testing.T) {
	raw := func(w uint16, coll uint8, arch bool, tg target.Target) kw.Value { return kw.FromRaw(w, coll, arch, tg) }
	for _, tc := range []struct {
		name string
		v    kw.Value
		rule string
		diag string
	}{
		{"rule 2", raw(0x1E2, 0, false, sm100a), "seed.kindword.2-mxf4-sparse-arch-conditional", "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants."},
		{"rule 3", raw(0x086, 0, false, sm100a), "seed.kindword.3-scale-vec-arch-conditional", "Explicit scale vector size is supported only on arch-conditional variants."},
		{"rule 4", raw(0x0D2, 0, true, sm100), "seed.kindword.4-scale-input-acc-arch", "Scale input accumulator is not supported on this architecture."},
		{"rule 5", raw(0x152, 0, true, sm100a), "seed.kindword.5-scale-input-acc-kind", "Scale input accumulator can only be used with f16 and tf32 types"},
		{"rule 7", raw(0x082, kw.CollectorAShift, true, sm100a), "seed.kindword.7-ashift-block-scale", "ashift is not supported with tcgen05.mma.block_scale variants"},
		{"rule 8", raw(0x0C3, 0, true, sm100a), "seed.kindword.8-ws-cta-group-2", "cta_group::2 is not supported with weight stationary"},
		{"rule 9", raw(0x081, 0, true, sm100a), "seed.kindword.9-ws-kind", "Cannot use weight stationary with mxf8f6f4 and fp4 types"},
		{"rule 10 keeps the colletor typo", raw(0x0C1, 7, true, sm100a), "seed.kindword.10-collector-ashift", "Cannot use collector::a::use or colletor::a::fill with ashift"},
		{"rule 11", raw(0x08A, 0, true, sm100a), "seed.kindword.11-mxf8f6f4-scale-vec", "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type"},
		{"rule 12", raw(0x002, 0, true, sm100a), "seed.kindword.12-mxf4nvf4-scale-vec", "Cannot use 1X as scale vector size for mxf4nvf4 type"},
		{"rule 13", raw(0x1C2, 0, true, sm100a), "seed.kindword.13-mxf4-scale-vec", "Cannot use 1X or 4X as scale vector size for mxf4 type"},
		{"fail-first: i8 with block scale and 4X reports rule 1", raw(0x06A, 0, false, sm100), "seed.kindword.1-int8-arch-conditional", "INT8 type is supported only on arch-conditional variants."},
	} {
		t.Run(tc.name, func(t *testing.T) { checkJudgment(t, kindwordSeed.Judge(tc.v), tc.rule, tc.diag, "") })
	}
}

// TestKindWordSeedQuirks pins behaviour the seed specifies that PTX does not:
// these are the claims the campaign must settle, so they must not drift.
func TestKindWordSeedQuirks(t *testing.T) {
	t.Run("rule 11 lets 2X through despite its message", func(t *testing.T) {
		checkJudgment(t, kindwordSeed.Judge(kw.FromRaw(0x086, 0, true, sm100a)), "", "", "10521")
	})
	t.Run("reserved mma_kind 6 is accepted", func(t *testing.T) {
		checkJudgment(t, kindwordSeed.Judge(kw.FromRaw(0x182, 0, true, sm100a)), "", "", "10522")
	})
	t.Run("legal sparse f16 trips block scale", func(t *testing.T) {
		v := kw.Value{Kind: kw.F16, CTAGroup: 1, Sparse: true, ArchConditional: true, Tgt: sm100a}
		checkJudgment(t, kindwordSeed.Judge(v), "seed.kindword.6-block-scale-kind", "Block scale is not supported for f16, tf32, f8f6f4, and i8 types", "")
		checkJudgment(t, kindwordPTXISA.Judge(v), "", "", "tcgen05.mma.sp.cta_group::1.kind::f16")
	})
}

func TestKindWordPTXISA(t *testing.T) {
	base := kw.Value{Kind: kw.F16, CTAGroup: 1, ArchConditional: true, Tgt: sm100a}
	with := func(f func(*kw.Value)) kw.Value { v := base; f(&v); return v }
	for _, tc := range []struct {
		name string
		v    kw.Value
		rule string // "" means accept
	}{
		{"legal f16", base, ""},
		{"ptx too old", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_100a", "8.4") }), "ptxisa.kindword.target-ptx-version"},
		{"sm_90a", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_90a", "") }), "ptxisa.kindword.target"},
		// PTX ISA 9.0 renamed sm_101 to sm_110: sm_101a is named up to 8.8 only.
		{"sm_101a at PTX 8.8", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_101a", "8.8") }), ""},
		{"sm_101a at PTX 9.0", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_101a", "9.0") }), "ptxisa.kindword.target-ptx-version"},
		{"sm_110a at PTX 9.0", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_110a", "9.0") }), ""},
		{"sm_100f needs PTX 8.8", with(func(v *kw.Value) { v.Tgt = target.MustParse("sm_100f", "8.8") }), ""},
		{"reserved kind", with(func(v *kw.Value) { v.Kind = kw.Reserved6 }), "ptxisa.kindword.reserved-kind"},
		{"cta_group 3", with(func(v *kw.Value) { v.CTAGroup = 3 }), "ptxisa.kindword.cta-group"},
		{"i8 on sm_103a", with(func(v *kw.Value) { v.Kind, v.Tgt = kw.I8, target.MustParse("sm_103a", "") }), "ptxisa.kindword.i8-target"},
		{"i8 on sm_100a", with(func(v *kw.Value) { v.Kind = kw.I8 }), ""},
		{"mxf4 without block_scale", with(func(v *kw.Value) { v.Kind = kw.MXF4 }), "ptxisa.kindword.block-scale-required"},
		{"f16 with block_scale", with(func(v *kw.Value) { v.BlockScale = true }), "ptxisa.kindword.block-scale-kind"},
		{"mxf4 default scale vec", with(func(v *kw.Value) { v.Kind, v.BlockScale = kw.MXF4, true }), ""},
		{"ws cta_group 2", with(func(v *kw.Value) { v.WS, v.CTAGroup = true, 2 }), "ptxisa.kindword.ws-cta-group"},
		{"ws f8f6f4 is legal", with(func(v *kw.Value) { v.WS, v.Kind = true, kw.F8F6F4 }), ""},
		{"ws with collector::a::use", with(func(v *kw.Value) { v.WS, v.CollectorA = true, kw.Use }), "ptxisa.kindword.ws-collector-a"},
		{"collector::a::use without ws", with(func(v *kw.Value) { v.CollectorA = kw.Use }), ""},
		{"scale-input-d on sm_100f", with(func(v *kw.Value) {
			v.ScaleInputAcc, v.ScaleInputD, v.Tgt = true, 7, target.MustParse("sm_100f", "")
		}), ""},
		{"scale-input-d on sm_103a", with(func(v *kw.Value) {
			v.ScaleInputAcc, v.Tgt = true, target.MustParse("sm_103a", "8.8")
		}), ""},
		{"scale-input-d on sm_110a", with(func(v *kw.Value) {
			v.ScaleInputAcc, v.Tgt = true, target.MustParse("sm_110a", "9.0")
		}), "ptxisa.kindword.scale-input-d-target"},
		{"scale-input-d with i8", with(func(v *kw.Value) { v.Kind, v.ScaleInputAcc = kw.I8, true }), "ptxisa.kindword.scale-input-d-kind"},
		{"ashift without tmem", with(func(v *kw.Value) { v.AShift = true }), "ptxisa.kindword.ashift-tmem"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := kindwordPTXISA.Judge(tc.v)
			switch {
			case tc.rule == "" && !j.Accept:
				t.Fatalf("rejected by %s, want accept", j.Rule.ID)
			case tc.rule != "" && (j.Accept || j.Rule.ID != tc.rule):
				t.Fatalf("judgment %+v, want %s", j, tc.rule)
			}
		})
	}
}

func TestKindWordRawSelfCheck(t *testing.T) {
	for raw := uint16(0); raw < 512; raw++ {
		for coll := uint8(0); coll < 8; coll++ {
			if err := checkKindWordRaw(kw.FromRaw(raw, coll, true, sm100a)); err != nil {
				t.Fatalf("raw 0x%03x collector %d: %v", raw, coll, err)
			}
		}
	}
}
