package mlir

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// domains are the domains some release renders (spelled), by name.
var domains = func() map[string]domain.Domain {
	m := map[string]domain.Domain{}
	for _, d := range spelled {
		m[d.Name] = d
	}
	return m
}()

// discover returns the oracle with lowering, or skips naming what is missing.
func discover(t *testing.T) *Oracle {
	t.Helper()
	in := toolchaintest.Release(t, 19)
	o, st := Discover(context.Background(), in)
	if o == nil {
		t.Skipf("mlir-opt-19 not found: %s (%s)", st.Reason, st.Install)
	}
	if o.Lower == nil {
		_, err := discoverLowering(context.Background(), in)
		t.Skipf("lowering tools not found: %v", err)
	}
	if o.Lower.Ptxas.Path == "" {
		t.Skipf("ptxas not found (%s)", PtxasSpec.Install)
	}
	return o
}

// caseFrom builds a case from the domain's first seed in JSON form with
// fields replaced (a nil value drops the field); derived fields the JSON
// form prints are dropped.
func caseFrom(t *testing.T, domainName string, override map[string]any) domain.Case {
	t.Helper()
	d := domains[domainName]
	raw, err := json.Marshal(d.Seeds()[0])
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]any{}
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, derived := range []string{"raw", "cp_size", "bypass_l1"} {
		delete(fields, derived)
	}
	for k, v := range override {
		if v == nil {
			delete(fields, k)
			continue
		}
		fields[k] = v
	}
	raw, _ = json.Marshal(fields)
	v, err := d.ParseJSON(raw)
	if err != nil {
		t.Fatalf("%s %s: %v", domainName, raw, err)
	}
	return domain.NewCase(domainName, v)
}

type m = map[string]any

