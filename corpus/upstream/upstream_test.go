package upstream

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// checkout is a tree in an llvm-project checkout's layout holding test
// files written for these tests, in the style of the upstream ones.
const checkout = "testdata/checkout"

// want is a form expected to be read: where it is and its value, as the
// domain's strict JSON form.
type want struct {
	at, domain, json string
}

// wantCase parses a want's value.
func wantCase(t *testing.T, w want) domain.Case {
	t.Helper()
	d, ok := fuzz.Lookup(w.domain)
	if !ok {
		t.Fatalf("unknown domain %q", w.domain)
	}
	v, err := d.ParseJSON([]byte(w.json))
	if err != nil {
		t.Fatalf("%s: %v", w.at, err)
	}
	return domain.NewCase(d.Name, v)
}

// checkRead checks that the import read exactly the wanted forms under
// dir, each as its value.
func checkRead(t *testing.T, r Result, dir string, wants []want) {
	t.Helper()
	got := map[string]domain.Case{}
	for i, c := range r.Cases {
		if rel, err := filepath.Rel(filepath.Join(checkout, dir), r.Paths[i]); err == nil && !strings.HasPrefix(rel, "..") {
			got[rel] = c
		}
	}
	for _, w := range wants {
		c, ok := got[w.at]
		if !ok {
			t.Errorf("%s: not read", w.at)
			continue
		}
		delete(got, w.at)
		if exp := wantCase(t, w); c.ID != exp.ID {
			t.Errorf("%s: read %s %s, want %s", w.at, c.Domain, jsonOf(c.Value), jsonOf(exp.Value))
		}
	}
	for at, c := range got {
		t.Errorf("%s: read unexpectedly as %s %s", at, c.Domain, jsonOf(c.Value))
	}
}

