package mlir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// valueGolden are llc's PTX for cases MLIR lowered (testdata/values, one
// file per release: mlir-opt with Pipeline, mlir-translate, llc), with
// what the value check says of each; an edit turns a real output into a
// wrong one, one value changed.
var valueGolden = []struct {
	name, file, domain string
	override           m
	edit               [2]string // old, new
	want               string    // "" passes; else the mismatch
	effect             string    // the effect line, where the check gives one
}{
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
	{name: "cp.async with srcElements", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2}},
	{name: "cp.async src-size doubled", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2},
		edit: [2]string{", 16, 8;", ", 16, 16;"}, want: "ptx: cp.async src-size 16, want 8 (2 f32 elements)"},
	{name: "cp.async shared address moved", file: "cpasync-src2", domain: "cpasync", override: m{"src_elements": 2},
		edit: [2]string{"%rd3, 256;", "%rd3, 272;"}, want: "ptx: cp.async shared address 272, want 256"},
}

// valueAnswers says, per golden case and release, whether the release's
// real output passes: MLIR 19 and 22 lower u8 mma operands to .s8, trunk
// to .u8; an edit applies to trunk's output only.
func valueAnswer(name, rel string) (wantPass bool, applies bool) {
	switch name {
	case "mma u8 as u8":
		return rel == "trunk", true
	case "wgmma B K step off by 8", "wgmma imm-trans-b dropped", "mma D type changed", "cp.async src-size doubled", "cp.async shared address moved":
		return false, rel == "trunk"
	case "wgmma M step of a 32-wide K":
		return false, true
	}
	return true, true
}

func TestValueChecksOnRealOutput(t *testing.T) {
	for _, g := range valueGolden {
		for _, rel := range []string{"19", "22", "trunk"} {
			pass, applies := valueAnswer(g.name, rel)
			if !applies {
				continue
			}
			t.Run(g.name+"/"+rel, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join("testdata", "values", g.file+"-"+rel+".ptx"))
				if err != nil {
					t.Fatal(err)
				}
				ptx := string(b)
				if g.edit[0] != "" {
					if strings.Count(ptx, g.edit[0]) < 1 {
						t.Fatalf("edit %q: not in the output", g.edit[0])
					}
					ptx = strings.Replace(ptx, g.edit[0], g.edit[1], 1)
				}
				var entry string
				for _, e := range emitted.Entries(ptx) {
					entry = e
				}
				err = checkValues(caseFrom(t, g.domain, g.override), entry)
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

// BenchmarkCheckEmitted is the cost of the emitted-PTX checks (counts and
// values) of one case, on MLIR trunk's PTX for a 128x16x64 wgmma tile (eight
// instructions): what the checks add to the chain's time per case.
func BenchmarkCheckEmitted(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "values", "wgmma-m128n16k64-transb-trunk.ptx"))
	if err != nil {
		b.Fatal(err)
	}
	var entry string
	for _, e := range emitted.Entries(string(raw)) {
		entry = e
	}
	c := caseFrom(&testing.T{}, "wgmma", m{"m": 128, "n": 16, "k": 64, "b_k": 64, "trans_b": true})
	b.ReportAllocs()
	for b.Loop() {
		if err := errors.Join(checkEmitted(c, entry), checkValues(c, entry)); err != nil {
			b.Fatal(err)
		}
	}
}
