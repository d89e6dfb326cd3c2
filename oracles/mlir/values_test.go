package mlir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
)

// valueCase is a golden file with a case and what the check says of it.
type valueCase struct {
	name, file, domain string
	override           m
	edit               [2]string // old, new
	rels               []string  // the releases with a file; nil: 19, 22, trunk
	want               string    // "" passes; else the mismatch
	effect             string    // the effect line, where the check gives one
}

// valueGolden are llc's PTX for cases MLIR lowered (testdata/values, one
// file per release: mlir-opt with Pipeline, mlir-translate, llc), with
// what the value check says of each; an edit turns a real output into a
// wrong one, one value changed.
var valueGolden = []valueCase{
	{name: "wgmma 128x16x64 B transposed", file: "wgmma-m128n16k64-transb", domain: "wgmma",
		override: m{"m": 128, "n": 16, "k": 64, "b_k": 64, "trans_b": true}},
	{name: "wgmma B K step off by 8", file: "wgmma-m128n16k64-transb", domain: "wgmma",
		override: m{"m": 128, "n": 16, "k": 64, "b_k": 64, "trans_b": true}, edit: [2]string{", 128;", ", 136;"},
		want: "ptx: step 2 (M block 0, K step 1): B descriptor +2176 bytes, want +2048 (MN-major B, one 128-byte swizzled row per K index)"},
	{name: "wgmma imm-trans-b dropped", file: "wgmma-m128n16k64-transb", domain: "wgmma",
		override: m{"m": 128, "n": 16, "k": 64, "b_k": 64, "trans_b": true}, edit: [2]string{"0,  1;", "0,  0;"},
		want: "ptx: wgmma imm-trans-b 0, want 1"},
	{name: "wgmma M step of a 32-wide K", file: "wgmma-m128n16k32-transb", domain: "wgmma",
		override: m{"m": 128, "n": 16, "k": 32, "b_k": 32, "trans_b": true},
		want:     "ptx: step 3 (M block 1, K step 0): A descriptor +2048 bytes, want +8192 (K-major A, one 128-byte swizzled row per M index)",
		effect:   "\neffect: the instruction reads A from M row 16, K byte 0 on, where its part of the tile starts at M row 64, K byte 0"},
	{name: "mma u8 as u8", file: "mma-m16n8k32-u8", domain: "mma",
		override: m{"shape": []int{16, 8, 32}, "a_type": "u8", "b_type": "u8", "c_type": "s32", "d_type": "s32", "satfinite": true},
		want:     "ptx: mma.sync.aligned.m16n8k32 .row.col.satfinite.s32.s8.s8.s32 where the op means .row.col.satfinite.s32.u8.u8.s32"},
	{name: "mma D type changed", file: "mma-m16n8k32-u8", domain: "mma",
		override: m{"shape": []int{16, 8, 32}, "a_type": "u8", "b_type": "u8", "c_type": "s32", "d_type": "s32", "satfinite": true},
		edit:     [2]string{"satfinite.s32.u8.u8.s32", "satfinite.f32.u8.u8.s32"},
		want:     "ptx: mma.sync.aligned.m16n8k32 .row.col.satfinite.f32.u8.u8.s32 where the op means .row.col.satfinite.s32.u8.u8.s32"},
	{name: "mma.sp with C f32 and D s32", file: "mma-sp-cd", domain: "mma", override: mmaSpCD,
		want:   "ptx: mma.sp.sync.aligned.m16n8k16 with one accumulator type where the op's C and D differ",
		effect: "\neffect: the op's D is .s32 and C .f32; the instruction is .row.col.f32.f16.f16.f32: the result's bits are read as another type"},
	{name: "cp.async with srcElements", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2}},
	{name: "cp.async src-size doubled", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2},
		edit: [2]string{", 16, 8;", ", 16, 16;"}, want: "ptx: cp.async src-size 16, want 8 (2 f32 elements)"},
	{name: "cp.async shared address moved", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2},
		edit: [2]string{"%rd3, 256;", "%rd3, 272;"}, want: "ptx: cp.async shared address 272, want 256"},
	{name: "tma load im2col", file: "tma-load-im2col-3d", domain: "tmamode", override: tmaIm2col},
	{name: "tma coordinates swapped", file: "tma-load-im2col-3d", domain: "tmamode", override: tmaIm2col,
		edit: [2]string{"{%r1, %r2, %r3}", "{%r2, %r1, %r3}"}, want: "ptx: cp.async.bulk.tensor.3d coordinate 0 x1, want x0",
		effect: "\neffect: the copy moves the box at other coordinates than the op names: other elements of the tensor"},
	{name: "tma mbarrier is the destination", file: "tma-load-im2col-3d", domain: "tmamode", override: tmaIm2col,
		edit: [2]string{"[%rd3], {%rs1}", "[%rd2], {%rs1}"}, want: "ptx: cp.async.bulk.tensor.3d mbarrier dst, want mbar"},
	{name: "tma CTA mask is the offset", file: "tma-load-im2col-3d", domain: "tmamode", override: tmaIm2col,
		edit: [2]string{"{%rs1}, %rs2;", "{%rs1}, %rs1;"}, want: "ptx: cp.async.bulk.tensor.3d CTA mask off0, want cta_mask"},
	{name: "tma im2col offset is the mask", file: "tma-load-im2col-3d", domain: "tmamode", override: tmaIm2col,
		edit: [2]string{"{%rs1}, %rs2;", "{%rs2}, %rs2;"}, want: "ptx: cp.async.bulk.tensor.3d im2col offset 0 cta_mask, want off0"},
	{name: "tma store", file: "tma-store-3d", domain: "tmamode", override: tmaStore},
	{name: "tma store source is the map", file: "tma-store-3d", domain: "tmamode", override: tmaStore,
		edit: [2]string{"}], [%rd2];", "}], [%rd1];"}, want: "ptx: cp.async.bulk.tensor.3d source tmap, want src"},
	{name: "tma prefetch im2col", file: "tma-prefetch-im2col-4d", domain: "tmamode", rels: []string{"22", "trunk"}, override: tmaPrefetch},
	{name: "tma prefetch drops a coordinate", file: "tma-prefetch-im2col-4d", domain: "tmamode", rels: []string{"22", "trunk"},
		override: tmaPrefetch, edit: [2]string{"{%r1, %r2, %r3, %r4}", "{%r1, %r2, %r3}"},
		want: "ptx: cp.async.bulk.prefetch.tensor.4d 3 coordinates, want 4"},
	{name: "tma load into shared::cta", file: "tma-load-cta-2d", domain: "tmamode", rels: []string{"22", "trunk"}, override: tmaCTA},
	{name: "tma load into the mbarrier", file: "tma-load-cta-2d", domain: "tmamode", rels: []string{"22", "trunk"}, override: tmaCTA,
		edit: [2]string{"%rd2, [k_bdfbf14aaedd40e2_param_1]", "%rd2, [k_bdfbf14aaedd40e2_param_2]"},
		want: "ptx: cp.async.bulk.tensor.2d destination mbar, want dst"},
	{name: "nvgpu tma load", file: "tmadesc-2d", domain: "tmadesc"},
	{name: "tensor-map encode call", file: "tmadesc-host", domain: "tmadesc", override: tmaEncoded},
	{name: "encode call swizzle 32B", file: "tmadesc-host", domain: "tmadesc", override: tmaEncoded,
		edit: [2]string{"%8 = llvm.mlir.constant(3 : i64)", "%8 = llvm.mlir.constant(1 : i64)"},
		want: "ptx: mgpuTensorMapEncodeTiledMemref swizzle 1, want 3"},
	{name: "encode call data type f32", file: "tmadesc-host", domain: "tmadesc", override: tmaEncoded,
		edit: [2]string{"%9 = llvm.mlir.constant(6 : i64)", "%9 = llvm.mlir.constant(7 : i64)"},
		want: "ptx: mgpuTensorMapEncodeTiledMemref data type 7, want 6"},
	{name: "encode call box transposed", file: "tmadesc-host", domain: "tmadesc", override: tmaEncoded,
		edit: [2]string{"llvm.store %6, %23", "llvm.store %10, %23"},
		want: "ptx: mgpuTensorMapEncodeTiledMemref box[0] 64, want 32 (box dimension 1)", effect: "\neffect: the copy moves a box of another shape than the op's: its elements land elsewhere in the shared buffer, or past it"},
	{name: "encode call of an FP8 tensor", file: "tmadesc-u8-f8", domain: "tmadesc", override: tmaU8AsF8,
		want:   "ptx: mgpuTensorMapEncodeTiledMemref data type 9, want 0",
		effect: "\neffect: data type bfloat16, not uint8: the map reads elements of another type or size than the tensor's: every element past the first lands elsewhere, or is converted"},
	{name: "nvgpu tma load, coordinates swapped", file: "tmadesc-2d", domain: "tmadesc",
		edit: [2]string{"{%r1, %r2}", "{%r2, %r1}"}, want: "ptx: cp.async.bulk.tensor.2d coordinate 0 x1, want x0"},
	{name: "nvgpu tma load, tensor map moved", file: "tmadesc-2d", domain: "tmadesc",
		edit: [2]string{"%rd4, 4096;", "%rd4, 4160;"}, want: "ptx: cp.async.bulk.tensor.2d tensor map 4160, want 4096"},
	{name: "nvgpu tma load, box moved", file: "tmadesc-2d", domain: "tmadesc",
		edit: [2]string{"%rd1, 1024;", "%rd1, 1088;"}, want: "ptx: cp.async.bulk.tensor.2d destination 1088, want 1024"},
	{name: "tcgen05.mma f16 scale-input-d", file: "tcgen05-f16-scaled", domain: "kindword", rels: []string{"22", "trunk"}, override: tcScaled},
	{name: "tcgen05.mma A and B swapped", file: "tcgen05-f16-scaled", domain: "kindword", rels: []string{"22", "trunk"}, override: tcScaled,
		edit: [2]string{"[%r1], %rd1, %rd2, %r2", "[%r1], %rd2, %rd1, %r2"}, want: "ptx: tcgen05.mma A bdesc, want adesc"},
	{name: "tcgen05.mma scale-input-d 2", file: "tcgen05-f16-scaled", domain: "kindword", rels: []string{"22", "trunk"}, override: tcScaled,
		edit: [2]string{"%p1, 3;", "%p1, 2;"}, want: "ptx: tcgen05.mma scale-input-d 2, want 3"},
	{name: "tcgen05.mma enable-input-d from D", file: "tcgen05-f16-scaled", domain: "kindword", rels: []string{"22", "trunk"}, override: tcScaled,
		edit: [2]string{"%r2, %p1, 3;", "%r2, %r1, 3;"}, want: "ptx: tcgen05.mma enable-input-d d, want enable_d"},
	{name: "tcgen05.mma.sp A in tensor memory", file: "tcgen05-sp-tmem", domain: "kindword", rels: []string{"22", "trunk"}, override: tcSparse},
	{name: "tcgen05.mma.sp metadata and idesc swapped", file: "tcgen05-sp-tmem", domain: "kindword", rels: []string{"22", "trunk"}, override: tcSparse,
		edit: [2]string{"[%r4], %r3, %p1", "[%r3], %r4, %p1"}, want: "ptx: tcgen05.mma.sp sparsity metadata idesc, want spmeta"},
	{name: "tcgen05.mma block_scale", file: "tcgen05-mxf8f6f4", domain: "kindword", rels: []string{"22", "trunk"}, override: tcBlockScale},
	{name: "tcgen05.mma scale factors swapped", file: "tcgen05-mxf8f6f4", domain: "kindword", rels: []string{"22", "trunk"}, override: tcBlockScale,
		edit: [2]string{"[%r3], [%r4]", "[%r4], [%r3]"}, want: "ptx: tcgen05.mma A scale scale_b, want scale_a"},
}

