package worker

import "testing"

// TestSliceEnded separates Go's fuzzer stopping at -test.fuzztime mid-phase
// from a real failure, which writes the failing input.
func TestSliceEnded(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{"fuzz: elapsed: 14s ...\n--- FAIL: FuzzTMAMode (14.01s)\n    context deadline exceeded\nFAIL", true},
		{"--- FAIL: FuzzKindWord (0.20s)\n    fuzz_test.go:23: kindword: ...\n    Failing input written to testdata/fuzz/FuzzKindWord/ab12\nFAIL", false},
		{"--- FAIL: FuzzKindWord\n    Failing input written to testdata/fuzz/FuzzKindWord/ab12\n    context deadline exceeded", false},
		{"panic: runtime error\nFAIL", false},
	} {
		if got := sliceEnded(tc.out); got != tc.want {
			t.Errorf("sliceEnded(%q) = %v, want %v", tc.out, got, tc.want)
		}
	}
}
