package amdgpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// discover returns the oracle or skips the test naming the missing tool.
func discover(t *testing.T) *Oracle {
	t.Helper()
	o, st := Discover(context.Background(), toolchaintest.Release(t, 19))
	if o == nil {
		t.Skipf("llvm-mc for %s not available (%s); install with %s", CPU, st.Reason, st.Install)
	}
	return o
}

func assemble(t *testing.T, o *Oracle, lines ...string) []Result {
	t.Helper()
	rs, err := o.Assemble(context.Background(), lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(lines) {
		t.Fatalf("%d results for %d lines", len(rs), len(lines))
	}
	for i, r := range rs {
		if r.Line != lines[i] {
			t.Fatalf("result %d is about %q, want %q", i, r.Line, lines[i])
		}
	}
	return rs
}

func TestDiscover(t *testing.T) {
	o := discover(t)
	_, st := Discover(context.Background(), toolchaintest.Release(t, 19))
	if !st.Available || st.Version != o.Version() || !slices.Equal(st.Domains, []string{waitcnt.Name, waitcntasm.Name}) ||
		!slices.Contains(st.Targets, CPU) || o.Judges(kindword.Name) || !o.Judges(waitcnt.Name) || !o.Judges(waitcntasm.Name) {
		t.Fatalf("status %+v", st)
	}
	c := domain.NewCase(kindword.Name, kindword.Seeds()[0])
	vs, err := o.Judge(context.Background(), []domain.Case{c})
	if err != nil || len(vs) != 1 || vs[0].Kind != oracles.Unsupported || vs[0].Case != c.ID {
		t.Fatalf("Judge = %+v, %v: want one unsupported verdict", vs, err)
	}
}

// TestAssembleKnownAnswers pins what llvm-mc-19 -arch=amdgcn -mcpu=gfx942
// -show-encoding printed by hand for each line.
func TestAssembleKnownAnswers(t *testing.T) {
	o := discover(t)
	for _, tc := range []struct {
		line, value, text, diag string
	}{
		{"s_waitcnt vmcnt(0)", "0xbf8c0f70", "s_waitcnt vmcnt(0)", ""},
		{"s_waitcnt vmcnt(63)", "0xbf8ccf7f", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)", ""},
		{"s_waitcnt vmcnt(64)", "", "", "too large value for vmcnt"},
		{"s_waitcnt expcnt(0)", "0xbf8ccf0f", "s_waitcnt expcnt(0)", ""},
		{"s_waitcnt expcnt(7)", "0xbf8ccf7f", "", ""},
		{"s_waitcnt expcnt(8)", "", "", "too large value for expcnt"},
		{"s_waitcnt lgkmcnt(0)", "0xbf8cc07f", "s_waitcnt lgkmcnt(0)", ""},
		{"s_waitcnt lgkmcnt(15)", "0xbf8ccf7f", "", ""},
		{"s_waitcnt lgkmcnt(16)", "", "", "too large value for lgkmcnt"},
		{"s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", "0xbf8c0000", "", ""},
		{"s_waitcnt vmcnt(17) lgkmcnt(3)", "0xbf8c4371", "s_waitcnt vmcnt(17) lgkmcnt(3)", ""},
		{"s_waitcnt vmcnt(1) & lgkmcnt(2)", "0xbf8c0271", "s_waitcnt vmcnt(1) lgkmcnt(2)", ""},
		{"foo bar", "", "", "invalid instruction"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			r := assemble(t, o, tc.line)[0]
			if tc.diag != "" {
				if r.Kind != oracles.Reject || !strings.Contains(r.Diagnostic, tc.diag) || r.Value != "" {
					t.Fatalf("got %+v, want reject %q", r, tc.diag)
				}
				return
			}
			if r.Kind != oracles.Accept || r.Value != tc.value || (tc.text != "" && r.Text != tc.text) || len(r.Encoding) != 4 {
				t.Fatalf("got %+v, want accept %s %q", r, tc.value, tc.text)
			}
		})
	}
}

