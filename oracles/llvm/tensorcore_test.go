package llvm

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	bs "github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	mm "github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

func tgt(s string) target.Target {
	arch, ptx, _ := splitTarget(s)
	return target.MustParse(arch, ptx)
}

// mmaCase is the legal mma.sync m16n8k16 f32.f16.f16.f32 row.col on
// sm_80 with PTX 7.1, changed by edit.
func mmaCase(edit func(*mm.Value)) domain.Case {
	v := mm.Value{ShapeRank: 3, Shape: [mm.MaxShapeRank]uint16{16, 8, 16}, BLayout: mm.Col,
		AType: mm.F16, BType: mm.F16, CType: mm.F32, DType: mm.F32, Tgt: tgt("sm_80/7.1")}
	return editCase(mm.Name, v, edit)
}

// tmCase is the legal 2d tile load into .shared::cluster on sm_90 with
// PTX 8.0, changed by edit.
func tmCase(edit func(*tm.Value)) domain.Case {
	v := tm.Value{Direction: tm.Load, Mode: tm.Tile, Rank: 2, Dst: tm.SharedCluster, BoxDim1: 1, Tgt: tgt("sm_90/8.0")}
	return editCase(tm.Name, v, edit)
}

// bsCase is blockscale.New's instruction on sm_120a, changed by edit.
func bsCase(k bs.Kind, a, b bs.Type, sf bs.SF, edit func(*bs.Value)) domain.Case {
	v := bs.New(k, a, b, sf)
	return editCase(bs.Name, v, edit)
}