// knownAnswers were observed running mlir-opt-19 (19.1.7), mlir-translate,
// llvm-link, llc-19 and ptxas 12.4 by hand on the rendered modules; each
// pins the verdict, the deciding step and a piece of the diagnostic.
var knownAnswers = []struct {
	name, domain string
	override     m
	kind         oracles.Kind
	rule, diag   string
}{
	{"cpasync 16B ca", "cpasync", m{}, oracles.Accept, "ptxas", ""},
	{"cpasync 16B cg", "cpasync", m{"cache": "cg"}, oracles.Accept, "ptxas", ""},
	{"cpasync 64B", "cpasync", m{"dst_elements": 16}, oracles.Reject, "verify", "Requested copy elements is 16 with width 32"},
	{"cpasync cg 8B", "cpasync", m{"elem": "f16", "src_elem": "f16", "cache": "cg"}, oracles.Reject, "verify", "bypassL1 does not satify alignment"},
	{"cpasync cs", "cpasync", m{"cache": "cs"}, oracles.Unsupported, "unspelled.tool:cache=not-ca-or-cg", "only .ca and .cg"},
	{"cpasync f16 into f32", "cpasync", m{"elem": "f32", "src_elem": "f16"}, oracles.Unsupported, "unspelled.tool:src_elem=differs", "one element type"},

	{"ldmatrix x1", "ldsm", m{}, oracles.Accept, "ptxas", ""},
	{"ldmatrix x4 trans", "ldsm", m{"mode": "MT88", "transpose": true, "num_matrices": 4, "result_dim0": 8}, oracles.Accept, "ptxas", ""},
	{"ldmatrix tiles vs fragment", "ldsm", m{"num_matrices": 2}, oracles.Reject, "verify", "expected vector register shape[0] and numTiles to match"},
	{"ldmatrix rank-2 fragment", "ldsm", m{"num_matrices": 4, "register_count": 4, "cosize": 4, "result_rank": 2, "result_dim0": 4},
		oracles.Unsupported, "unspelled.tool:result_rank=rank-2-fragment", "a rank-2 fragment has no spelling of its own"},
	{"ldmatrix from global", "ldsm", m{"src_space": "global"}, oracles.Reject, "verify", "srcMemref must have a memory space attribute of IntegerAttr(3)"},
	{"stmatrix on sm_80", "ldsm", m{"op": "stmatrix", "src_space": "register", "dst_space": "shared", "target": "sm_80", "ptx": "7.8"},
		oracles.Error, "ptxas/refused", "Feature 'stmatrix' requires .target sm_90 or higher"},
	{"stmatrix num 3", "ldsm", m{"op": "stmatrix", "src_space": "register", "dst_space": "shared", "num_matrices": 3, "result_dim0": 6},
		oracles.Reject, "verify", "expected num attribute to be 1, 2 or 4"},
	{"ldmatrix m16n16", "ldsm", m{"mode": "MT1616", "shape": "m16n16", "size": "b8", "transpose": true}, oracles.Unsupported, "unspelled.tool:shape=not-m8n8", "only .m8n8"},

	{"matdesc 128B", "matdesc", m{"lbo": 0x2000}, oracles.Accept, "ptxas", ""},
	{"matdesc 64B", "matdesc", m{"lbo": 0x2000, "swizzle": 2, "sbo": 512}, oracles.Reject, "verify", "supports only swizzle_128b is supported for the time being"},
	{"matdesc 257 rows", "matdesc", m{"lbo": 257 * 128}, oracles.Reject, "verify", "dimensions between 1 and 256 but it is 257"},
	{"matdesc LBO 16", "matdesc", m{}, oracles.Unsupported, "unspelled.tool:lbo=not-derived", "derives LBO"},

	{"mma f16", "mma", m{"shape": []int{16, 8, 16}}, oracles.Accept, "ptxas", ""},
	{"mma e4m3", "mma", m{"shape": []int{16, 8, 32}, "a_type": "e4m3", "b_type": "e4m3", "target": "sm_89", "ptx": "8.4"},
		oracles.Reject, "verify", "expected input data type (i4,i8,f16,bf16,tf32,f64)"},
	{"mma bf16 lowering", "mma", m{"shape": []int{16, 8, 16}, "a_type": "bf16", "b_type": "bf16"},
		oracles.Error, "pass:convert-nvgpu-to-nvvm/exit-0", "lowering: 'nvgpu.mma.sync' op failed to deduce operand PTX types"},
	{"mma f32 without tf32", "mma", m{"shape": []int{16, 8, 8}, "a_type": "f32", "b_type": "f32"},
		oracles.Error, "pass:convert-nvgpu-to-nvvm/unconverted", "lowering: 'nvgpu.mma.sync' left unconverted"},
	// A pass that refuses in its own words is a Reject at that pass; llc 19
	// emitting f16 D with f32 C, which ptxas refuses, is MLIR's fault too:
	// its verifier let the case through.
	{"mma f64 m16n8k4", "mma", m{"shape": []int{16, 8, 4}, "a_type": "f64", "b_type": "f64", "c_type": "f64", "d_type": "f64", "target": "sm_90", "ptx": "7.8"},
		oracles.Error, "pass:convert-nvgpu-to-nvvm/pass-refused", "lowering: invalid shape or multiplicand type: f64"},
	{"mma sp bf16", "mma", m{"shape": []int{16, 8, 16}, "a_type": "bf16", "b_type": "bf16", "sparsity": "sp"},
		oracles.Error, "pass:convert-nvgpu-to-nvvm/exit-0", "'nvgpu.mma.sp.sync' op failed to deduce operand PTX types\n" + exitZeroNote},
	{"mma f16 D f32 C", "mma", m{"shape": []int{16, 8, 16}, "c_type": "f32", "d_type": "f16"},
		oracles.Error, "ptxas/refused", "ptxas: .dtype must be '.f32' when .ctype is '.f32'"},
	{"mma col-major A", "mma", m{"a_layout": "col"}, oracles.Unsupported, "unspelled.tool:layout=not-row-col", "always .row.col"},
	{"mma m8n8k4 f16", "mma", m{"shape": []int{8, 8, 4}, "target": "sm_80", "ptx": "7.0"}, oracles.Unsupported, "unspelled.tool:shape=m8n8k4-f16", "no m8n8k4 .f16"},

	{"tmadesc sm_90a", "tmadesc", m{"target": "sm_90a", "ptx": "8.0"}, oracles.Accept, "ptxas", ""},
	// A tensor map has no PTX version; the TMA load that uses it needs 8.0,
	// so a case at 7.8 is rendered at 8.0, not failed on ".version 8.0 required".
	{"tmadesc PTX 7.8", "tmadesc", m{}, oracles.Accept, "ptxas", ""},
	{"tmadesc 256B rows", "tmadesc", m{"box_dim": []int{128, 64}}, oracles.Reject, "verify", "last dimension of 128 bytes but it is 256 bytes"},
	{"tmadesc interleave", "tmadesc", m{"interleave": "16B"}, oracles.Reject, "verify", "Interleave options are not supported yet."},
	{"tmadesc zero stride", "tmadesc", m{"global_strides": []int{0}}, oracles.Unsupported, "unspelled.tool:global_strides=zero", "no zero stride"},
	{"tmadesc im2col", "tmadesc", m{"encode": "im2col", "box_dim": nil, "rank": 3, "global_dim": []int{64, 64, 64}, "global_strides": []int{512, 65536},
		"element_strides": []int{1, 1, 1}}, oracles.Unsupported, "unspelled.tool:encoding=not-tiled", "tiled maps only"},

	{"tmamode load 1d", "tmamode", m{}, oracles.Accept, "ptxas", ""},
	{"tmamode im2col 3d multicast", "tmamode", m{"mode": "im2col", "rank": 3, "multicast": true}, oracles.Accept, "ptxas", ""},
	{"tmamode store 3d", "tmamode", m{"direction": "store", "dst": "global", "rank": 3}, oracles.Accept, "ptxas", ""},
	{"tmamode 6d", "tmamode", m{"rank": 6}, oracles.Reject, "verify", "expects coordinates between 1 to 5 dimension"},
	{"tmamode im2col 2d", "tmamode", m{"mode": "im2col", "rank": 2}, oracles.Reject, "verify", "to use im2col mode, the tensor has to be at least 3-dimensional"},
	{"tmamode prefetch", "tmamode", m{"direction": "prefetch", "dst": "L2"}, oracles.Unsupported, "unspelled.tool:direction=prefetch", "no cp.async.bulk.prefetch.tensor"},

	{"wgmma f16", "wgmma", m{}, oracles.Accept, "ptxas", ""},
	{"wgmma s8 through nvgpu", "wgmma", m{"a_type": "s8", "b_type": "s8", "d_type": "s32", "result_type": "s32", "k": 32, "b_k": 32, "n": 32},
		oracles.Reject, "verify", "It does not fit into warp-group level (wgmma) matrix multiplication instruction"},
	{"wgmma f16 accumulator", "wgmma", m{"d_type": "f16", "result_type": "f16"},
		oracles.Error, "lowering", "for wgmma with a vector operand has no valid constraint"},
	// MLIR 19's junk constraints for the f16 accumulator of an FP8 wgmma;
	// MLIR 22 writes "=f" for it, which llc-22 and ptxas take.
	{"wgmma fp8 f16 accumulator", "wgmma", m{"n": 64, "k": 32, "b_k": 32, "a_type": "e4m3", "b_type": "e5m2", "d_type": "f16", "result_type": "f16", "scale_a": -1, "scale_b": -1},
		oracles.Error, "lowering", "for wgmma with a vector operand has no valid constraint"},
	{"wgmma satfinite f32", "wgmma", m{"satfinite": true}, oracles.Reject, "verify", "`satfinite` can be only used with s32 accumulator"},
	{"wgmma on sm_90", "wgmma", m{"target": "sm_90", "ptx": "8.0"}, oracles.Error, "ptxas/refused", "Instruction 'wgmma.fence' not supported on .target 'sm_90'"},
	// Every stage exits 0 and the PTX holds one m64n128k16 for a 64x24 tile.
	{"wgmma K 24", "wgmma", m{"k": 24, "b_k": 24}, oracles.Error, "ptx/dropped", "ptx: 1 wgmma.mma_async m64n128k16 where the op needs 2"},
	// nvgpu.warpgroup.mma's lowering advances B by K*16*2 bytes per K
	// step, the step of an MN-major B of K=64 (16 rows of 128 bytes), but
	// tells the instruction B is K-major (imm-trans-b 0), where the next 16
	// K elements are 32 bytes on.
	{"wgmma K 32", "wgmma", m{"k": 32, "b_k": 32}, oracles.Error, "ptx/value", "ptx: step 2 (M block 0, K step 1): B descriptor +1024 bytes, want +32"},
	{"wgmma K 8", "wgmma", m{"k": 8, "b_k": 8}, oracles.Error, "ptx/dropped", "ptx: 0 wgmma.mma_async m64n128k16 where the op needs 1"},
	{"wgmma M 128 K 40", "wgmma", m{"m": 128, "k": 40, "b_k": 40}, oracles.Error, "ptx/dropped", "ptx: 4 wgmma.mma_async m64n128k16 where the op needs 6"},
	// The second M block of A starts K*K*2 bytes on (512 at K 16), where
	// rows 64-127 of the descriptor's layout are 64*128 bytes on: right
	// only when K is 64.
	{"wgmma M 128", "wgmma", m{"m": 128}, oracles.Error, "ptx/value", "ptx: step 2 (M block 1, K step 0): A descriptor +512 bytes, want +8192"},
	// MLIR's own example shape, 128x64 with B transposed (MN-major): every
	// descriptor is where the layout puts it.
	{"wgmma 128x64 B transposed", "wgmma", m{"m": 128, "k": 64, "b_k": 64, "trans_b": true}, oracles.Accept, "ptxas", ""},
	// MLIR 19 and 22 lower unsigned 8-bit operands to .s8 (trunk to .u8).
	{"mma u8", "mma", m{"shape": []int{16, 8, 32}, "a_type": "u8", "b_type": "u8", "c_type": "s32", "d_type": "s32", "satfinite": true},
		oracles.Error, "ptx/value", "ptx: mma.sync.aligned.m16n8k32 .row.col.satfinite.s32.s8.s8.s32 where the op means .row.col.satfinite.s32.u8.u8.s32"},
	{"wgmma sparse", "wgmma", m{"sparse": true, "k": 32, "b_k": 32}, oracles.Unsupported, "unspelled.tool:sparse=any", "no wgmma.mma_async.sp"},
}

