package diag

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected parts of the golden files in testdata/")

// Golden file layout: an optional "# cmd: ..." line saying how the output
// was captured (testdata/capture.sh), the raw output, then the expected
// Normalize and Title after their separator lines.
const (
	cmdPrefix     = "# cmd: "
	normalizeSep  = "=== normalize\n"
	titleSep      = "=== title\n"
	goldenPattern = "*.txt"
)

// golden is one parsed golden file.
type golden struct {
	cmd, raw, normalized, title string
}

func parseGolden(t *testing.T, data string) golden {
	t.Helper()
	var g golden
	if rest, ok := strings.CutPrefix(data, cmdPrefix); ok {
		g.cmd, data, _ = strings.Cut(rest, "\n")
	}
	g.raw, data, _ = strings.Cut(data, normalizeSep)
	g.normalized, g.title, _ = strings.Cut(data, titleSep)
	return g
}

func (g golden) String() string {
	var b strings.Builder
	if g.cmd != "" {
		b.WriteString(cmdPrefix + g.cmd + "\n")
	}
	for _, part := range []struct{ text, sep string }{{g.raw, normalizeSep}, {g.normalized, titleSep}, {g.title, ""}} {
		b.WriteString(part.text)
		if !strings.HasSuffix(part.text, "\n") {
			b.WriteString("\n")
		}
		b.WriteString(part.sep)
	}
	return b.String()
}

// TestGolden checks Normalize and Title on real tool output; -update
// rewrites the expected parts from what they return now.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", goldenPattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in testdata")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			g := parseGolden(t, string(data))
			got := g
			got.normalized, got.title = Normalize(g.raw), Title(g.raw)+"\n"
			if *update {
				if err := os.WriteFile(f, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got.String() != string(data) {
				t.Errorf("normalize:\n%s\nwant:\n%s\ntitle:\n%s\nwant:\n%s", got.normalized, g.normalized, got.title, g.title)
			}
		})
	}
}

// readRaw returns the raw output of a golden file.
func readRaw(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return parseGolden(t, string(data)).raw
}

// TestTitleDedup shows the dedup property on real output: one check that
// fails for different shapes, targets, tool versions or op variants is one
// title; different checks are different titles.
func TestTitleDedup(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"two mma shapes", "mlir-opt-19-mma-bad-shape", "mlir-opt-19-mma-split", true},
		{"mma and its sparse variant", "mlir-opt-22-mma-bad-shape", "mlir-opt-22-mma-sp-bad-shape", true},
		{"mma and its sparse variant named in the text", "mlir-opt-19-mma-e4m3", "mlir-opt-19-mma-sp-e4m3", true},
		{"tcgen05.mma and its sparse block-scaled variant on two targets", "mlir-opt-22-tcgen05-mma-sm103a", "mlir-opt-22-tcgen05-mma-sp-block-scale-sm100f", true},
		// The types a check names are kept (issue 36): MLIR 19's limitation
		// names the two fp8 types it refuses, and two type pairs are two
		// titles, as two value bugs that differ by element type must be.
		{"wgmma fp8 limitation for two fp8 types", "mlir-opt-19-wgmma-e4m3-e4m3", "mlir-opt-19-wgmma-e5m2-e4m3", false},
		{"split prefix of mlir-opt 19 and location of 22", "mlir-opt-19-mma-split", "mlir-opt-22-mma-split", true},
		{"ptxas version for sm_90a and sm_86", "ptxas-12.4-version-too-old-sm90a", "ptxas-12.4-version-too-old-sm86", true},
		{"llc version for sm_90a and sm_86", "llc-22-ptx-version-sm90a", "llc-22-ptx-version-sm86", true},
		{"waitcnt counters on two targets", "llvm-mc-22-waitcnt-vmcnt-gfx900", "llvm-mc-22-waitcnt-lgkmcnt-gfx1100", false},
		{"waitcnt from llvm-mc 19 and 22", "llvm-mc-19-waitcnt-vmcnt-gfx900", "llvm-mc-22-waitcnt-vmcnt-gfx900", true},
		{"two intrinsics llc cannot select", "llc-19-cannot-select-cp-async", "llc-22-cannot-select-wgmma-fence", false},
		{"unknown modifier and arguments mismatch", "ptxas-12.4-unknown-modifier", "ptxas-12.4-arguments-mismatch", false},
		{"nvgpu and nvvm ldmatrix checks", "mlir-opt-19-ldmatrix-numtiles", "mlir-opt-19-nvvm-ldmatrix-num", false},
		{"nvvm ldmatrix message reworded in 22", "mlir-opt-19-nvvm-ldmatrix-num", "mlir-opt-22-nvvm-ldmatrix-num", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Title(readRaw(t, tc.a)), Title(readRaw(t, tc.b))
			if (a == b) != tc.same {
				t.Errorf("titles %q and %q: same = %v, want %v", a, b, a == b, tc.same)
			}
		})
	}
}

