package llvm

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	tm "github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/values/*.ptx with the installed llc's output")

// llcValueGolden are llc's PTX for one kernel each (testdata/values, one
// file per release: the kernel this package renders, compiled by that
// release's llc), with what the value checks (package valuecheck, shared
// with the mlir oracle) say of each; an edit turns a real output into a
// wrong one, one value changed. Edits apply to trunk's output.
var llcValueGolden = []struct {
	name, file string
	c          domain.Case
	rels       []string
	edit       [2]string
	want       string // "" passes; else the mismatch's first line
}{
	{name: "mma u8", file: "mma-m16n8k32-u8", c: mmaU8, rels: []string{"19", "22", "trunk"}},
	{name: "mma u8 read as s8", file: "mma-m16n8k32-u8", c: mmaU8, rels: []string{"trunk"},
		edit: [2]string{".u8.u8.s32", ".s8.s8.s32"},
		want: "ptx: mma.sync.aligned.m16n8k32 .row.col.satfinite.s32.s8.s8.s32 where the op means .row.col.satfinite.s32.u8.u8.s32"},
	{name: "mma b1 xor.popc", file: "mma-m16n8k256-b1-xor", c: mmaB1, rels: []string{"19", "22", "trunk"}},
	{name: "mma b1 and for xor", file: "mma-m16n8k256-b1-xor", c: mmaB1, rels: []string{"trunk"},
		edit: [2]string{".xor.popc", ".and.popc"},
		want: "ptx: mma.sync.aligned.m16n8k256 .row.col.s32.b1.b1.s32.and.popc where the op means .row.col.s32.b1.b1.s32.xor.popc"},
	{name: "cp.async with src-size", file: "cpasync-src2", c: cpSrc2, rels: []string{"19", "22", "trunk"}},
	{name: "cp.async addresses swapped", file: "cpasync-src2", c: cpSrc2, rels: []string{"trunk"},
		edit: [2]string{"[%rd1], [%rd2]", "[%rd2], [%rd1]"}, want: "ptx: cp.async shared address src, want dst"},
	{name: "tma load im2col", file: "tma-load-im2col-3d", c: tmaIm2col, rels: []string{"22", "trunk"}},
	{name: "tma coordinates swapped", file: "tma-load-im2col-3d", c: tmaIm2col, rels: []string{"trunk"},
		edit: [2]string{"{%r1, %r2, %r3}", "{%r1, %r3, %r2}"}, want: "ptx: cp.async.bulk.tensor.3d coordinate 1 x2, want x1"},
	{name: "tma store", file: "tma-store-3d", c: tmaStore, rels: []string{"22", "trunk"}},
	{name: "tma store source is the map", file: "tma-store-3d", c: tmaStore, rels: []string{"trunk"},
		edit: [2]string{"}], [%rd1];", "}], [%rd2];"}, want: "ptx: cp.async.bulk.tensor.3d source tmap, want src"},
	{name: "tcgen05.mma block_scale", file: "tcgen05-mxf8f6f4", c: tcBlockScale, rels: []string{"22", "trunk"}},
	{name: "tcgen05.mma D address is the B scale", file: "tcgen05-mxf8f6f4", c: tcBlockScale, rels: []string{"trunk"},
		edit: [2]string{"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::discard [%r1]",
			"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::discard [%r4]"},
		want: "ptx: tcgen05.mma D address scale_b, want d"},
}