// The tcgen05.mma of the golden files (sm_100a: MLIR's chain stops at llc,
// which ptxas 12.4 cannot assemble for).
var (
	tcScaled     = m{"kind": "f16", "cta_group": 1, "scale_input_d": 3, "target": "sm_100a"}
	tcSparse     = m{"kind": "f8f6f4", "cta_group": 2, "sparse": true, "a_tmem": true, "target": "sm_100a"}
	tcBlockScale = m{"kind": "mxf8f6f4", "block_scale": true, "cta_group": 1, "target": "sm_100a"}
)

// The TMA copies of the golden files.
var (
	tmaIm2col   = m{"direction": "load", "mode": "im2col", "rank": 3, "multicast": true}
	tmaStore    = m{"direction": "store", "mode": "tile", "rank": 3, "dst": "global"}
	tmaPrefetch = m{"direction": "prefetch", "mode": "im2col", "rank": 4, "dst": "L2"}
	tmaEncoded  = m{"box_dim": []int{64, 32}, "swizzle": "128B", "l2_promotion": "128B", "oob_fill": "nan_request_zero_fma"}
	tmaCTA      = m{"direction": "load", "mode": "tile", "rank": 2, "dst": "shared::cta", "target": "sm_90a", "ptx": "8.6"}
)

// majors are the LLVM major releases the golden files' tools are: trunk
// spells as the newest.
var majors = map[string]int{"19": 19, "22": 22, "trunk": 24}