func TestKnownAnswers(t *testing.T) {
	o := discover(t)
	cases := make([]domain.Case, len(knownAnswers))
	for i, ka := range knownAnswers {
		cases[i] = caseFrom(t, ka.domain, ka.override)
	}
	verdicts, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, ka := range knownAnswers {
		t.Run(ka.name, func(t *testing.T) {
			v := verdicts[i]
			if v.Kind != ka.kind || v.Rule != ka.rule || !strings.Contains(v.Diagnostic, ka.diag) {
				text, _, _ := (render.Spelling{}).Render(cases[i])
				t.Errorf("got %s/%s %q, want %s/%s containing %q\n%s", v.Kind, v.Rule, v.Diagnostic, ka.kind, ka.rule, ka.diag, text)
			}
			if v.Oracle != "mlir@19" || v.Case != cases[i].ID || v.Domain != ka.domain {
				t.Errorf("verdict names %s/%s/%s", v.Oracle, v.Case, v.Domain)
			}
		})
	}
}

// TestVerifierOnly checks the verifier's own word without lowering: a case
// the lowering rejects is accepted by the verifier.
func TestVerifierOnly(t *testing.T) {
	o := discover(t)
	o.Lower = nil
	c := caseFrom(t, "mma", m{"shape": []int{16, 8, 16}, "a_type": "bf16", "b_type": "bf16"})
	vs, err := o.Judge(context.Background(), []domain.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Kind != oracles.Accept || vs[0].Rule != "verify" {
		t.Fatalf("got %+v, want accept by verify", vs[0])
	}
}

func TestUnsupportedTargets(t *testing.T) {
	o := discover(t)
	var cases []domain.Case
	for name := range domains {
		if !o.Judges(name) {
			continue // MLIR 19 has no op for it on any target
		}
		for _, tgt := range [][2]string{{"sm_100a", "8.6"}, {"sm_120a", "8.7"}, {"sm_100f", "8.8"}} {
			cases = append(cases, caseFrom(t, name, m{"target": tgt[0], "ptx": tgt[1]}))
		}
		cases = append(cases, caseFrom(t, name, m{"target": "sm_90a", "ptx": "8.6"}))
	}
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v.Kind != oracles.Unsupported || !strings.Contains(v.Diagnostic, "LLVM 19") {
			t.Errorf("%s %v: got %s %q, want unsupported naming LLVM 19", cases[i].Domain, cases[i].Value.Target(), v.Kind, v.Diagnostic)
		}
	}
}

