package diag

import (
	"os"
	"slices"
	"strings"
	"testing"
)

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