// TestTensorCoreKnownAnswers pins what llc 19.1.7 and llc 22.1.8 said when
// run by hand on the rendered modules of mma, tmamode and blockscale.
func TestTensorCoreKnownAnswers(t *testing.T) {
	o19, o22 := shared(t, 19), shared(t, 22)
	acc := want{oracles.Accept, RuleAccepted, ""}
	sel := func(diag string) want {
		return want{oracles.Reject, RuleCannotSelect, "Cannot select: intrinsic " + diag}
	}
	noIntr := func(name string) want { return want{oracles.Unsupported, ruleNoIntrinsic, "has no intrinsic " + name} }
	noSpell := func(field, class, diag string) want { return want{oracles.Unsupported, rule(field, class), diag} }
	noTMA := want{oracles.Unsupported, rule("domain", "not-in-release"), "no cp.async.bulk.tensor"}
	noBS := want{oracles.Unsupported, rule("domain", "not-in-release"), "no mma.block_scale"}
	var (
		cases []domain.Case
		wants [][2]want
		names []string
	)
	for _, tc := range []struct {
		name     string
		c        domain.Case
		w19, w22 want
	}{
		{"mma m16n8k16 f32.f16.f16.f32 on sm_80", mmaCase(nil), acc, acc},
		// ptxas 12.4 refuses what llc 19 makes of it: ".dtype must be '.f32'
		// when .ctype is '.f32'"; LLVM 22 dropped the intrinsic.
		{"mma m16n8k16 f16 D with f32 C", mmaCase(func(v *mm.Value) { v.DType = mm.F16 }), acc,
			noIntr("llvm.nvvm.mma.m16n8k16.row.col.f16.f32")},
		{"mma .and.popc m16n8k256 at PTX 7.0", mmaCase(func(v *mm.Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape[2], v.BitOp = mm.B1, mm.B1, mm.S32, mm.S32, 256, mm.AndPopc
			v.Tgt = tgt("sm_80/7.0")
		}), sel("llvm.nvvm.mma.and.popc.m16n8k256.row.col.b1"), sel("llvm.nvvm.mma.and.popc.m16n8k256.row.col.b1")},
		{"mma f64 m16n8k8 on sm_80", mmaCase(func(v *mm.Value) {
			v.AType, v.BType, v.CType, v.DType, v.Shape[2] = mm.F64, mm.F64, mm.F64, mm.F64, 8
		}), noIntr("llvm.nvvm.mma.m16n8k8.row.col.f64"), sel("llvm.nvvm.mma.m16n8k8.row.col.f64")},
		{"mma e4m3 m16n8k32 on sm_89", mmaCase(func(v *mm.Value) {
			v.AType, v.BType, v.Shape[2], v.Tgt = mm.E4M3, mm.E5M2, 32, tgt("sm_89/8.4")
		}), noIntr("llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"), acc},
		{"mma e4m3 m16n8k32 on sm_86", mmaCase(func(v *mm.Value) {
			v.AType, v.BType, v.Shape[2], v.Tgt = mm.E4M3, mm.E5M2, 32, tgt("sm_86/8.4")
		}), noIntr("llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"), sel("llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32")},
		{"mma.sp m16n8k16 f16", mmaCase(func(v *mm.Value) { v.Sparsity = mm.SP }),
			noIntr("llvm.nvvm.mma.sp.m16n8k16.row.col.f32.f32"), acc},
		{"mma.sp m16n8k32 selector 2", mmaCase(func(v *mm.Value) { v.Sparsity, v.Shape[2], v.Selector = mm.SP, 32, 2 }),
			noIntr("llvm.nvvm.mma.sp.m16n8k32.row.col.f32.f32"), want{oracles.Reject, RuleVerifier, "immarg value 2 out of range [0, 2)"}},
		{"mma.sp::ordered_metadata on sm_90", mmaCase(func(v *mm.Value) { v.Sparsity, v.Tgt = mm.SPOrdered, tgt("sm_90/8.5") }),
			noIntr("llvm.nvvm.mma.sp.ordered.metadata.m16n8k16.row.col.f32.f32"), acc},
		{"mma tf32Enabled with f16", mmaCase(func(v *mm.Value) { v.TF32 = true }),
			noSpell("tf32", "not-f32-operands", "tf32Enabled with .f16/.f16"), noSpell("tf32", "not-f32-operands", "tf32Enabled with .f16/.f16")},
		{"mma m16n8k16 col.col", mmaCase(func(v *mm.Value) { v.ALayout = mm.Col }),
			noIntr("llvm.nvvm.mma.m16n8k16.col.col.f32.f32"), noIntr("llvm.nvvm.mma.m16n8k16.col.col.f32.f32")},

		{"tma load tile 2d on sm_90", tmCase(nil), noTMA, acc},
		{"tma load gather4 cta_group::2 multicast on sm_100a", tmCase(func(v *tm.Value) {
			v.Mode, v.CTAGroup, v.Multicast, v.Tgt = tm.Gather4, 2, true, tgt("sm_100a")
		}), noTMA, acc},
		{"tma store scatter4 on sm_100a", tmCase(func(v *tm.Value) {
			v.Direction, v.Mode, v.Dst, v.Tgt = tm.Store, tm.Scatter4, tm.Global, tgt("sm_100a")
		}), noTMA, acc},
		{"tma prefetch im2col 4d on sm_90a", tmCase(func(v *tm.Value) {
			v.Direction, v.Mode, v.Rank, v.Dst, v.Tgt = tm.Prefetch, tm.Im2col, 4, tm.L2, tgt("sm_90a")
		}), noTMA, acc},
		{"tma load im2col::w::128 into shared::cta on sm_100", tmCase(func(v *tm.Value) {
			v.Mode, v.Rank, v.Dst, v.Tgt = tm.Im2colW128, 3, tm.SharedCTA, tgt("sm_100")
		}), noTMA, sel("llvm.nvvm.cp.async.bulk.tensor.g2s.cta.im2col.w.128.3d")},
		{"tma load at PTX 7.8", tmCase(func(v *tm.Value) { v.Tgt = tgt("sm_90/7.8") }), noTMA, sel("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d")},
		{"tma load on sm_80", tmCase(func(v *tm.Value) { v.Tgt = tgt("sm_80/8.0") }), noTMA, sel("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d")},
		{"tma cta_group::1 on sm_90a", tmCase(func(v *tm.Value) { v.CTAGroup, v.Tgt = 1, tgt("sm_90a") }),
			noTMA, sel("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d")},
		{"tma gather4 on sm_100 into shared::cluster", tmCase(func(v *tm.Value) { v.Mode, v.Tgt = tm.Gather4, tgt("sm_100") }),
			noTMA, sel("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.gather4.2d")},
		{"tma tile 6d", tmCase(func(v *tm.Value) { v.Rank = 6 }), noTMA, noIntr("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.6d")},
		{"tma load into .global", tmCase(func(v *tm.Value) { v.Dst = tm.Global }), noTMA, noSpell("dst", "not-for-direction", "load into .global")},
		{"tma store .im2col (not _no_offs)", tmCase(func(v *tm.Value) {
			v.Direction, v.Mode, v.Rank, v.Dst = tm.Store, tm.Im2col, 3, tm.Global
		}), noTMA, noSpell("mode", "not-for-direction", "store .im2col")},
		{"tma gather4 with box dim1 2", tmCase(func(v *tm.Value) { v.Mode, v.BoxDim1, v.Tgt = tm.Gather4, 2, tgt("sm_100a") }),
			noTMA, noSpell("tensor_map", "box-dim1-interleave", "llc never sees the tensor map")},
		// llc does not range-check the im2col::w operands (plain i16
		// operands, not immargs); the PTX ISA wants wHalo below 512.
		{"tma im2col::w wHalo 512", tmCase(func(v *tm.Value) { v.Mode, v.Rank, v.WHalo, v.Tgt = tm.Im2colW, 3, 512, tgt("sm_100a") }),
			noTMA, acc},

		{"mxf4 2X on sm_120a", bsCase(bs.MXF4, bs.E2M1, bs.E2M1, bs.UE8M0, nil), noBS, acc},
		{"mxf8f6f4 e3m2 x e2m1 on sm_120a", bsCase(bs.MXF8F6F4, bs.E3M2, bs.E2M1, bs.UE8M0, nil), noBS, acc},
		{"mxf4nvf4 4X ue4m3 on sm_120a", bsCase(bs.MXF4NVF4, bs.E2M1, bs.E2M1, bs.UE4M3, nil), noBS, acc},
		{"mxf8f6f4 on sm_90a", bsCase(bs.MXF8F6F4, bs.E4M3, bs.E4M3, bs.UE8M0, func(v *bs.Value) { v.Tgt = tgt("sm_90a") }),
			noBS, sel("llvm.nvvm.mma.block.scale.m16n8k32.row.col.mxf8f6f4.scale.1x")},
		{"mxf8f6f4 at PTX 8.6", bsCase(bs.MXF8F6F4, bs.E4M3, bs.E4M3, bs.UE8M0, func(v *bs.Value) { v.Tgt = tgt("sm_120a/8.6") }),
			noBS, want{oracles.Reject, RuleFatal, "PTX version 8.6 does not support target 'sm_120a'"}},
		// PTX ISA 9.1's ue8m0 with ::4X has no intrinsic in LLVM 22.
		{"mxf4nvf4 4X ue8m0", bsCase(bs.MXF4NVF4, bs.E2M1, bs.E2M1, bs.UE4M3, func(v *bs.Value) { v.SFType = bs.UE8M0 }),
			noBS, noIntr("llvm.nvvm.mma.block.scale.m16n8k64.row.col.mxf4nvf4.scale.4x.f32.e2m1.e2m1.f32.ue8m0")},
		{"mxf4 with an 8-bit scale fragment", bsCase(bs.MXF4, bs.E2M1, bs.E2M1, bs.UE8M0, func(v *bs.Value) { v.ScaleFragmentBits = 8 }),
			noBS, noSpell("sf_bits", "not-implied", "8-bit scale fragment with .scale_vec::2X")},
	} {
		cases = append(cases, tc.c)
		wants = append(wants, [2]want{tc.w19, tc.w22})
		names = append(names, tc.name)
	}
	// One Judge per llc: batching is checked against one-by-one elsewhere.
	v19, v22 := judge(t, o19, cases), judge(t, o22, cases)
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			wants[i][0].check(t, v19[i])
			wants[i][1].check(t, v22[i])
		})
	}
}