// TestTargets22 checks which targets MLIR 22 is asked about: every target
// LLVM 22 knows, with its own renderings (tmamode, ldsm) and MLIR 19's of
// the other domains; MLIR 19 only on LLVM 19's.
func TestTargets22(t *testing.T) {
	o := NewRelease("mlir@22", 22, tool.Tool{})
	for _, tc := range []struct {
		domain string
		over   m
		want   string // "" renders
	}{
		{"tmamode", m{"mode": "tile::gather4", "rank": 2, "target": "sm_100a", "ptx": "8.6"}, ""},
		{"tmamode", m{"target": "sm_120f", "ptx": "8.8"}, ""},
		{"tmamode", m{"target": "sm_101a", "ptx": "9.0"}, "PTX ISA 9.0 no longer names sm_101a"},
		{"tmamode", m{"target": "sm_100a", "ptx": "8.4"}, "PTX ISA 8.4 is below sm_100a's first, 8.6"},
		{"ldsm", m{"target": "sm_100a", "ptx": "8.6"}, ""},
		{"cpasync", m{"target": "sm_100a", "ptx": "8.6"}, ""},
		{"wgmma", m{"target": "sm_90a", "ptx": "8.6"}, ""},
		{"wgmma", m{"target": "sm_110a", "ptx": "8.8"}, "PTX ISA 8.8 is below sm_110a's first, 9.0"},
	} {
		c := caseFrom(t, tc.domain, tc.over)
		_, _, err := o.render(c)
		if _, _, err19 := (render.Spelling{}).Render(c); tc.want == "" && tc.over["target"] == "sm_100a" && err19 == nil {
			t.Errorf("%s %v: MLIR 19 renders it, want unsupported", tc.domain, tc.over)
		}
		why, unsup := "", false
		if ns, ok := oracles.AsNoSpelling(err); ok {
			why, unsup = ns.Detail, true
		}
		switch {
		case err != nil && !unsup:
			t.Errorf("%s %v: %v", tc.domain, tc.over, err)
		case tc.want == "" && unsup:
			t.Errorf("%s %v: unsupported (%s), want a rendering", tc.domain, tc.over, why)
		case tc.want != "" && !strings.Contains(why, tc.want):
			t.Errorf("%s %v: got %q, want unsupported containing %q", tc.domain, tc.over, why, tc.want)
		}
	}
}

