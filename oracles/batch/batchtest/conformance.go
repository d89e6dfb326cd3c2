package batchtest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Subject is one batching oracle under the conformance suite.
type Subject struct {
	// Cases are distinct cases the oracle judges with its tool (none
	// unsupported), at least two, some accepted and some rejected by the
	// real tool.
	Cases []domain.Case
	// Real returns the oracle over the real tool with the given batch size
	// (1: one case per process), or skips the test.
	Real func(t *testing.T, batchSize int) oracles.Oracle
	// Fake returns the oracle over the program at path, with a timeout of
	// about a second.
	Fake func(t *testing.T, path string) oracles.Oracle
	// Prelude is the shell code a fake tool runs first: it answers the
	// questions the oracle asks when it is made (--version, -mcpu=help)
	// and exits.
	Prelude string
}

// Behaviours a fake tool has on every input, by name.
var Behaviours = map[string]string{
	"crash":   "kill -SEGV $$",
	"hang":    "sleep 30",
	"garbage": "echo '@@@ \x01 this is not what the tool prints'; echo 'line 99999 error' >&2; exit 3",
}

// Run runs the suite: batched equals one by one (the real tool), order
// and duplicates, an empty batch, a cancelled context, and a tool that
// crashes, hangs or prints garbage on everything.
func Run(t *testing.T, s Subject) {
	t.Run("BatchedEqualsOneByOne", func(t *testing.T) { batchedEqualsOneByOne(t, s) })
	t.Run("OrderAndDuplicates", func(t *testing.T) { orderAndDuplicates(t, s) })
	t.Run("Empty", func(t *testing.T) {
		vs, err := s.Real(t, 0).Judge(context.Background(), nil)
		if err != nil || len(vs) != 0 {
			t.Fatalf("empty batch: %d verdicts, %v", len(vs), err)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if vs, err := s.Real(t, 0).Judge(ctx, s.Cases); err == nil {
			t.Fatalf("a cancelled context gave %d verdicts and no error", len(vs))
		}
	})
	for _, name := range []string{"crash", "hang", "garbage"} {
		t.Run("Fake"+name, func(t *testing.T) { misbehaves(t, s, name) })
	}
}

// Judge judges cases and checks that o returns one verdict per case, in
// order: the contract every oracle keeps.
func Judge(t *testing.T, o oracles.Oracle, cases []domain.Case) []oracles.Verdict {
	t.Helper()
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(cases) {
		t.Fatalf("%d verdicts for %d cases", len(vs), len(cases))
	}
	for i, v := range vs {
		if v.Case != cases[i].ID || v.Domain != cases[i].Domain || v.Oracle != o.Name() {
			t.Fatalf("verdict %d is %s/%s/%s, for case %s/%s", i, v.Oracle, v.Domain, v.Case, cases[i].Domain, cases[i].ID)
		}
	}
	return vs
}

func batchedEqualsOneByOne(t *testing.T, s Subject) {
	batched := Judge(t, s.Real(t, 0), s.Cases)
	single := Judge(t, s.Real(t, 1), s.Cases)
	kinds := map[oracles.Kind]int{}
	for i := range s.Cases {
		kinds[batched[i].Kind]++
		if !reflect.DeepEqual(batched[i], single[i]) {
			t.Errorf("case %d %s:\nbatched    %s %q\none by one %s %q", i, s.Cases[i].Domain,
				batched[i].Kind, batched[i].Diagnostic, single[i].Kind, single[i].Diagnostic)
		}
	}
	if kinds[oracles.Accept] == 0 || kinds[oracles.Reject] == 0 {
		t.Errorf("the subject's cases need accepts and rejects: %v", kinds)
	}
}

// orderAndDuplicates judges the cases reversed with every case twice: each
// position gets its case's verdict, the same as in order.
func orderAndDuplicates(t *testing.T, s Subject) {
	o := s.Real(t, 0)
	want := Judge(t, o, s.Cases)
	byID := map[string]oracles.Verdict{}
	for _, v := range want {
		byID[v.Case] = v
	}
	mixed := slices.Clone(s.Cases)
	slices.Reverse(mixed)
	mixed = append(mixed, s.Cases...)
	for i, v := range Judge(t, o, mixed) {
		if !reflect.DeepEqual(v, byID[v.Case]) {
			t.Errorf("position %d: %+v, judged alone in order %+v", i, v, byID[v.Case])
		}
	}
}

// misbehaves runs the oracle over a fake tool that misbehaves on every
// input: every case gets an error or timeout verdict, never an accept or a
// reject and never a Judge error, in bounded time.
func misbehaves(t *testing.T, s Subject, name string) {
	path := filepath.Join(t.TempDir(), "tool")
	script := "#!/bin/sh\n" + s.Prelude + "\n" + Behaviours[name] + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := s.Fake(t, path)
	start := time.Now()
	cases := s.Cases[:min(2, len(s.Cases))] // a hang costs a timeout per run while bisecting
	for i, v := range Judge(t, o, cases) {
		if v.Kind != oracles.Error && v.Kind != oracles.Timeout {
			t.Errorf("case %d: %s %q from a tool that does %q", i, v.Kind, v.Diagnostic, Behaviours[name])
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("judging took %v", d)
	}
}

// Decided keeps the cases the oracle accepts or rejects (its tool ran on
// them and answered), in order: a subject's Cases.
func Decided(t *testing.T, o oracles.Oracle, cases []domain.Case) []domain.Case {
	t.Helper()
	var out []domain.Case
	for i, v := range Judge(t, o, cases) {
		if v.Kind == oracles.Accept || v.Kind == oracles.Reject {
			out = append(out, cases[i])
		}
	}
	return out
}