// TestWGMMANeverJudged: neither LLVM has a wgmma.mma_async intrinsic, so
// neither llc claims the domain, and a case sent anyway is unsupported.
func TestWGMMANeverJudged(t *testing.T) {
	c := domain.NewCase(wgmma.Name, wgmma.Seeds()[0])
	for _, major := range []int{19, 22} {
		o := shared(t, major)
		if o.Judges(wgmma.Name) {
			t.Errorf("%s claims to judge wgmma", o.Name())
		}
		want{oracles.Unsupported, rule("domain", "not-in-release"), "no wgmma.mma_async intrinsic"}.check(t, judge(t, o, []domain.Case{c})[0])
	}
}

// TestTensorCoreSeedsRenderValidIR judges every seed of mma, tmamode and
// blockscale with both llcs (judge fails on any invalid-IR verdict), and
// runs the modules of the seeds the PTX ISA calls legal through llvm-as-22
// and llvm-dis-22: each declaration must come back with the types we
// wrote, so LLVM 22 neither refused nor silently auto-upgraded it.
func TestTensorCoreSeedsRenderValidIR(t *testing.T) {
	o19, o22 := shared(t, 19), shared(t, 22)
	var all, legal []domain.Case
	for name, seeds := range map[string]func() []domain.Value{mm.Name: mm.Seeds, tm.Name: tm.Seeds, bs.Name: bs.Seeds} {
		for _, s := range seeds() {
			c := domain.NewCase(name, s)
			all = append(all, c)
			if j, err := rules.JudgeValue(rules.PTXISA, name, s); err == nil && j.Accept {
				legal = append(legal, c)
			}
		}
	}
	judge(t, o19, all)
	judge(t, o22, all)
	declsSurvive(t, o22, legal)
}