func jsonOf(v domain.Value) string {
	b, err := v.(interface{ MarshalJSON() ([]byte, error) }).MarshalJSON()
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestImportLLVMCalls reads the NVPTX intrinsic calls of each domain the
// llc oracle renders (mma, ldsm, cpasync, tmamode, kindword, blockscale)
// at the RUN line's target.
func TestImportLLVMCalls(t *testing.T) {
	const sm90, sm100, sm120 = `"target":"sm_90a","ptx":"8.0"`, `"target":"sm_100a","ptx":"8.6"`, `"target":"sm_120a","ptx":"8.7"`
	checkRead(t, Import(checkout), "llvm/test/CodeGen/NVPTX", []want{
		{"tensorcore.ll:7", "mma", `{"shape":[16,8,16],"a_type":"f16","c_type":"f32","d_type":"f32",` + sm90 + `}`},
		{"tensorcore.ll:12", "mma", `{"shape":[16,8,16],"a_type":"s8","b_type":"u8","satfinite":true,` + sm90 + `}`},
		{"tensorcore.ll:17", "mma", `{"sparsity":"sp::ordered_metadata","shape":[16,8,16],"a_type":"f16","c_type":"f16","d_type":"f16","selector":1,` + sm90 + `}`},
		{"tensorcore.ll:27", "ldsm", `{"op":"ldmatrix","shape":"m8n8","num_matrices":1,"transpose":false,"size":"b16",` + sm90 + `}`},
		{"tensorcore.ll:28", "ldsm", `{"op":"stmatrix","shape":"m8n8","num_matrices":4,"transpose":true,"size":"b16",` + sm90 + `}`},
		{"tensorcore.ll:33", "cpasync", `{"cache":"ca","cp_size":8,` + sm90 + `}`},
		{"tensorcore.ll:34", "cpasync", `{"cache":"cg","cp_size":16,"src_size":16,` + sm90 + `}`},
		{"tensorcore.ll:35", "cpasync", `{"elem":"i8","cache":"ca","cp_size":4,"src_size":2,` + sm90 + `}`},
		{"tma.ll:5", "tmamode", `{"direction":"load","mode":"tile","rank":2,"multicast":true,"cta_group":2,` + sm100 + `}`},
		{"tma.ll:6", "tmamode", `{"direction":"load","mode":"im2col::w","rank":3,"cache_hint":true,"w_halo":8,"w_offset":4,` + sm100 + `}`},
		{"tma.ll:7", "tmamode", `{"direction":"store","mode":"tile::scatter4","rank":2,` + sm100 + `}`},
		{"tma.ll:8", "tmamode", `{"direction":"prefetch","mode":"tile","rank":3,"cache_hint":true,` + sm100 + `}`},
		{"tma.ll:25", "tmamode", `{"direction":"load","mode":"tile","rank":1,"cache_hint":true,` + sm100 + `}`},
		{"tma.ll:14", "kindword", `{"kind":"tf32","cta_group":2,"collector_a":"use",` + sm100 + `}`},
		{"tma.ll:15", "kindword", `{"kind":"f16","a_tmem":true,"ashift":true,"scale_input_d":5,` + sm100 + `}`},
		{"tma.ll:17", "kindword", `{"kind":"i8","ws":true,` + sm100 + `}`},
		{"blockscale.ll:5", "blockscale", `{"k":32,"kind":"mxf8f6f4","a_type":"e4m3","b_type":"e5m2","sf_type":"ue8m0",` + sm120 + `}`},
	})
}

// TestImportMLIROps reads the nvgpu and nvvm ops of each domain the mlir
// oracles spell with them (mma, ldsm, cpasync, wgmma, tmamode), custom
// forms over several lines included, at the domain's default target.
func TestImportMLIROps(t *testing.T) {
	r := Import(checkout)
	checkRead(t, r, "mlir/test/Dialect/NVGPU", []want{
		{"ops.mlir:7", "mma", `{"shape":[16,8,16],"a_type":"f16","c_type":"f32","d_type":"f32"}`},
		{"ops.mlir:13", "mma", `{"sparsity":"sp","shape":[16,8,64],"a_type":"s8","selector":1,"satfinite":true}`},
		{"ops.mlir:19", "mma", `{"shape":[16,8,8],"a_type":"tf32"}`},
		{"ops.mlir:29", "ldsm", `{"op":"ldmatrix","shape":"m8n8","num_matrices":4,"transpose":true,"size":"b16","result_rank":1,"result_dim0":8}`},
		{"ops.mlir:36", "cpasync", `{"elem":"f32","dst_elements":4,"src_elements":4,"cache":"cg"}`},
	})
	checkRead(t, r, "mlir/test/Dialect/LLVMIR", []want{
		{"nvvm-ops.mlir:6", "mma", `{"shape":[16,8,8],"a_type":"f16","c_type":"f32","d_type":"f32"}`},
		{"nvvm-ops.mlir:13", "mma", `{"shape":[8,8,16],"a_type":"s8","b_type":"u8","satfinite":true}`},
		{"nvvm-ops.mlir:23", "ldsm", `{"op":"ldmatrix","shape":"m8n8","num_matrices":2,"transpose":true,"size":"b16"}`},
		{"nvvm-ops.mlir:24", "ldsm", `{"op":"stmatrix","shape":"m8n8","num_matrices":2,"transpose":false,"size":"b16"}`},
		{"nvvm-ops.mlir:29", "cpasync", `{"cache":"cg","cp_size":16}`},
		{"nvvm-ops.mlir:36", "wgmma", `{"m":64,"n":8,"k":16,"a_type":"bf16","d_type":"f32","scale_d":false,"scale_a":-1,"trans_a":true}`},
		{"nvvm-ops.mlir:46", "tmamode", `{"direction":"load","mode":"im2col","rank":3}`},
	})
	checkRead(t, r, "mlir/test/Conversion/NVGPUToNVVM", []want{
		{"wgmma.mlir:6", "wgmma", `{"m":128,"n":128,"k":64,"a_type":"f16","d_type":"f32","trans_b":true}`},
		{"wgmma.mlir:16", "tmamode", `{"direction":"load","mode":"tile","rank":3,"multicast":true}`},
	})
}

// TestImportCountsWhatItCannotRead counts every form not read under its
// domain and reason, and forms of no domain by family: a renderer that
// has no spelling for a value read, a type the domain lacks, a name part
// or an op the importer does not read.
func TestImportCountsWhatItCannotRead(t *testing.T) {
	r := Import(checkout)
	want := map[string]map[string]int{
		NoDomain: {"llvm.nvvm.cp.async": 1, "llvm.nvvm.tcgen05.commit": 1, "nvgpu.device_async_create_group": 1,
			"nvgpu.device_async_wait": 1, "nvgpu.mbarrier.arrive": 1, "nvvm.barrier0": 1, "nvvm.cp.async.commit.group": 1},
		"kindword": {"name: unknown part .disable_output_lane.cg1": 1, "no llc spelling: scale_vec=before-ptx-8.8": 1,
			"nvvm.tcgen05.mma not read by the importer": 1},
		"mma": {"not-in-domain: a_type=e3m2": 1, "nvgpu.mma.sync: element type f8E4M3FNUZ": 1,
			"nvvm.mma.sync: multiplicand type not written and i32 registers name none": 1},
		"tmamode": {"name: tensor reduction (no domain field)": 1},
	}
	if !maps.EqualFunc(r.Unread, want, maps.Equal) {
		t.Errorf("not read:\n got %v\nwant %v", r.Unread, want)
	}
	read := map[string]int{"blockscale": 1, "cpasync": 6, "kindword": 3, "ldsm": 5, "mma": 8, "tmamode": 7, "wgmma": 2}
	if !maps.Equal(r.Read, read) {
		t.Errorf("read %v, want %v", r.Read, read)
	}
	// One form repeats a case: tensorcore.ll's second cp.async.ca 8.
	if r.Duplicates != 1 || len(r.Cases) != 31 {
		t.Errorf("%d cases, %d forms repeating one; want 31 and 1", len(r.Cases), r.Duplicates)
	}
}

// TestImportBadFileLosesNothingElse: a file that is not text is one
// problem naming it, and every other file's forms are still read.
func TestImportBadFileLosesNothingElse(t *testing.T) {
	r := Import(checkout)
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Error(), "binary.mlir: not a test file") {
		t.Fatalf("problems %v, want one naming binary.mlir", r.Problems)
	}
	if r.Files != 6 {
		t.Errorf("%d files read, want 6 (the .txt next to them is no test)", r.Files)
	}
}