// TestMatDescValue compares the descriptor MLIR's lowering of
// nvgpu.warpgroup.generate.descriptor computes with spec/ptxisa's packing of
// the same value, and with seed 004's claimed layout, which MLIR does not
// follow (LBO at bit 16, SBO at 32, swizzle at 62, as in the PTX ISA).
func TestMatDescValue(t *testing.T) {
	o := discover(t)
	var cases []domain.Case
	for _, f := range []m{
		{"lbo": 0x2000},
		{"lbo": 0x80, "start_addr": 0x12345},
		{"lbo": 0x8000, "start_addr": 0x3fff0},
		{"lbo": 0x400, "start_addr": 0x40400},
	} {
		cases = append(cases, caseFrom(t, "matdesc", f))
	}
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		ptx, err := rules.JudgeValue(rules.PTXISA, "matdesc", cases[i].Value)
		if err != nil {
			t.Fatal(err)
		}
		seed, err := rules.JudgeValue(rules.Seed, "matdesc", cases[i].Value)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: mlir %s, ptxisa %s (%v), seed %s (%v)", cases[i].Value, v.Value, ptx.Value, ptx.Accept, seed.Value, seed.Accept)
		if v.Kind != oracles.Accept || v.Value == "" {
			t.Fatalf("%v: got %s %q, want an accepted value", cases[i].Value, v.Kind, v.Diagnostic)
		}
		if ptx.Accept && v.Value != ptx.Value {
			t.Errorf("%v: mlir computes %s, spec/ptxisa %s", cases[i].Value, v.Value, ptx.Value)
		}
		if seed.Accept && v.Value == seed.Value {
			t.Errorf("%v: mlir agrees with seed 004's layout %s; expected the PTX layout", cases[i].Value, v.Value)
		}
	}
}

// changes22 are the known answers on which MLIR 22 (mlir-opt-22 22.1.8,
// llc-22, ptxas 12.4) differs from MLIR 19, observed with the same
// renderings; every other known answer holds on 22 as on 19.
var changes22 = map[string]struct {
	kind       oracles.Kind
	rule, diag string
}{
	// MLIR 22 spells stmatrix with shape and eltType attributes and
	// checks .num itself; llc-22 refuses stmatrix below sm_90 ("Cannot
	// select", LLVM's refusal) where 19's inline PTX reached ptxas.
	"stmatrix on sm_80": {oracles.Error, "llc/refused", "llc: LLVM ERROR: Cannot select: intrinsic llvm.nvvm.stmatrix.sync.aligned.m8n8.x1.b16"},
	"stmatrix num 3":    {oracles.Reject, "verify", "'nvvm.stmatrix' op expected num attribute to be 1, 2 or 4"},
	// MLIR 22 has the L2 prefetch LLVM 19 lacks.
	"tmamode prefetch": {oracles.Accept, "ptxas", ""},
	// 22's lowering refuses what 19 emitted for ptxas to refuse; its
	// verifier still lets it through (the verifier's gap).
	"mma f16 D f32 C": {oracles.Error, "pass:convert-nvgpu-to-nvvm/pass-refused", "'nvvm.mma.sync' op ctype does not match dtype"},
	"wgmma on sm_90":  {oracles.Error, "pass:convert-nvgpu-to-nvvm/pass-refused", "'nvvm.wgmma.fence.aligned' op is not supported on sm_90"},
	// 22 no longer writes junk constraints, but prints its refusal with
	// exit status 0.
	"wgmma f16 accumulator":     {oracles.Error, "pass:convert-nvvm-to-llvm/exit-0", "The register type could not be deduced from MLIR type. The 'f16' is not supported."},
	"wgmma fp8 f16 accumulator": {oracles.Accept, "ptxas", ""},
	// 22 checks the swizzle against the row before the op's own check.
	"matdesc 64B": {oracles.Reject, "verify", "the tensormap descriptor must have last dimension of 64 bytes but it is 128 bytes"},
}