var (
	tcBlockScale = editCase(kw.Name, kw.Value{Kind: kw.MXF8F6F4, CTAGroup: 1, BlockScale: true, Tgt: target.MustParse("sm_100a", "")}, nil)
	mmaB1        = editCase(mma.Name, mma.Value{ShapeRank: 3, Shape: [mma.MaxShapeRank]uint16{16, 8, 256}, BLayout: mma.Col,
		AType: mma.B1, BType: mma.B1, CType: mma.S32, DType: mma.S32, BitOp: mma.XorPopc, Tgt: target.MustParse("sm_80", "")}, nil)
	mmaU8 = editCase(mma.Name, mma.Value{ShapeRank: 3, Shape: [mma.MaxShapeRank]uint16{16, 8, 32}, BLayout: mma.Col,
		AType: mma.U8, BType: mma.U8, CType: mma.S32, DType: mma.S32, Satfinite: true, Tgt: target.MustParse("sm_80", "")}, nil)
	cpSrc2    = cpCase(cpasync.CA, 4, func(v *cpasync.Value) { v.HasSrcElements, v.SrcElements = true, 2 })
	tmaIm2col = editCase(tm.Name, tm.Value{Direction: tm.Load, Mode: tm.Im2col, Rank: 3, Dst: tm.SharedCluster, Multicast: true,
		BoxDim1: 1, Tgt: target.MustParse("sm_90a", "")}, nil)
	tmaStore = editCase(tm.Name, tm.Value{Direction: tm.Store, Mode: tm.Tile, Rank: 3, Dst: tm.Global, BoxDim1: 1,
		Tgt: target.MustParse("sm_90a", "")}, nil)
)

// renderOne lays out one case as kernel k_1, the name its golden PTX has.
func renderOne(t *testing.T, c domain.Case) (*module, *kernel) {
	t.Helper()
	k := newKernel("c1.")
	if err := renderers[c.Domain].render(c.Value, k); err != nil {
		t.Fatal(err)
	}
	m, err := buildModule(c.Value.Target(), []int{1}, []*kernel{k})
	if err != nil {
		t.Fatal(err)
	}
	return m, k
}

// installationOf is a golden file's release.
func installationOf(t *testing.T, rel string) toolchain.Installation {
	if rel == "trunk" {
		return toolchaintest.Trunk(t)
	}
	return toolchaintest.Release(t, map[string]int{"19": 19, "22": 22}[rel])
}

func TestValueChecksOnLLCOutput(t *testing.T) {
	for _, g := range llcValueGolden {
		for _, rel := range g.rels {
			t.Run(g.name+"/"+rel, func(t *testing.T) {
				m, k := renderOne(t, g.c)
				path := filepath.Join("testdata", "values", g.file+"-"+rel+".ptx")
				if *update && g.edit[0] == "" {
					writeLLCOutput(t, installationOf(t, rel), m, g.c.Value.Target(), path)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				ptx := string(b)
				if g.edit[0] != "" {
					if !strings.Contains(ptx, g.edit[0]) {
						t.Fatalf("edit %q: not in the output", g.edit[0])
					}
					ptx = strings.Replace(ptx, g.edit[0], g.edit[1], 1)
				}
				entry, ok := emitted.Entries(ptx)["k_1"]
				if !ok {
					t.Fatal("no entry k_1")
				}
				got := valuecheck.Check(g.c, valuecheck.Kernel{Params: k.roles(), Insts: emitted.Eval(entry)})
				switch {
				case g.want == "" && got != nil:
					t.Fatalf("want no mismatch, got %s", got.Diagnostic())
				case g.want != "" && got == nil:
					t.Fatalf("want %q, got no mismatch", g.want)
				case g.want != "" && strings.SplitN(got.Diagnostic(), "\n", 2)[0] != g.want:
					t.Errorf("got  %q\nwant %q", strings.SplitN(got.Diagnostic(), "\n", 2)[0], g.want)
				}
			})
		}
	}
}

// writeLLCOutput compiles the module with the release's llc into path.
func writeLLCOutput(t *testing.T, in toolchain.Installation, m *module, tgt target.Target, path string) {
	t.Helper()
	llc, err := in.Locate(context.Background(), "llc")
	if err != nil {
		t.Skip(err)
	}
	res, err := llc.Run(context.Background(), DefaultTimeout, m.text, llcArgs(tgt)...)
	if err != nil || !clean(res) {
		t.Fatalf("llc: %v %s", err, res.Output())
	}
	if err := os.WriteFile(path, res.Stdout, 0o644); err != nil {
		t.Fatal(err)
	}
}