// TestImportMalformedCall: a call whose operand list never closes is
// counted as malformed under its domain, and the calls after it are read.
func TestImportMalformedCall(t *testing.T) {
	fs := forms("x.ll", "; RUN: llc -mcpu=sm_80\n  call void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3) %d,\n"+
		"  call void @llvm.nvvm.cp.async.ca.shared.global.16(ptr addrspace(3) %d, ptr addrspace(1) %s)\n")
	if len(fs) != 2 {
		t.Fatalf("%d forms, want 2", len(fs))
	}
	if rd := readLLVM(fs[0]); rd.domain != "cpasync" || rd.reason != "malformed: call operands never close" {
		t.Errorf("first call: %+v", rd)
	}
	if rd := readLLVM(fs[1]); rd.reason != "" || rd.fields["cp_size"] != int64(16) {
		t.Errorf("second call: %+v", rd)
	}
	fs = forms("x.mlir", "%0 = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16] :\n%1 = nvgpu.ldmatrix %s[%i, %i] {numTiles = 1 : i32, transpose = false} : memref<8x8xf16, 3> -> vector<1x2xf16>\n")
	if len(fs) != 2 || !strings.HasPrefix(fs[1].text, "nvgpu.ldmatrix") {
		t.Fatalf("an op that never closes took the next: %+v", fs)
	}
	if rd := readMLIR(fs[0]); rd.domain != "mma" || rd.reason == "" {
		t.Errorf("unclosed op: %+v", rd)
	}
}