// knownAnswers22 are cases only MLIR 22's renderings spell (its TMA modes,
// prefetch, stmatrix shapes), observed running mlir-opt-22 22.1.8,
// mlir-translate-22, llvm-link-22, llc-22 and ptxas 12.4 by hand on the
// rendered modules. These renderings are judged on every target LLVM 22
// knows (llvm22Targets); on an older one MLIR 22's verifier checks at most
// the op's sm_90, and llc-22 refuses an intrinsic the target lacks.
var knownAnswers22 = []struct {
	name, domain string
	override     m
	kind         oracles.Kind
	rule, diag   string
}{
	{"tmamode load 2d sm_90a", "tmamode", m{"rank": 2, "target": "sm_90a", "ptx": "8.0"}, oracles.Accept, "ptxas", ""},
	{"tmamode store im2col_no_offs", "tmamode", m{"direction": "store", "dst": "global", "mode": "im2col_no_offs", "rank": 3}, oracles.Accept, "ptxas", ""},
	{"tmamode store im2col_no_offs 2d", "tmamode", m{"direction": "store", "dst": "global", "mode": "im2col_no_offs", "rank": 2},
		oracles.Reject, "verify", "to use im2col mode, the tensor has to be at least 3-dimensional"},
	{"tmamode prefetch im2col 4d", "tmamode", m{"direction": "prefetch", "dst": "L2", "mode": "im2col", "rank": 4}, oracles.Accept, "ptxas", ""},
	{"tmamode load on sm_80", "tmamode", m{"rank": 2, "target": "sm_80", "ptx": "7.0"},
		oracles.Reject, "verify", "'nvvm.cp.async.bulk.tensor.shared.cluster.global' op is not supported on sm_80"},
	{"tmamode load PTX 7.8", "tmamode", m{"rank": 2, "target": "sm_90", "ptx": "7.8"},
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d"},
	{"tmamode gather4 on sm_90a", "tmamode", m{"mode": "tile::gather4", "rank": 2, "target": "sm_90a", "ptx": "8.0"},
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.tile.gather4.2d"},
	{"tmamode im2col::w on sm_90a", "tmamode", m{"mode": "im2col::w", "rank": 3, "target": "sm_90a", "ptx": "8.0"},
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.im2col.w.3d"},
	{"tmamode into shared::cta at PTX 8.0", "tmamode", m{"dst": "shared::cta", "rank": 2, "target": "sm_90a", "ptx": "8.0"},
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.cta.tile.2d"},
	{"tmamode gather4 3d", "tmamode", m{"mode": "tile::gather4", "rank": 3, "target": "sm_90a", "ptx": "8.0"},
		oracles.Unsupported, "unspelled.tool:rank=gather4-not-2d", "tile_gather4 is 2D"},
	{"tmamode store multicast", "tmamode", m{"direction": "store", "dst": "global", "multicast": true}, oracles.Unsupported, "unspelled.tool:multicast=store", "no multicast mask"},
	// On the targets their modes need, llc-22 emits them; ptxas 12.4 reads
	// no PTX ISA 8.6, so the lowering stops at llc.
	{"tmamode gather4 multicast cta_group::2", "tmamode", m{"mode": "tile::gather4", "rank": 2, "multicast": true, "cta_group": 2, "target": "sm_100a", "ptx": "8.6"},
		oracles.Accept, "llc", "reads PTX ISA up to 8.4, not 8.6; lowering stopped at llc"},
	{"tmamode scatter4 store", "tmamode", m{"direction": "store", "dst": "global", "mode": "tile::scatter4", "rank": 2, "target": "sm_100a", "ptx": "8.6"},
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tmamode gather4 prefetch", "tmamode", m{"direction": "prefetch", "dst": "L2", "mode": "tile::gather4", "rank": 2, "target": "sm_100a", "ptx": "8.6"},
		oracles.Accept, "llc", "lowering stopped at llc"},
	// wHalo is an i16 operand: 512 is past .im2col::w's bound, and neither
	// MLIR 22 nor llc-22 checks it.
	{"tmamode im2col::w wHalo 512", "tmamode", m{"mode": "im2col::w", "rank": 3, "w_halo": 512, "target": "sm_100a", "ptx": "8.6"},
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tmamode gather4 on sm_100", "tmamode", m{"mode": "tile::gather4", "rank": 2, "target": "sm_100", "ptx": "8.6"},
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.tile.gather4.2d"},
	{"stmatrix m16n8 x1 trans b8", "ldsm", m{"op": "stmatrix", "mode": "reserved", "shape": "m16n8", "size": "b8", "transpose": true, "src_space": "register", "dst_space": "shared",
		"result_dim0": 4, "target": "sm_100a", "ptx": "8.6"}, oracles.Accept, "llc", "lowering stopped at llc"},
	{"stmatrix x4 trans", "ldsm", m{"op": "stmatrix", "mode": "MT88", "src_space": "register", "dst_space": "shared", "transpose": true, "num_matrices": 4,
		"result_dim0": 8, "target": "sm_90a", "ptx": "8.0"}, oracles.Accept, "ptxas", ""},
	{"stmatrix m16n8 row", "ldsm", m{"op": "stmatrix", "mode": "reserved", "shape": "m16n8", "size": "b8", "src_space": "register", "dst_space": "shared",
		"result_dim0": 4, "target": "sm_90a", "ptx": "8.0"}, oracles.Reject, "verify", "'nvvm.stmatrix' op expected layout to be col for 16x8 matrix"},
	{"stmatrix m8n8 b8", "ldsm", m{"op": "stmatrix", "size": "b8", "src_space": "register", "dst_space": "shared", "target": "sm_90a", "ptx": "8.0"},
		oracles.Reject, "verify", "'nvvm.stmatrix' op expected element type to be B16 for 8x8 matrix"},
	// tcgen05.mma has MLIR ops only from 22 on; ptxas 12.4 reads no PTX ISA
	// 8.6, so an accepted case stops at llc. MLIR 22 gates the op on
	// sm_100a and sm_110a alone (not sm_101a, sm_103a or the f family,
	// which PTX allows); its verifier lets scale-input-d through with
	// kind::f8f6f4, which LLVM's IR verifier in mlir-translate refuses.
	{"tcgen05.mma f16", "kindword", kwAt(m{}, "sm_100a", "8.6"), oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma cta_group::2 collector fill", "kindword", kwAt(m{"cta_group": 2, "collector_a": "fill"}, "sm_100a", "8.6"),
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma.ws.sp tf32 A in tmem", "kindword", kwAt(m{"kind": "tf32", "ws": true, "sparse": true, "a_tmem": true}, "sm_100a", "8.6"),
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma mxf4nvf4 block16", "kindword", kwAt(m{"kind": "mxf4nvf4", "block_scale": true, "scale_vec": "4X", "cta_group": 2}, "sm_100a", "8.8"),
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma scale-input-d 15 tf32", "kindword", kwAt(m{"kind": "tf32", "scale_input_d": 15, "collector_a": "lastuse"}, "sm_100a", "8.6"),
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma.sp ashift i8", "kindword", kwAt(m{"kind": "i8", "sparse": true, "ashift": true, "a_tmem": true}, "sm_100a", "8.6"),
		oracles.Accept, "llc", "lowering stopped at llc"},
	{"tcgen05.mma ashift A in shared memory", "kindword", kwAt(m{"ashift": true}, "sm_100a", "8.6"),
		oracles.Reject, "verify", "A-shift can be applied only when matrix A is in tensor memory"},
	{"tcgen05.mma ashift collector use", "kindword", kwAt(m{"ashift": true, "a_tmem": true, "collector_a": "use"}, "sm_100a", "8.6"),
		oracles.Reject, "verify", "Cannot use collector buffer operation fill or use with ashift"},
	{"tcgen05.mma scale-input-d f8f6f4", "kindword", kwAt(m{"kind": "f8f6f4", "scale_input_d": 0}, "sm_100a", "8.6"),
		oracles.Error, "translate/refused", "immarg value 2 out of range [0, 2)"},
	{"tcgen05.mma on sm_103a", "kindword", kwAt(m{}, "sm_103a", "8.8"),
		oracles.Reject, "verify", "'nvvm.tcgen05.mma' op is not supported on sm_103a"},
	{"tcgen05.mma on sm_90a", "kindword", kwAt(m{}, "sm_90a", "8.0"),
		oracles.Reject, "verify", "'nvvm.tcgen05.mma' op is not supported on sm_90a"},
	{"tcgen05.mma cta_group 3", "kindword", kwAt(m{"cta_group": 3}, "sm_100a", "8.6"), oracles.Unsupported, "unspelled.tool:cta_group=not-1-or-2", "cta_1 and cta_2, not 3"},
	// sm_120's block-scaled mma.sync has an MLIR op only from 22 on. MLIR 22
	// checks no target for it (llc-22 cannot select it on sm_100a), and
	// verifies an f16 multiplicand with kind::mxf8f6f4, on which
	// mlir-translate-22 crashes looking up an intrinsic that does not exist.
	{"mma.block_scale mxf8f6f4", "blockscale", bsAt(m{}, "sm_120a", "8.7"), oracles.Accept, "llc", "lowering stopped at llc"},
	{"mma.block_scale mxf4nvf4 4X ue4m3", "blockscale", bsAt(m{"kind": "mxf4nvf4", "k": 64, "a_type": "e2m1", "b_type": "e2m1",
		"sf_type": "ue4m3", "scale_vector_size": 16, "scale_fragment_bits": 32}, "sm_120a", "8.7"), oracles.Accept, "llc", "lowering stopped at llc"},
	{"mma.block_scale on sm_100a", "blockscale", bsAt(m{}, "sm_100a", "8.7"),
		oracles.Error, "llc/refused", "Cannot select: intrinsic llvm.nvvm.mma.block.scale.m16n8k32.row.col.mxf8f6f4.scale.1x.f32.e4m3.e4m3.f32.ue8m0"},
	{"mma.block_scale f16 A", "blockscale", bsAt(m{"a_type": "f16"}, "sm_120a", "8.7"),
		oracles.Error, "translate", "mlir-translate crashed (segmentation fault) in llvm::Intrinsic::getIntrinsicInfoTableEntries"},
	{"mma.block_scale mxf4 4X", "blockscale", bsAt(m{"kind": "mxf4", "k": 64, "a_type": "e2m1", "b_type": "e2m1",
		"scale_vector_size": 16, "scale_fragment_bits": 32}, "sm_120a", "8.7"),
		oracles.Reject, "verify", "unsupported ScaleVecSize attribute for mma.m16n8k64.mxf4"},
	{"mma.block_scale unscaled kind", "blockscale", bsAt(m{"kind": "f8f6f4"}, "sm_120a", "8.7"), oracles.Unsupported, "unspelled.tool:kind=unscaled-f8f6f4", "no unscaled kind::f8f6f4"},
	{"stmatrix fragment of 4 for x1", "ldsm", m{"op": "stmatrix", "src_space": "register", "dst_space": "shared", "result_dim0": 4, "target": "sm_90a", "ptx": "8.0"},
		oracles.Unsupported, "unspelled.tool:result_rank=not-one-register-per-matrix", "a rank-1 fragment of 4 for 1 m8n8 matrices (2 per lane)"},
}

// kwAt is a tcgen05.mma case on a target: kind f16, cta_group::1, A and B
// in shared memory, nothing else, with the fields given.
func kwAt(fields m, target, ptx string) m {
	out := m{"kind": "f16", "cta_group": 1, "collector_a": "discard", "ws": false, "sparse": false, "block_scale": false,
		"ashift": false, "a_tmem": false, "scale_vec": "", "scale_input_d": nil, "collector": nil,
		"target": target, "ptx": ptx, "arch_conditional": true}
	maps.Copy(out, fields)
	return out
}

// bsAt is a block-scaled mma case on a target: kind::mxf8f6f4 m16n8k32,
// e4m3 x e4m3, .scale_vec::1X of ue8m0, with the fields given.
func bsAt(fields m, target, ptx string) m {
	out := m{"kind": "mxf8f6f4", "k": 32, "a_type": "e4m3", "b_type": "e4m3", "sf_type": "ue8m0",
		"scale_vector_size": 32, "scale_fragment_bits": 8, "target": target, "ptx": ptx}
	maps.Copy(out, fields)
	return out
}

func TestKnownAnswers22(t *testing.T) {
	o, st := Discover(context.Background(), toolchaintest.Release(t, 22))
	if o == nil || o.Lower == nil || o.Lower.Ptxas.Path == "" {
		t.Skipf("MLIR 22 with its lowering and ptxas not found: %s (%s)", st.Reason, st.Install)
	}
	type answer struct {
		name       string
		c          domain.Case
		kind       oracles.Kind
		rule, diag string
	}
	var as []answer
	for _, ka := range knownAnswers {
		a := answer{ka.name, caseFrom(t, ka.domain, ka.override), ka.kind, ka.rule, ka.diag}
		if c, ok := changes22[ka.name]; ok {
			a.kind, a.rule, a.diag = c.kind, c.rule, c.diag
		}
		as = append(as, a)
	}
	for _, ka := range knownAnswers22 {
		as = append(as, answer{ka.name, caseFrom(t, ka.domain, ka.override), ka.kind, ka.rule, ka.diag})
	}
	cases := make([]domain.Case, len(as))
	for i, a := range as {
		cases[i] = a.c
	}
	verdicts, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range as {
		t.Run(a.name, func(t *testing.T) {
			v := verdicts[i]
			if v.Kind != a.kind || v.Rule != a.rule || !strings.Contains(v.Diagnostic, a.diag) || v.Oracle != "mlir@22" {
				text, _, _ := o.render(a.c)
				t.Errorf("got %s %s/%s %q, want %s/%s containing %q\n%s", v.Oracle, v.Kind, v.Rule, v.Diagnostic, a.kind, a.rule, a.diag, text)
			}
		})
	}
}

// TestTargetsBeyondLLVM19 judges targets only LLVM 22 knows with mlir22:
// MLIR 22 gates the wgmma fence on sm_90a, but not nvvm.wgmma.mma_async
// itself, which it lowers to a wgmma that no sm_120f has (a known answer
// from mlir-opt-22 22.1.8; ptxas 12.4 cannot read PTX 8.8, so the
// lowering stops at llc).
func TestTargetsBeyondLLVM19(t *testing.T) {
	o, st := Discover(context.Background(), toolchaintest.Release(t, 22))
	if o == nil || o.Lower == nil {
		t.Skipf("MLIR 22 with its lowering not found: %s (%s)", st.Reason, st.Install)
	}
	tests := []struct {
		name     string
		domain   string
		override m
		kind     oracles.Kind
		rule     string
		diag     string
	}{
		{"wgmma fence on sm_100a", wgmma.Name, m{"target": "sm_100a", "ptx": "8.6"},
			oracles.Error, "pass:convert-nvgpu-to-nvvm/pass-refused", "'nvvm.wgmma.fence.aligned' op is not supported on sm_100a"},
		{"nvvm wgmma on sm_120f", wgmma.Name, m{"target": "sm_120f", "ptx": "8.8", "a_type": "e4m3", "b_type": "e5m2",
			"d_type": "f16", "result_type": "f16", "k": 32, "b_k": 32, "n": 64, "scale_a": -1},
			oracles.Accept, "llc", "lowering stopped at llc"},
		{"ldmatrix on sm_100a", ldsm.Name, m{"target": "sm_100a", "ptx": "8.6"}, oracles.Accept, "llc", ""},
		{"PTX 9.0 names no sm_101a", ldsm.Name, m{"target": "sm_101a", "ptx": "9.0"},
			oracles.Unsupported, "unspelled.tool:ptx=renamed-arch", "PTX ISA 9.0 no longer names sm_101a"},
	}
	cases := make([]domain.Case, len(tests))
	for i, tc := range tests {
		cases[i] = caseFrom(t, tc.domain, tc.override)
	}
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if v := vs[i]; v.Kind != tc.kind || v.Rule != tc.rule || !strings.Contains(v.Diagnostic, tc.diag) {
			t.Errorf("%s: got %s %s %q, want %s %s containing %q", tc.name, v.Kind, v.Rule, v.Diagnostic, tc.kind, tc.rule, tc.diag)
		}
	}
}