// valueAnswers says, per golden case and release, whether the release's
// real output passes: MLIR 19 and 22 lower u8 mma operands to .s8, trunk
// to .u8; every release encodes an FP8 tensor's map as BFLOAT16 and types
// a sparse mma's D as its C; an edit
// applies to trunk's output only.
func valueAnswer(name, rel string) (wantPass bool, applies bool) {
	switch name {
	case "mma u8 as u8":
		return rel == "trunk", true
	case "wgmma M step of a 32-wide K", "encode call of an FP8 tensor", "mma.sp with C f32 and D s32":
		return false, true
	}
	for _, g := range valueGolden {
		if g.name == name && g.edit[0] != "" {
			return false, rel == "trunk"
		}
	}
	return true, true
}

func TestValueChecksOnRealOutput(t *testing.T) {
	for _, g := range valueGolden {
		rels := g.rels
		if rels == nil {
			rels = []string{"19", "22", "trunk"}
		}
		for _, rel := range rels {
			pass, applies := valueAnswer(g.name, rel)
			if !applies {
				continue
			}
			t.Run(g.name+"/"+rel, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join("testdata", "values", g.file+"-"+rel+".ptx"))
				if err != nil {
					t.Fatal(err)
				}
				ptx, host := string(b), ""
				if b, err := os.ReadFile(filepath.Join("testdata", "values", g.file+"-"+rel+".mlir")); err == nil {
					// mlir-opt's output: the host part is what lower keeps.
					host, _, _ = strings.Cut(string(b), "\n  gpu.module @")
				}
				if g.edit[0] != "" {
					switch {
					case strings.Contains(host, g.edit[0]):
						host = strings.Replace(host, g.edit[0], g.edit[1], 1)
					case strings.Contains(ptx, g.edit[0]):
						ptx = strings.Replace(ptx, g.edit[0], g.edit[1], 1)
					default:
						t.Fatalf("edit %q: not in the output", g.edit[0])
					}
				}
				c := caseFrom(t, g.domain, g.override)
				sp := render.Of(majors[rel])
				_, k, err := sp.Render(c)
				if err != nil {
					t.Fatal(err)
				}
				entry, ok := emitted.Entries(ptx)[render.KernelName(c)]
				if !ok {
					t.Fatalf("no entry %s: the case renders otherwise than when the file was made", render.KernelName(c))
				}
				err = checkValues(c, k.Params, host, entry)
				if pass {
					if err != nil {
						t.Fatalf("want no mismatch, got %v", err)
					}
					return
				}
				var f *faultError
				if !errors.As(err, &f) || f.stage != (oracles.Stage{Name: stagePTX, Fault: oracles.WrongValue}) {
					t.Fatalf("want a ptx/value fault, got %v", err)
				}
				if first := strings.SplitN(f.msg, "\n", 2)[0]; first != g.want {
					t.Errorf("got  %q\nwant %q", first, g.want)
				}
				if g.effect != "" && !strings.HasSuffix(f.msg, g.effect) {
					t.Errorf("no effect line %q in %q", g.effect, f.msg)
				}
				if !strings.Contains(f.msg, "\nemitted: ") {
					t.Errorf("the fault does not name the emitted instruction: %q", f.msg)
				}
			})
		}
	}
}

