package tool

import "testing"

// TestLLVMVersion reads the version lines LLVM tools print (Debian's and
// upstream's) and keeps a spec to its major release.
func TestLLVMVersion(t *testing.T) {
	const debian19 = "Debian LLVM version 19.1.7\n  Optimized build.\n  Registered Targets:\n    amdgcn - AMD GCN GPUs\n"
	const plain22 = "LLVM (http://llvm.org/):\n  LLVM version 22.1.8\n"
	for _, tc := range []struct {
		major  int
		out    string
		want   string
		wantOK bool
	}{
		{19, debian19, "19.1.7", true},
		{22, debian19, "", false},
		{22, plain22, "22.1.8", true},
		{0, plain22, "22.1.8", true},
		{1, debian19, "", false}, // 19 is not 1
		{19, "mlir-opt: unknown option --version", "", false},
	} {
		got, ok := LLVM("x", "", tc.major, "", "x").Version(tc.out)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("major %d on %q: %q %t, want %q %t", tc.major, tc.out, got, ok, tc.want, tc.wantOK)
		}
	}
}
