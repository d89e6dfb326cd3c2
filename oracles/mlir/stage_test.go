package mlir

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

func TestStageRoundTrip(t *testing.T) {
	for _, rule := range []string{"verify", "pass:convert-nvgpu-to-nvvm", "pass:convert-nvgpu-to-nvvm/exit-0", "ptxas/refused", "ptx/dropped", "lowering"} {
		if got := oracles.ParseStage(rule).String(); got != rule {
			t.Errorf("ParseStage(%q).String() = %q", rule, got)
		}
	}
	if st := oracles.ParseStage("spec/ptxisa"); st.Fault != "" || st.Name != "spec/ptxisa" {
		t.Errorf("a slash without a fault is part of the name: %+v", st)
	}
}

// TestPassAfterError reads mlir-opt's own output for a lowering that
// printed an error in convert-nvgpu-to-nvvm (mma bf16) and one where the
// pass failed: 19's dump headers, and 23's, which name the pass after a
// colon.
func TestPassAfterError(t *testing.T) {
	for _, tc := range []struct{ name, stderr, want string }{
		{"after all", "case.mlir:4:13: error: 'nvgpu.mma.sync' op failed to deduce operand PTX types\n" +
			"// -----// IR Dump After ConvertNVGPUToNVVMPass (convert-nvgpu-to-nvvm) //----- //\nmodule {}\n" +
			"// -----// IR Dump After GpuKernelOutlining (gpu-kernel-outlining) //----- //\n", "convert-nvgpu-to-nvvm"},
		{"failed", "// -----// IR Dump After ConvertNVGPUToNVVMPass (convert-nvgpu-to-nvvm) //----- //\n" +
			"case.mlir:4:13: error: invalid shape or multiplicand type: f64\n" +
			"// -----// IR Dump After ConvertGpuOpsToNVVMOps Failed (convert-gpu-to-nvvm) //----- //\n", "convert-gpu-to-nvvm"},
		{"23 failed", "case.mlir:4:13: error: invalid shape or multiplicand type: f64\n" +
			"// -----// IR Dump After ConvertNVGPUToNVVMPass Failed: convert-nvgpu-to-nvvm //----- //\n", "convert-nvgpu-to-nvvm"},
		{"23 options", "case.mlir:4:13: error: x\n" +
			"// -----// IR Dump After CanonicalizerPass: canonicalize{max-iterations=10} //----- //\n", "canonicalize"},
		{"no dump", "case.mlir:4:13: error: x\n", ""},
		{"no error", "// -----// IR Dump After CSE (cse) //----- //\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := passAfterError(tc.stderr); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestExitZeroChunks: in a split run, a chunk with errors whose output was
// written printed them at exit status 0 (mlir-opt-19 lowering mma bf16
// writes the module with the op left in it); a chunk that failed writes
// nothing; a run that exited 0 failed no chunk.
func TestExitZeroChunks(t *testing.T) {
	st := stage{name: stageLowering, marker: SplitMarker}
	msgs := [][]string{{"'nvgpu.mma.sync' op failed to deduce operand PTX types"}, {"custom op 'x' is unknown"}, nil}
	outs := []string{"module {\n  nvgpu.mma.sync\n}\n", "", "module {}\n"}
	res := results(st, msgs, outs, false)
	if res[0].outcome != crashed || !strings.HasSuffix(res[0].diag, exitZeroNote) {
		t.Errorf("chunk with output and errors: %+v", res[0])
	}
	if res[1].outcome != failed || res[2].outcome != passed {
		t.Errorf("failed chunk %+v, clean chunk %+v", res[1], res[2])
	}
	if res := results(stage{name: stageVerify}, msgs[1:2], []string{""}, true); res[0].outcome != crashed {
		t.Errorf("errors in a run that exited 0: %+v", res[0])
	}
	v := oracles.Verdict{Kind: oracles.Error, Rule: stageLowering, Diagnostic: res[0].diag}
	convict(&v)
	if v.Kind != oracles.Error || v.Rule != "lowering/exit-0" {
		t.Errorf("convict: %+v", v)
	}
}

func TestConvict(t *testing.T) {
	for _, tc := range []struct {
		kind     oracles.Kind
		rule     string
		wantKind oracles.Kind
		wantRule string
	}{
		{oracles.Reject, "ptxas", oracles.Error, "ptxas/refused"},
		{oracles.Reject, "llc", oracles.Error, "llc/refused"},
		{oracles.Reject, "translate", oracles.Error, "translate/refused"},
		{oracles.Reject, "pass:convert-nvgpu-to-nvvm", oracles.Error, "pass:convert-nvgpu-to-nvvm/pass-refused"},
		{oracles.Reject, "lowering", oracles.Error, "lowering/pass-refused"},
		{oracles.Error, "pass:convert-nvgpu-to-nvvm", oracles.Error, "pass:convert-nvgpu-to-nvvm"},
		{oracles.Reject, "verify", oracles.Reject, "verify"},
		{oracles.Error, "llc", oracles.Error, "llc"},
		{oracles.Accept, "ptxas", oracles.Accept, "ptxas"},
		{oracles.Error, "ptx/dropped", oracles.Error, "ptx/dropped"},
	} {
		v := oracles.Verdict{Kind: tc.kind, Rule: tc.rule}
		convict(&v)
		if v.Kind != tc.wantKind || v.Rule != tc.wantRule {
			t.Errorf("%s at %s: got %s at %s, want %s at %s", tc.kind, tc.rule, v.Kind, v.Rule, tc.wantKind, tc.wantRule)
		}
	}
}

func TestUnconverted(t *testing.T) {
	left := "module {\n  llvm.func @k() {\n    %4 = nvgpu.mma.sync(%3, %2, %1) {mmaShape = [16, 8, 8]} : (vector<4x1xf32>) -> vector<2x2xf32>\n  }\n}\n"
	err := unconverted(left)
	f, ok := err.(*faultError)
	if !ok || f.stage.String() != "pass:convert-nvgpu-to-nvvm/unconverted" || !strings.Contains(f.msg, "'nvgpu.mma.sync' left unconverted") {
		t.Errorf("got %v", err)
	}
	if err := unconverted("module {\n  llvm.func @k() {\n    nvvm.wgmma.fence.aligned\n  }\n}\n"); err != nil {
		t.Errorf("nvvm ops are lowered ops: %v", err)
	}
}

// TestCheckEmitted cuts real llc-19 output of two entries and checks each
// against its case's op: the 64x24 f16 tile got one m64n128k16.
func TestCheckEmitted(t *testing.T) {
	k24 := caseFrom(t, "wgmma", m{"k": 24, "b_k": 24})
	k16 := caseFrom(t, "wgmma", m{})
	ptx := ".version 8.0\n.target sm_90a\n" +
		".visible .entry " + render.KernelName(k24) + "(\n)\n{\n\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f1}, %rd1, %rd2, p, 1,  1, 0,  0;\n}\n" +
		".visible .entry " + render.KernelName(k16) + "(\n)\n{\n\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f1}, %rd1, %rd2, p, 1,  1, 0,  0;\n}\n"
	entries := emitted.Entries(ptx)
	if err := checkEmitted(k16, entries[render.KernelName(k16)]); err != nil {
		t.Errorf("64x16: %v", err)
	}
	err := checkEmitted(k24, entries[render.KernelName(k24)])
	if f, ok := err.(*faultError); !ok || f.stage.String() != "ptx/dropped" || !strings.Contains(f.msg, "1 wgmma.mma_async m64n128k16 where the op needs 2") {
		t.Errorf("64x24: got %v", err)
	}
}

// TestCrashFrameWithoutSymbolizer: the same verifier crash, printed by
// mlir-opt-19 (symbolized) and by mlir-opt-22 without an llvm-symbolizer on
// PATH (real outputs, testdata/crash-*.txt), names the same frame, so one
// crash of both releases is one bucket.
func TestCrashFrameWithoutSymbolizer(t *testing.T) {
	const want = "mlir::nvgpu::WarpgroupMmaInitAccumulatorOp::verify()"
	for _, f := range []string{"../diag/testdata/crash/mlir-opt-19-symbolized.txt", "../diag/testdata/crash/mlir-opt-22-unsymbolized.txt"} {
		out, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := crashFrame(string(out)); got != want {
			t.Errorf("%s: frame %q, want %q", f, got, want)
		}
	}
	// An abort's libc frames (gsignal, abort) say how it died, not where.
	out, err := os.ReadFile("../diag/testdata/crash/mlir-opt-22-abort-unsymbolized.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := crashFrame(string(out)), "mlir::NVVM::MmaOp::verify()"; got != want {
		t.Errorf("abort: frame %q, want %q", got, want)
	}
}

// TestSubjectOp: the op a rendered case is about, not the ops rendered
// around it (the mbarrier of a TMA load, a wgmma's accumulator, cp.async's
// group and wait).
func TestSubjectOp(t *testing.T) {
	for _, tc := range []struct {
		domain string
		value  m
		want   string
	}{
		{"wgmma", m{}, "nvgpu.warpgroup.mma"},
		{"tmadesc", m{}, "nvgpu.tma.create.descriptor"},
		{"cpasync", m{}, "nvgpu.device_async_copy"},
		{"mma", m{"shape": []int{16, 8, 16}}, "nvgpu.mma.sync"},
		{"ldsm", m{}, "nvgpu.ldmatrix"},
	} {
		module, _, err := (render.Spelling{}).Render(caseFrom(t, tc.domain, tc.value))
		if err != nil {
			t.Fatalf("%s: %v", tc.domain, err)
		}
		if got := render.SubjectOp(module); got != tc.want {
			t.Errorf("%s: subject %q, want %q", tc.domain, got, tc.want)
		}
	}
	if got := render.SubjectOp("module {\n  gpu.module @m [#nvvm.target<chip = \"sm_90\">] {\n  }\n}\n"); got != "" {
		t.Errorf("a module with no op: subject %q (the target attribute is no op)", got)
	}
}

// TestDataMovementWants checks the emitted-PTX checks of ldsm, cpasync,
// tmamode, kindword and blockscale on lines LLVM 19 and 22 printed for their seeds: the
// instruction the op names passes, one that moves fewer matrices or bytes,
// or drops .trans, the mode, multicast, the CTA group (or for tcgen05.mma
// a qualifier or the scale-input-d immediate), is dropped work.
func TestDataMovementWants(t *testing.T) {
	for _, tc := range []struct {
		domain string
		value  map[string]any
		ptx    string
		ok     bool
	}{
		{"ldsm", map[string]any{"mode": "MT88", "transpose": true, "num_matrices": 4, "result_dim0": 8}, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%rd2];", true},
		{"ldsm", map[string]any{"mode": "MT88", "transpose": true, "num_matrices": 4, "result_dim0": 8}, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%rd2];", false},
		{"ldsm", map[string]any{"mode": "MT88", "transpose": true, "num_matrices": 4, "result_dim0": 8}, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%rd2];", false},
		{"ldsm", map[string]any{"op": "stmatrix", "src_space": "register", "dst_space": "shared", "num_matrices": 2, "result_dim0": 4, "mode": "MT88", "transpose": true}, "stmatrix.sync.aligned.x2.trans.m8n8.shared.b16 [%r1], {%r2, %r2};", true},
		{"ldsm", map[string]any{"op": "stmatrix", "src_space": "register", "dst_space": "shared", "num_matrices": 2, "result_dim0": 4}, "stmatrix.sync.aligned.x2.trans.m8n8.shared.b16 [%r1], {%r2, %r2};", false},
		{"cpasync", map[string]any{}, "cp.async.ca.shared.global [%rd3], [%rd2], 16;", true},
		{"cpasync", map[string]any{}, "cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;", true},
		{"cpasync", map[string]any{}, "cp.async.ca.shared.global [%rd3], [%rd2], 8;", false},
		{"tmamode", map[string]any{"mode": "im2col", "rank": 3, "multicast": true}, "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.im2col.multicast::cluster [%r1], [%rd1, {%r2,%r2,%r2} ], [%r5],{%rs1}, %rs2;", true},
		{"tmamode", map[string]any{"mode": "im2col", "rank": 3}, "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2,%r2,%r2} ], [%r5];", false},
		{"tmamode", map[string]any{"rank": 2, "multicast": true}, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2,%r2} ], [%r4];", false},
		{"tmamode", map[string]any{"direction": "store", "dst": "global", "rank": 3}, "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%rd1, {%r2, %r2, %r2} ], [%r1];", true},
		// Lines LLVM 22 printed for MLIR 22's renderings.
		{"tmamode", map[string]any{"rank": 2, "multicast": true}, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%rd2], [%rd1, {%r1, %r1}], [%rd3], %rs1;", true},
		{"tmamode", map[string]any{"direction": "store", "dst": "global", "mode": "im2col_no_offs", "rank": 3}, "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r1, %r1}], [%rd2];", true},
		{"tmamode", map[string]any{"direction": "store", "dst": "global", "mode": "im2col_no_offs", "rank": 3}, "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r1, %r1}], [%rd2];", false},
		{"tmamode", map[string]any{"direction": "prefetch", "dst": "L2", "mode": "im2col", "rank": 4}, "cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd1, {%r1, %r1, %r1, %r1}], {%rs1, %rs1};", true},
		{"tmamode", map[string]any{"direction": "prefetch", "dst": "L2", "mode": "im2col", "rank": 4}, "cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%rd1, {%r1, %r1, %r1, %r1}];", false},
		{"tmamode", map[string]any{"direction": "prefetch", "dst": "L2", "rank": 2}, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1}], [%rd3];", false},
		{"tmamode", map[string]any{"mode": "im2col::w", "rank": 3}, "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1, %r1}], [%rd3], {%rs1};", false},
		{"tmamode", map[string]any{"rank": 2, "cta_group": 2}, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1}], [%rd3];", false},
		{"tmamode", map[string]any{"mode": "tile::gather4", "rank": 2, "multicast": true, "cta_group": 2, "target": "sm_100a", "ptx": "8.6"},
			"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2 [%rd2], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd3], %rs1;", true},
		{"tmamode", map[string]any{"mode": "tile::gather4", "rank": 2, "dst": "shared::cta", "target": "sm_100", "ptx": "8.6"},
			"cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd3];", true},
		{"tmamode", map[string]any{"mode": "tile::gather4", "rank": 2, "dst": "shared::cta", "target": "sm_100", "ptx": "8.6"},
			"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd3];", false},
		{"tmamode", map[string]any{"mode": "im2col::w::128", "rank": 5, "w_halo": 31, "cta_group": 1, "target": "sm_100f", "ptx": "8.8"},
			"cp.async.bulk.tensor.5d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.cta_group::1 [%rd2], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd3], {%rs2, %rs1};", true},
		{"tmamode", map[string]any{"mode": "im2col::w", "rank": 5, "target": "sm_100a", "ptx": "8.6"},
			"cp.async.bulk.tensor.5d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes [%rd2], [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd3], {%rs2, %rs1};", false},
		{"tmamode", map[string]any{"direction": "store", "dst": "global", "mode": "tile::scatter4", "rank": 2, "target": "sm_100a", "ptx": "8.6"},
			"cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r1, %r1, %r1, %r1, %r1}], [%rd2];", true},
		{"tmamode", map[string]any{"direction": "prefetch", "dst": "L2", "mode": "tile::gather4", "rank": 2, "target": "sm_100a", "ptx": "8.6"},
			"cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r1, %r1, %r1, %r1}];", true},
		{"ldsm", map[string]any{"op": "stmatrix", "mode": "reserved", "shape": "m16n8", "size": "b8", "transpose": true, "src_space": "register", "dst_space": "shared", "result_dim0": 4, "target": "sm_100a", "ptx": "8.6"},
			"stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%rd1], {%r1};", true},
		{"ldsm", map[string]any{"op": "stmatrix", "mode": "reserved", "shape": "m16n8", "size": "b8", "transpose": true, "src_space": "register", "dst_space": "shared", "result_dim0": 4, "target": "sm_100a", "ptx": "8.6"},
			"stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%rd1], {%r1};", false},
		// Lines llc 22 printed for MLIR 22's nvvm.tcgen05.mma renderings.
		{"kindword", kwAt(m{"cta_group": 2, "collector_a": "fill"}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::2.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;", true},
		{"kindword", kwAt(m{"cta_group": 2, "collector_a": "fill"}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;", false},
		{"kindword", kwAt(m{"cta_group": 2, "collector_a": "fill"}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::2.kind::f16.collector::a::discard [%r1], %rd1, %rd2, %r2, %p1;", false},
		{"kindword", kwAt(m{"kind": "tf32", "scale_input_d": 3, "collector_a": "lastuse"}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::tf32.collector::a::lastuse [%r1], %rd1, %rd2, %r2, %p1, 3;", true},
		{"kindword", kwAt(m{"kind": "tf32", "scale_input_d": 3, "collector_a": "lastuse"}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::tf32.collector::a::lastuse [%r1], %rd1, %rd2, %r2, %p1;", false},
		{"kindword", kwAt(m{"kind": "i8", "ashift": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::i8.collector::a::discard.ashift [%r1], [%r3], %rd2, %r2, %p1;", true},
		{"kindword", kwAt(m{"kind": "i8", "ashift": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::i8.collector::a::discard [%r1], [%r3], %rd2, %r2, %p1;", false},
		// The line llc-trunk (2026-10-25) printed for the same op: the PTX
		// ISA's order, .ashift before the collector usage.
		{"kindword", kwAt(m{"kind": "tf32", "ashift": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::tf32.ashift.collector::a::discard [%r1], [%r2], %rd1, %r3, %p1;", true},
		{"kindword", kwAt(m{"kind": "tf32", "ashift": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.cta_group::1.kind::tf32.ashift.collector::a::lastuse [%r1], [%r2], %rd1, %r3, %p1;", false},
		{"kindword", kwAt(m{"kind": "tf32", "ws": true, "sparse": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.ws.sp.cta_group::1.kind::tf32.collector::b0::discard [%r1], [%r3], %rd2, [%r4], %r2, %p1;", true},
		{"kindword", kwAt(m{"kind": "tf32", "ws": true, "sparse": true, "a_tmem": true}, "sm_100a", "8.6"),
			"tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b0::discard [%r1], [%r3], %rd2, %r2, %p1;", false},
		{"kindword", kwAt(m{"kind": "mxf4nvf4", "block_scale": true, "scale_vec": "4X", "cta_group": 2, "collector_a": "use"}, "sm_100a", "8.8"),
			"tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16.collector::a::use [%r1], %rd1, %rd2, %r2, [%r5], [%r6], %p1;", true},
		{"kindword", kwAt(m{"kind": "mxf4nvf4", "block_scale": true, "scale_vec": "4X", "cta_group": 2, "collector_a": "use"}, "sm_100a", "8.8"),
			"tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block32.collector::a::use [%r1], %rd1, %rd2, %r2, [%r5], [%r6], %p1;", false},
		{"blockscale", bsAt(m{"kind": "mxf4nvf4", "k": 64, "a_type": "e2m1", "b_type": "e2m1", "sf_type": "ue4m3", "scale_vector_size": 16, "scale_fragment_bits": 32}, "sm_120a", "8.7"),
			"mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 \n\t\t{%r5, %r6, %r7, %r8},", true},
		{"blockscale", bsAt(m{"kind": "mxf4nvf4", "k": 64, "a_type": "e2m1", "b_type": "e2m1", "sf_type": "ue4m3", "scale_vector_size": 16, "scale_fragment_bits": 32}, "sm_120a", "8.7"),
			"mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue4m3 \n\t\t{%r5, %r6, %r7, %r8},", false},
	} {
		c := caseFrom(t, tc.domain, tc.value)
		err := checkEmitted(c, "\t"+tc.ptx+"\n")
		if (err == nil) != tc.ok {
			t.Errorf("%s %v on %q: got %v, want ok=%t", tc.domain, tc.value, tc.ptx, err, tc.ok)
		}
	}
}

// TestSingleCannotSelect checks how a failed llc run alone in its batch
// reads: "Cannot select" then an abort is llc refusing the case; an abort
// after any other fatal error, or a segfault, is a crash.
func TestSingleCannotSelect(t *testing.T) {
	sel := "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.cp.async.bulk.tensor.g2s.im2col.w.3d\nPLEASE submit a bug report\n"
	for _, tc := range []struct {
		name string
		r    tool.Result
		want outcome
	}{
		{"cannot select, aborted", tool.Result{Stderr: []byte(sel), ExitCode: -1, Signal: "aborted"}, failed},
		{"cannot select, 134 through a shell", tool.Result{Stderr: []byte(sel), ExitCode: 134}, failed},
		{"cannot select, segfault", tool.Result{Stderr: []byte(sel), ExitCode: -1, Signal: "segmentation fault"}, crashed},
		{"other fatal error, aborted", tool.Result{Stderr: []byte("LLVM ERROR: out of memory\n"), ExitCode: -1, Signal: "aborted"}, crashed},
	} {
		got := single("llc", "llc-22", tc.r, time.Second)
		if got.outcome != tc.want {
			t.Errorf("%s: got outcome %v (%q), want %v", tc.name, got.outcome, got.diag, tc.want)
		}
		if tc.want == failed && got.diag != "llc: LLVM ERROR: Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.im2col.w.3d" {
			t.Errorf("%s: diag %q", tc.name, got.diag)
		}
	}
}