// BenchmarkCheckEmitted is the cost of the emitted-code checks (counts and
// values) per case, over every golden file a case passes on (wgmma tiles
// of up to eight instructions, mma, cp.async, TMA copies, the tensor-map
// encode call, tcgen05.mma; 19, 22 and trunk): what the checks add to the
// chain's time per case, which BenchmarkJudge1000's lower/batch measures
// in the same run:
//
//	go test ./oracles/mlir -run '^$' -bench 'CheckEmitted|Judge1000/lower/batch' -benchtime 3x
func BenchmarkCheckEmitted(b *testing.B) {
	type input struct {
		c                   domain.Case
		params, host, entry string
	}
	var ins []input
	for _, g := range valueGolden {
		rels := g.rels
		if rels == nil {
			rels = []string{"19", "22", "trunk"}
		}
		for _, rel := range rels {
			if pass, _ := valueAnswer(g.name, rel); !pass || g.edit[0] != "" {
				continue
			}
			c := caseFrom(&testing.T{}, g.domain, g.override)
			sp := render.Of(majors[rel])
			_, k, err := sp.Render(c)
			raw, rerr := os.ReadFile(filepath.Join("testdata", "values", g.file+"-"+rel+".ptx"))
			if err != nil || rerr != nil {
				b.Fatal(err, rerr)
			}
			host := ""
			if h, err := os.ReadFile(filepath.Join("testdata", "values", g.file+"-"+rel+".mlir")); err == nil {
				host, _, _ = strings.Cut(string(h), "\n  gpu.module @")
			}
			ins = append(ins, input{c, k.Params, host, emitted.Entries(string(raw))[render.KernelName(c)]})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range ins {
			if err := errors.Join(checkEmitted(in.c, in.entry), checkValues(in.c, in.params, in.host, in.entry)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ins)), "ns/case")
}

// tmaU8AsF8 is a UINT8 tensor map whose tensor MLIR holds as f8E5M2
// (spelledAs picks it for this value): what FP8 kernels copy with TMA.
var tmaU8AsF8 = m{"dtype": "uint8", "box_dim": []int{16, 32}, "swizzle": "none"}

// mmaSpCD is a sparse f16 mma whose C is f32 and D s32 (spec/ptxisa
// rejects it, nvgpu.mma.sp.sync verifies it).
var mmaSpCD = m{"sparsity": "sp", "shape": []int{16, 8, 16}, "a_type": "f16", "b_type": "f16", "c_type": "f32", "d_type": "s32",
	"satfinite": false, "target": "sm_90", "ptx": "8.5"}