// declsSurvive assembles and disassembles the modules Judge would build
// for cases and checks every declaration we wrote is still there.
func declsSurvive(t *testing.T, o *Oracle, cases []domain.Case) {
	t.Helper()
	as, dis := findTool(t, "llvm-as-22"), findTool(t, "llvm-dis-22")
	if as == "" || dis == "" {
		t.Skip("llvm-as-22 or llvm-dis-22 not found; install with make oracles")
	}
	batches, err := o.Batches(cases)
	if err != nil {
		t.Fatal(err)
	}
	module := mergeModules(batches)
	cmd := exec.CommandContext(context.Background(), "sh", "-c", `"$0" -o - - | "$1" -o - -`, as, dis)
	cmd.Stdin = bytes.NewReader(module)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-as-22 | llvm-dis-22: %v\n%s\n%s", err, stderr.String(), module)
	}
	got := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "declare ") {
			got[normalizeDecl(l)] = true
		}
	}
	for _, l := range strings.Split(string(module), "\n") {
		if strings.HasPrefix(l, "declare ") && !got[normalizeDecl(l)] {
			t.Errorf("LLVM 22 changed the declaration %q (auto-upgraded or renamed)", l)
		}
	}
}

// mergeModules joins the batches' modules into one (kernel names are case
// indexes, unique across batches), each declaration once: llvm-as does
// not care which target a kernel was rendered for, and one process per
// target would cost more than the check.
func mergeModules(batches []Batch) []byte {
	var b strings.Builder
	b.WriteString("target triple = \"nvptx64-nvidia-cuda\"\n")
	var decls []string
	seen := map[string]bool{}
	for _, batch := range batches {
		for _, l := range strings.Split(string(batch.Module), "\n") {
			switch {
			case strings.HasPrefix(l, "declare "):
				if !seen[l] {
					seen[l] = true
					decls = append(decls, l)
				}
			case strings.HasPrefix(l, "target triple"), strings.HasPrefix(l, ";"):
			default:
				b.WriteString(l + "\n")
			}
		}
	}
	b.WriteString(strings.Join(decls, "\n") + "\n")
	return []byte(b.String())
}

var (
	declAttrs = regexp.MustCompile(`\s+(immarg|writeonly|readonly|readnone|nocapture|noundef|captures\([^)]*\)|range\([^)]*\)|align \d+)`)
	declGroup = regexp.MustCompile(`\s+#\d+$`)
)

// normalizeDecl strips what llvm-dis adds to a declaration: parameter
// attributes, the attribute group and the spaces inside struct braces.
func normalizeDecl(l string) string {
	l = declGroup.ReplaceAllString(declAttrs.ReplaceAllString(l, ""), "")
	return strings.NewReplacer("{ ", "{", " }", "}").Replace(l)
}