// TestNormalizeKeepsDecimals checks the line between the two levels: the
// numbers a legality message is about survive Normalize and go in Title.
func TestNormalizeKeepsDecimals(t *testing.T) {
	raw := readRaw(t, "ptxas-12.4-cp-async-size")
	if n := Normalize(raw); !strings.Contains(n, "unexpected value '12', expected to be 4 or 8 or 16") {
		t.Errorf("Normalize lost the sizes: %q", n)
	}
	if got, want := Title(raw), "error : Argument N of instruction 'cp.async': unexpected value 'N', expected to be N or N or N"; got != want {
		t.Errorf("Title = %q, want %q", got, want)
	}
}

// TestNormalizeRules covers rules that no captured output shows (DAG node
// names, which llc prints for nodes other than intrinsics; bytes that are
// not text) and messages the oracles have met.
func TestNormalizeRules(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"ptxas position", "ptxas /tmp/lf123/batch.ptx, line 11; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'",
			"ptxas FILE, line LINE; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'"},
		{"split position", "within split at /tmp/x/in.mlir:40 offset :3:8: error: 'nvgpu.ldmatrix' op expected %res to be vector",
			"within split at FILE:LINE offset :LINE:COL: error: 'nvgpu.ldmatrix' op expected %V to be vector"},
		{"a slash inside a word is no path", "could not infer the PTX type for the accumulator/result",
			"could not infer the PTX type for the accumulator/result"},
		{"targets stay", "tcgen05.mma.cta_group::2.kind::f16 not supported on sm_90a", "tcgen05.mma.cta_group::2.kind::f16 not supported on sm_90a"},
		{"decimals stay", "cp-size must be 16, got 0x1f at @k_3a", "cp-size must be 16, got HEX at @SYM"},
		{"dag nodes", "LLVM ERROR: Cannot select: t12: i32 = add t5, t7", "LLVM ERROR: Cannot select: tN: i32 = add tN, tN"},
		{"junk bytes", "bad\x01\xffbyte", "bad??byte"},
		{"junk constraint", "couldn't allocate output register for constraint '\x07'", "couldn't allocate output register for constraint 'C'"},
		{"entry names", "in function case_0a1b and k_17", "in function ENTRY and ENTRY"},
		{"blocks and hex", "^bb3 at 0xdeadBEEF", "^BB at HEX"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestTitleKeepsTypes: Title drops counts, shapes, offsets and names and
// keeps the type and qualifier words a message names, so two checks that
// refuse different types are two titles.
func TestTitleKeepsTypes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ptxas x.ptx, line 3; error   : Unknown modifier '.x3'", "error : Unknown modifier '.x3'"},
		{"error: 'nvgpu.mma.sync' op expected 4 warp-wide matrix A elements for f16 and bf16, not tf32",
			"error: 'nvgpu.mma.sync' op expected N warp-wide matrix A elements for f16 and bf16, not tf32"},
		{"error : Illegal type .e4m3 for mma.sync.aligned.m16n8k32 with .u8 and .s8 at %f12",
			"error : Illegal type .e4m3 for mma.sync.aligned.mNnNkN with .u8 and .s8 at %V"},
		{"error: vector<64x256xi32> does not match vector<2x4xf8E4M3FN> of kind::mxf8f6f4",
			"error: vector<NxNxi32> does not match vector<NxNxf8E4M3FN> of kind::mxf8f6f4"},
		{"error: 'nvvm.tcgen05.mma' op is not supported on sm_90a", "error: 'nvvm.tcgenN.mma' op is not supported on sm_N"},
		{"error : Modifier '.async' requires .target sm_90a or higher", "error : Modifier '.async' requires .target sm_90a or higher"},
	} {
		if got := Title(tc.in); got != tc.want {
			t.Errorf("Title(%q) =\n%q, want\n%q", tc.in, got, tc.want)
		}
	}
}