// TestAssembleBatchEqualsOneByOne assembles random s_waitcnt lines (legal,
// out of range, malformed) in one process and one per process.
func TestAssembleBatchEqualsOneByOne(t *testing.T) {
	o := discover(t)
	single := *o
	single.BatchSize = 1
	seed := uint64(42)
	t.Logf("random lines from seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	var lines []string
	for range 120 {
		var parts []string
		for _, f := range []struct {
			name string
			max  int
		}{{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 15}} {
			if rng.IntN(2) == 0 {
				parts = append(parts, fmt.Sprintf("%s(%d)", f.name, rng.IntN(f.max+4)))
			}
		}
		line := "s_waitcnt " + strings.Join(parts, " ")
		if rng.IntN(10) == 0 {
			line = "s_waitcnt vmcnt(" // malformed
		}
		lines = append(lines, line)
	}
	start := time.Now()
	batched := assemble(t, o, lines...)
	tb := time.Since(start)
	start = time.Now()
	alone := assemble(t, &single, lines...)
	t.Logf("%d lines: batched %v, one by one %v", len(lines), tb, time.Since(start))
	for i := range lines {
		b, a := batched[i], alone[i]
		if b.Kind != a.Kind || b.Value != a.Value || b.Diagnostic != a.Diagnostic || b.Text != a.Text {
			t.Errorf("%q: batched %+v, alone %+v", lines[i], b, a)
		}
	}
}

func TestAssembleRefusesLineBreaks(t *testing.T) {
	o := discover(t)
	if _, err := o.Assemble(context.Background(), []string{"s_waitcnt 0\ns_nop 0"}); err == nil {
		t.Fatal("a line with a newline was assembled")
	}
}

func TestRoundTrip(t *testing.T) {
	o := discover(t)
	for _, line := range []string{
		"s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(63)", "s_waitcnt expcnt(3) lgkmcnt(9)",
		"s_waitcnt vmcnt(17) lgkmcnt(3)", "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", "s_waitcnt 0",
	} {
		t.Run(line, func(t *testing.T) {
			trip, err := o.RoundTrip(context.Background(), line)
			if err != nil {
				t.Fatal(err)
			}
			if !trip.Equivalent {
				t.Fatalf("%q assembled to %q, disassembled to %q", line, trip.Assembled.Text, trip.Disassembled)
			}
			if in, err := ParseWaitcnt(line); err == nil && line != "s_waitcnt 0" {
				if out, _ := ParseWaitcnt(trip.Disassembled); in != out {
					t.Fatalf("%q waits for %+v, its disassembly for %+v", line, in, out)
				}
			}
		})
	}
	trip, err := o.RoundTrip(context.Background(), "s_waitcnt vmcnt(64)")
	if err != nil || trip.Assembled.Kind != oracles.Reject || trip.Equivalent {
		t.Fatalf("rejected line: %+v %v", trip, err)
	}
	if _, err := o.Disassemble(context.Background(), []byte{0x71, 0x02, 0x8c}); err == nil {
		t.Fatal("3 bytes disassembled without error")
	}
}

// fake writes a shell script standing in for llvm-mc.
func fake(t *testing.T, body string) *Oracle {
	t.Helper()
	p := filepath.Join(t.TempDir(), "llvm-mc-fake")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := New(tool.Tool{Name: Name, Path: p, Version: "0.0.0"})
	// Long enough for the real llvm-mc behind the fake on a loaded machine;
	// the hang case pays it once per bisection step.
	o.Timeout = 3 * time.Second
	return o
}

// TestFakeMisbehaves: a crash, a hang and garbage on one line give that
// line an error or timeout result; the other lines are still answered.
func TestFakeMisbehaves(t *testing.T) {
	real := discover(t).tool.Path
	for _, tc := range []struct {
		name, misbehave string
		want            oracles.Kind
	}{
		{"segfault", "kill -SEGV $$", oracles.Error},
		{"hang", "sleep 30", oracles.Timeout},
		{"garbage", "echo 'zz garbage error: ???' >&2; exit 3", oracles.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fake(t, fmt.Sprintf(`input=$(cat)
case "$input" in *BOOM*) %s;; esac
printf '%%s\n' "$input" | exec '%s' "$@"`, tc.misbehave, real))
			rs := assemble(t, o, "s_waitcnt vmcnt(1)", "s_nop BOOM", "s_waitcnt vmcnt(64)", "s_waitcnt lgkmcnt(2)")
			if rs[1].Kind != tc.want {
				t.Errorf("misbehaving line: %+v, want %s", rs[1], tc.want)
			}
			if rs[0].Kind != oracles.Accept || rs[2].Kind != oracles.Reject || rs[3].Kind != oracles.Accept {
				t.Errorf("other lines: %+v", rs)
			}
		})
	}
}

// TestJudgeWaitcnt pins llvm-mc's answers on lowered waitcnt programs: a
// sound in-order program assembles to the encoding waitcnt.Format predicts,
// and 17 LDS operations lower to lgkmcnt(16), which has no encoding.
func TestJudgeWaitcnt(t *testing.T) {
	o := discover(t)
	ok := waitcnt.MustBuild(waitcnt.GFX942,
		waitcnt.Item{Kind: waitcnt.VMEMLoad}, waitcnt.Item{Kind: waitcnt.VMEMLoad}, waitcnt.Item{Wait: true, Tokens: 1})
	items := []waitcnt.Item{}
	for range 17 {
		items = append(items, waitcnt.Item{Kind: waitcnt.LDS})
	}
	wide := waitcnt.MustBuild(waitcnt.GFX942, append(items, waitcnt.Item{Wait: true, Tokens: 1})...)
	cases := []domain.Case{domain.NewCase(waitcnt.Name, ok), domain.NewCase(waitcnt.Name, wide)}
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Kind != oracles.Accept || vs[0].Value != waitcnt.Format(lower.Lower(ok)) {
		t.Errorf("in-order program: %+v, want accept with %q", vs[0], waitcnt.Format(lower.Lower(ok)))
	}
	if vs[1].Kind != oracles.Reject || !strings.Contains(vs[1].Diagnostic, "too large value for lgkmcnt") {
		t.Errorf("lgkmcnt(16): %+v, want a reject saying the value is too large", vs[1])
	}
}
