package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// TestProgressLine: the line names the domain being fuzzed, labels jobs
// and messages for what they are, and fits any terminal width.
func TestProgressLine(t *testing.T) {
	camp := store.Campaign{ID: "c1", State: store.StateRunning}
	camp.Oracle("ptxas").Judged = 40
	camp.Oracle("spec/ptxisa").Judged = 50
	s := coordinator.Status{Campaign: camp, Outstanding: 12, QueueDepth: 3, TimeLeft: 90 * time.Second, Fuzzing: "kindword",
		Utilization: map[string]float64{"ptxas": 0.5}}
	line := progressLine(s, map[string]int{}, time.Second)
	for _, want := range []string{"c1 running fuzzing kindword", "left 1m30s", "jobs owed 12, messages queued 3", "ptxas 40.0/s 50%"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	for _, width := range []int{0, 20, 79, len(line), 500} {
		got := fitWidth(line, width)
		n := utf8.RuneCountInString(got)
		switch {
		case width == 0 || width >= len(line):
			if got != line {
				t.Errorf("width %d: line cut to %q", width, got)
			}
		case n != width || !strings.HasSuffix(got, "…"):
			t.Errorf("width %d: %d runes %q, want exactly the width ending in …", width, n, got)
		}
	}
}
