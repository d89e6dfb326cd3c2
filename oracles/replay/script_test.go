package replay

import "testing"

// TestWords: repro.sh greps for the tool's literal words, the longest
// stretch of a stored diagnostic's first line between the placeholders
// normalization put in, after the stage, location and "error:" prefixes;
// nothing when fewer than eight characters are left, which would match
// anything.
func TestWords(t *testing.T) {
	cases := [][2]string{
		{"lowering: FILE:LINE:COL: error: 'nvgpu.mma.sync' op failed to deduce operand PTX types\n%V = nvgpu.mma.sync", "'nvgpu.mma.sync' op failed to deduce operand PTX types"},
		{"ptxas FILE, line LINE; error   : Arguments mismatch for instruction 'mma'", "Arguments mismatch for instruction 'mma'"},
		{"llc: LLVM ERROR: Cannot select: %V = HEX", "LLVM ERROR: Cannot select:"},
		{"verify: FILE:LINE:COL: error: bad %V", ""},
	}
	for _, c := range cases {
		if got := Words(c[0]); got != c[1] {
			t.Errorf("Words(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
