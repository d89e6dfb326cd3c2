package main

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
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

// TestProgressLineWhileStarting: while the coordinator waits for workers
// and stores the seeds, the line says so rather than a time left that does
// not run.
func TestProgressLineWhileStarting(t *testing.T) {
	camp := store.Campaign{ID: "c1", State: store.StateRunning}
	s := coordinator.Status{Campaign: camp, TimeLeft: time.Minute, Starting: true}
	for _, tc := range []struct {
		workers []queue.Capability
		want    string
	}{{nil, "c1 starting | waiting for workers |"}, {[]queue.Capability{{Worker: "w1"}}, "c1 starting | storing the seeds |"}} {
		s.Workers = tc.workers
		if line := progressLine(s, map[string]int{}, time.Second); !strings.HasPrefix(line, tc.want) || strings.Contains(line, "left") {
			t.Errorf("line %q; want it to start %q and say no time left", line, tc.want)
		}
	}
}

// TestStageProgress: the line of minimizing says which bucket of how many,
// the oracles asked (the installation a replay is on) and the judgments so
// far, judging with the real spec oracles.
func TestStageProgress(t *testing.T) {
	orcs, _ := spec.All()
	seeds := kindword.Seeds()
	cases := []domain.Case{domain.NewCase(kindword.Name, seeds[0]), domain.NewCase(kindword.Name, seeds[1])}
	p := newStageProgress("c1", "minimizing")
	p.at(2, 2, "bucketB")
	panel := p.watch(oracles.Local{Oracles: orcs})
	if _, err := panel.Judge(context.Background(), cases[1:], []string{oracles.SpecPTXISA}); err != nil {
		t.Fatal(err)
	}
	if line, want := p.line(time.Second), "c1 minimizing | bucket 2/2 bucketB | asking spec/ptxisa | judged 1 |"; !strings.HasPrefix(line, want) {
		t.Errorf("line %q; want it to start %q", line, want)
	}
	p.at(1, 2, "bucketA")
	if _, err := panel.Judge(context.Background(), cases, nil); err != nil {
		t.Fatal(err)
	}
	if line, want := p.line(time.Second), "c1 minimizing | bucket 1/2 bucketA | asking every oracle | judged 5 |"; !strings.HasPrefix(line, want) {
		t.Errorf("line %q; want it to start %q", line, want)
	}
}
