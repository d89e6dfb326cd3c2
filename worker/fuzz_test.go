package worker

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
)

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

// TestValidFuzzJob: a fuzz job's target becomes a path and a -test.fuzz
// pattern, and its slice a run time: only the domain's own target and a
// bounded slice pass.
func TestValidFuzzJob(t *testing.T) {
	ok := queue.FuzzJob{Domain: "kindword", Target: "FuzzKindWord", Slice: 15 * time.Second}
	if err := validFuzzJob(ok); err != nil {
		t.Fatalf("valid job refused: %v", err)
	}
	for name, edit := range map[string]func(*queue.FuzzJob){
		"path in target":     func(j *queue.FuzzJob) { j.Target = "../../etc" },
		"other target":       func(j *queue.FuzzJob) { j.Target = "FuzzLDSM" },
		"pattern in target":  func(j *queue.FuzzJob) { j.Target = "Fuzz.*" },
		"unknown domain":     func(j *queue.FuzzJob) { j.Domain = "nope" },
		"zero slice":         func(j *queue.FuzzJob) { j.Slice = 0 },
		"negative slice":     func(j *queue.FuzzJob) { j.Slice = -time.Second },
		"slice of a century": func(j *queue.FuzzJob) { j.Slice = 100 * 365 * 24 * time.Hour },
	} {
		job := ok
		edit(&job)
		if err := validFuzzJob(job); err == nil {
			t.Errorf("%s: accepted %+v", name, job)
		}
	}
}
