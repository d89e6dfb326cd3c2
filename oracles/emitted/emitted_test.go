package emitted

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The golden files are llc's PTX for cases MLIR 19, 22 and trunk lowered
// (mlir-opt with the mlir oracle's pipeline, mlir-translate, llc), kept as
// the tools printed them.
var golden = []struct {
	file, op string
	want     []string
	rels     []string // nil: 19, 22, trunk
}{
	// nvgpu.warpgroup.mma 128x16x64 f16: two M blocks of four K steps.
	// MLIR advances A by 2 (32 bytes) per K step and 512 (8192 bytes) per
	// M block, B by 128 (2048 bytes) per K step.
	{"wgmma-m128n16k64-%s.ptx", "wgmma.mma_async", wgmmaSteps(
		[][2]string{{"param0", "param1"}, {"param0+2", "param1+128"}, {"param0+4", "param1+256"}, {"param0+6", "param1+384"},
			{"param0+512", "param1"}, {"param0+514", "param1+128"}, {"param0+516", "param1+256"}, {"param0+518", "param1+384"}}, "0"), nil},
	// 128x16x32 with transposeB, as MLIR computes it: B's K step is
	// K*16*2 = 1024 bytes (64), A's M step K*K*2 = 2048 bytes (128).
	{"wgmma-m128n16k32-transb-%s.ptx", "wgmma.mma_async", wgmmaSteps(
		[][2]string{{"param0", "param1"}, {"param0+2", "param1+64"}, {"param0+128", "param1"}, {"param0+130", "param1+64"}}, "1"), nil},
	// A 3D im2col TMA load with a CTA mask (nvvm.cp.async.bulk.tensor):
	// every operand a kernel parameter (tmap, dst, mbar, x0..x6, off0..off4,
	// cta_mask), coordinates in order. From 22 on the mode moved before
	// .mbarrier.
	{"tma-load-im2col-3d-%s.ptx", "cp.async.bulk.tensor", nil, nil},
	// nvgpu.tma.async.load of a 2D box at coordinates x0, x1, through the
	// tensor map at 4096 into shared memory at 1024; the mbarrier is a
	// shared symbol, which the evaluator does not know.
	{"tmadesc-2d-%s.ptx", "cp.async.bulk.tensor", []string{
		"cp.async.bulk.tensor.2d.shared::cluster.global.%smbarrier::complete_tx::bytes [1024], [4096, {param0, param1}], [?]"}, nil},
	// A block-scaled tcgen05.mma (MLIR 22 and trunk; 19 has none): every
	// operand a parameter, enable-input-d an i1 one llc reads as a byte,
	// masks to its low bit and compares with 0.
	{"tcgen05-mxf8f6f4-%s.ptx", "tcgen05.mma", []string{"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::discard " +
		"[param0], param1, param2, param3, [param5], [param6], param4"}, []string{"22", "trunk"}},
}

// goldenWant is a golden file's expectation for a release: "%s" in it
// is "tile." from 22 on (19 leaves the mode out).
func goldenWant(file, rel string, want []string) []string {
	if strings.HasPrefix(file, "tma-load-im2col-3d") {
		operands := " [param1], [param0, {param3, param4, param5}], [param2], {param10}, param15"
		if rel == "19" {
			return []string{"cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.im2col.multicast::cluster" + operands}
		}
		return []string{"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster" + operands}
	}
	tile := "tile."
	if rel == "19" {
		tile = ""
	}
	out := make([]string, len(want))
	for i, w := range want {
		out[i] = strings.Replace(w, "%s", tile, 1)
	}
	return out
}

func wgmmaSteps(steps [][2]string, transB string) []string {
	var out []string
	for _, s := range steps {
		out = append(out, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {...}, "+s[0]+", "+s[1]+", 1, 1, 1, 0, "+transB)
	}
	return out
}

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func canonical(ptx, op string) []string {
	var out []string
	for _, e := range Entries(ptx) {
		for _, in := range Eval(e) {
			if in.Is(op) {
				out = append(out, in.Canonical())
			}
		}
	}
	return out
}

func TestEvalGolden(t *testing.T) {
	for _, g := range golden {
		rels := g.rels
		if rels == nil {
			rels = []string{"19", "22", "trunk"}
		}
		for _, rel := range rels {
			name := strings.Replace(g.file, "%s", rel, 1)
			got, want := canonical(readGolden(t, name), g.op), goldenWant(g.file, rel, g.want)
			if !slices.Equal(got, want) {
				t.Errorf("%s:\n got %q\nwant %q", name, got, want)
			}
		}
	}
}

// TestAwkAgrees runs the reproducers' evaluator on every golden file: it
// must print what Eval does.
func TestAwkAgrees(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk on PATH: reproducers could not run either")
	}
	files, _ := filepath.Glob("testdata/*.ptx")
	for _, f := range files {
		op := "wgmma.mma_async"
		switch base := filepath.Base(f); {
		case strings.HasPrefix(base, "cpasync"):
			op = "cp.async"
		case strings.HasPrefix(base, "tma"):
			op = "cp.async.bulk.tensor"
		case strings.HasPrefix(base, "tcgen05"):
			op = "tcgen05.mma"
		}
		out, err := exec.Command(awk, "-v", "op="+op, Awk, f).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: awk: %v\n%s", f, err, out)
		}
		b, _ := os.ReadFile(f)
		want := strings.Join(canonical(string(b), op), "\n") + "\n"
		if string(out) != want {
			t.Errorf("%s: awk printed\n%s\nEval\n%s", f, out, want)
		}
	}
}