func TestTitleOfEmptyText(t *testing.T) {
	if got := Title("\n  \n"); got != "" {
		t.Errorf("Title of blank text = %q, want empty", got)
	}
}

// TestAltTitles shows on real output that a message a newer tool version
// rewords by adding a clause answers to the older title, and that different
// checks do not.
func TestAltTitles(t *testing.T) {
	matches := func(a, b string) bool {
		all := func(t string) []string { return append([]string{t}, AltTitles(t)...) }
		for _, x := range all(a) {
			for _, y := range all(b) {
				if x == y {
					return true
				}
			}
		}
		return false
	}
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"nvvm ldmatrix message reworded in 22", "mlir-opt-19-nvvm-ldmatrix-num", "mlir-opt-22-nvvm-ldmatrix-num", true},
		{"nvgpu and nvvm ldmatrix checks", "mlir-opt-19-ldmatrix-numtiles", "mlir-opt-22-nvvm-ldmatrix-num", false},
		{"two intrinsics llc cannot select", "llc-19-cannot-select-cp-async", "llc-22-cannot-select-wgmma-fence", false},
		{"unknown modifier and arguments mismatch", "ptxas-12.4-unknown-modifier", "ptxas-12.4-arguments-mismatch", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Title(readRaw(t, tc.a)), Title(readRaw(t, tc.b))
			if got := matches(a, b); got != tc.same {
				t.Errorf("titles %q (alt %q) and %q (alt %q): match = %v, want %v", a, AltTitles(a), b, AltTitles(b), got, tc.same)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"one line":                     "one line",
		"\n  error: bad\nnote: here\n": "error: bad",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCrashFrames lists the frames of real dumps an issue quotes: the
// verifier that aborted and its callers, without the signal handlers and
// libc's abort, symbolized or not.
func TestCrashFrames(t *testing.T) {
	for _, tc := range []struct {
		file  string
		first []string
	}{
		{"testdata/crash/mlir-opt-22-abort-unsymbolized.txt", []string{"mlir::NVVM::MmaOp::verify()", "mlir::verify(mlir::Operation*, bool)"}},
		{"testdata/crash/mlir-opt-19-symbolized.txt", []string{"mlir::nvgpu::WarpgroupMmaInitAccumulatorOp::verify()"}},
	} {
		out, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		frames := CrashFrames(string(out))
		if len(frames) < len(tc.first) || !slices.Equal(frames[:len(tc.first)], tc.first) {
			t.Errorf("%s: frames %q, want them to start with %q", tc.file, frames, tc.first)
		}
		for _, f := range frames {
			if strings.Contains(f, "llvm::sys::") || strings.Contains(f, "gsignal") || strings.Contains(f, "abort") {
				t.Errorf("%s: frame %q is the crash handling, not the crash", tc.file, f)
			}
		}
	}
	if fs := CrashFrames("error: 'nvgpu.mma.sync' op failed to deduce operand PTX types\n"); fs != nil {
		t.Errorf("no dump: frames %q", fs)
	}
}