// TestImportNVVMTMAModeKeywords reads the mode and cta group of the nvvm
// tensor copies whether written as MLIR 22's attributes or as the later
// custom form's keywords, and reads gather4 as the 2D copy it is (one row
// and four columns: five coordinates).
func TestImportNVVMTMAModeKeywords(t *testing.T) {
	const text = `
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x0, %x1] multicast_mask = %m  mode = tile group = cta_2 : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%r, %c0, %c1, %c2, %c3] l2_cache_hint = %h  mode = tile_gather4 group = cta_1 : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%r, %c0, %c1, %c2, %c3] {group = #nvvm.cta_group<cta_1>, mode = #nvvm.tma_load_mode<tile_gather4>} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x0, %x1, %x2] : !llvm.ptr<7>, !llvm.ptr
`
	wants := []want{
		{"x.mlir:2", "tmamode", `{"direction":"load","mode":"tile","rank":2,"multicast":true,"cta_group":2}`},
		{"x.mlir:3", "tmamode", `{"direction":"load","mode":"tile::gather4","rank":2,"cache_hint":true,"cta_group":1}`},
		{"x.mlir:4", "tmamode", `{"direction":"load","mode":"tile::gather4","rank":2,"cta_group":1}`},
		{"x.mlir:5", "tmamode", `{"direction":"load","mode":"tile","rank":3}`},
	}
	fs := forms("x.mlir", text)
	if len(fs) != len(wants) {
		t.Fatalf("%d forms, want %d", len(fs), len(wants))
	}
	for i, w := range wants {
		rd := readMLIR(fs[i])
		if rd.reason != "" {
			t.Errorf("%s: not read: %s", w.at, rd.reason)
			continue
		}
		c, why := build(fs[i], rd)
		if why != "" {
			t.Errorf("%s: not read: %s", w.at, why)
			continue
		}
		if exp := wantCase(t, w); c.ID != exp.ID {
			t.Errorf("%s: read %s, want %s", w.at, jsonOf(c.Value), jsonOf(exp.Value))
		}
	}
}

// TestImportNVVMTMAEmptyBox: a copy with no coordinates (box[], the 0-D
// form MLIR's verifier tests refuse) is read as rank 0, not as a 1-D copy.
func TestImportNVVMTMAEmptyBox(t *testing.T) {
	fs := forms("x.mlir", "  nvvm.cp.async.bulk.tensor.prefetch %t, box[] : !llvm.ptr\n"+
		"  nvvm.cp.async.bulk.tensor.prefetch %t, box[ %x ] : !llvm.ptr\n")
	if len(fs) != 2 {
		t.Fatalf("%d forms, want 2", len(fs))
	}
	for i, rank := range []int{0, 1} {
		rd := readMLIR(fs[i])
		if rd.reason != "" || rd.fields["rank"] != rank {
			t.Errorf("%s: read %+v, want rank %d", fs[i].text, rd, rank)
		}
		if _, why := build(fs[i], rd); why != "" {
			t.Errorf("%s: not read: %s", fs[i].text, why)
		}
	}
}

// TestImportNVVMTMACTAOnly reads a load into the CTA's own shared memory
// whether written as MLIR 22's isCTAOnly or the later cta_only = true.
func TestImportNVVMTMACTAOnly(t *testing.T) {
	fs := forms("x.mlir", "  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x]  mode = tile cta_only = true : !llvm.ptr<3>, !llvm.ptr\n"+
		"  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x] {isCTAOnly} : !llvm.ptr<3>, !llvm.ptr\n"+
		"  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%x]  mode = tile cta_only = false : !llvm.ptr<7>, !llvm.ptr\n")
	if len(fs) != 3 {
		t.Fatalf("%d forms, want 3", len(fs))
	}
	for i, dst := range []string{"shared::cta", "shared::cta", "shared::cluster"} {
		if rd := readMLIR(fs[i]); rd.reason != "" || rd.fields["dst"] != dst {
			t.Errorf("%s: read %+v, want dst %s", fs[i].text, rd, dst)
		}
	}
}

// TestImportUnitAttributesAreNoForms: a discardable unit attribute in an
// attribute dictionary (nvvm.kernel, nvvm.grid_constant) is no op, and is
// not counted as a form of no domain; the ops on the same lines still are.
func TestImportUnitAttributesAreNoForms(t *testing.T) {
	fs := forms("x.mlir", "llvm.func @k(%a: !llvm.ptr {llvm.byval = i32, nvvm.grid_constant}) attributes {nvvm.kernel} {\n"+
		"func.func private @f() attributes { nvvm.kernel }\n"+
		"llvm.func @g(%a: !llvm.ptr {nvvm.grid_constant, llvm.byval = i32}) {\n"+
		"  nvvm.barrier0\n  nvvm.cluster.arrive {aligned}\n")
	var names []string
	for _, f := range fs {
		names = append(names, f.text)
	}
	if want := []string{"nvvm.barrier0", "nvvm.cluster.arrive {aligned}"}; !slices.Equal(names, want) {
		t.Errorf("forms %q, want %q", names, want)
	}
}