func TestEvalArithmetic(t *testing.T) {
	entry := `
	ld.param.b64 	%rd1, [k_param_1];
	mov.b64 	%rd2, 96;
	shl.b64 	%rd3, %rd2, 4;
	add.s64 	%rd4, %rd1, %rd3;
	sub.s64 	%rd5, %rd4, 16;
	add.s64 	%rd6, %rd4, %rd1;
	mov.b32 	%r1, -1;
	cvt.u16.u32 	%rs1, %r1;
	mov.s32 	%r2, -1;
	@%p1 add.s64 	%rd4, %rd4, 1;
	foo.b64 	%rd7, %rd4;
	bar.sync 	0;
	mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32
		{%r11, %r12, %r13, %r14},
		{%r5, %r6, %r7, %r8},
		{%r9, %r10},
		{%r3, %r4, %r1, %r2};
	mov.b32 	%r3, %r2;
	cp.async.ca.shared.global [%rd2], [%rd5+8], 16;
	cvta.to.global.u64 	%rd8, %rd5;
	cp.async.cg.shared.global [%rd3], [%rd8], 16;
`
	var got []string
	ins := Eval(entry)
	if mma := ins[len(ins)-5]; mma.Canonical() != "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {...}, {...}, {...}, {...}" || mma.Line != 14 {
		t.Errorf("a statement over five lines: line %d %q", mma.Line, mma.Canonical())
	}
	if cp := ins[len(ins)-3]; cp.Canonical() != "cp.async.ca.shared.global [96], [param1+1528], 16" {
		t.Errorf("addresses: %q", cp.Canonical())
	}
	if cp := ins[len(ins)-1]; cp.Canonical() != "cp.async.cg.shared.global [1536], [param1+1520], 16" {
		t.Errorf("cvta.to.global: %q", cp.Canonical())
	}
	for _, in := range ins {
		if len(in.Values) > 0 && isRegister(in.Args[0]) {
			got = append(got, in.Args[0]+"="+regsAfter(entry, in.Line, in.Args[0]))
		}
	}
	want := []string{"%rd1=param1", "%rd2=96", "%rd3=1536", "%rd4=param1+1536", "%rd5=param1+1520", "%rd6=?",
		"%r1=4294967295", "%rs1=65535", "%r2=-1", "%rd4=?", "%rd7=?", "%r3=4294967295", "%rd8=param1+1520"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// regsAfter is the value of reg right after the instruction on line n, as
// the next instruction would read it.
func regsAfter(entry string, n int, reg string) string {
	lines := strings.Split(entry, "\n")
	probe := strings.Join(lines[:n], "\n") + "\nprobe " + reg + ";\n"
	ins := Eval(probe)
	return ins[len(ins)-1].Values[0].String()
}

// TestHostCallGolden reads the tensor-map encode call MLIR 19, 22 and
// trunk lower nvgpu.tma.create.descriptor to (f16, box 64x32 innermost
// first, swizzle 128B, L2 promotion 128B, NaN fill): the enums as
// constants and the box dimensions stored outermost first.
func TestHostCallGolden(t *testing.T) {
	for _, rel := range []string{"19", "22", "trunk"} {
		c, ok := HostCall(readGolden(t, "tmadesc-host-"+rel+".mlir"), "mgpuTensorMapEncodeTiledMemref")
		if !ok {
			t.Fatalf("%s: no call", rel)
		}
		if got, want := c.String(), "mgpuTensorMapEncodeTiledMemref(?, ?, 6, 0, 3, 2, 1, [32, 64])"; got != want {
			t.Errorf("%s: got %s, want %s", rel, got, want)
		}
		if !strings.Contains(c.Line, "llvm.call @mgpuTensorMapEncodeTiledMemref(") {
			t.Errorf("%s: line %q", rel, c.Line)
		}
	}
	if awk, err := exec.LookPath("awk"); err == nil {
		for _, rel := range []string{"19", "22", "trunk"} {
			out, err := exec.Command(awk, "-v", "callee=mgpuTensorMapEncodeTiledMemref", Awk, filepath.Join("testdata", "tmadesc-host-"+rel+".mlir")).CombinedOutput()
			if want := "mgpuTensorMapEncodeTiledMemref(?, ?, 6, 0, 3, 2, 1, [32, 64])\n"; err != nil || string(out) != want {
				t.Errorf("%s: awk printed %q (%v), want %q", rel, out, err, want)
			}
		}
	}
	if _, ok := HostCall("llvm.call @other(%1) : (i64) -> ()", "mgpuTensorMapEncodeTiledMemref"); ok {
		t.Error("found a call of another function")
	}
}

func TestHostCallArithmetic(t *testing.T) {
	text := `
    %0 = llvm.mlir.constant(7 : i32) : i64
    %c = arith.constant 9 : index
    %1 = llvm.alloca %0 x i64 : (i64) -> !llvm.ptr
    %2 = llvm.getelementptr %1[2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %3 = llvm.getelementptr %1[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %0, %1 : i64, !llvm.ptr
    llvm.store %c, %3 : i64, !llvm.ptr
    llvm.store %0, %2 : i64, !llvm.ptr
    llvm.store %c, %2 : i64, !llvm.ptr
    %4 = llvm.call @f(%c, %x, %3, %1) : (i64, i64, !llvm.ptr, !llvm.ptr) -> !llvm.ptr`
	c, ok := HostCall(text, "f")
	if !ok || c.String() != "f(9, ?, [9, 9], [7, 9, 9])" {
		t.Errorf("got %v %s", ok, c.String())
	}
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk on PATH")
	}
	f := filepath.Join(t.TempDir(), "host.mlir")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(awk, "-v", "callee=f", Awk, f).CombinedOutput()
	if err != nil || string(out) != c.String()+"\n" {
		t.Errorf("awk printed %q (%v), HostCall %q", out, err, c.String())
	}
}
