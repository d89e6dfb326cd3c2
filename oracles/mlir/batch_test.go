package mlir

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// randomCases decodes random values of randomly picked domains MLIR 19
// renders until n distinct ones render (reach mlir-opt-19), plus every
// seed of those domains when withSeeds;
// the random seed is logged and LEGALFUZZ_MLIR_SEED overrides it.
func randomCases(tb testing.TB, n int, withSeeds bool) []domain.Case {
	tb.Helper()
	seed := uint64(20261121)
	if s := os.Getenv("LEGALFUZZ_MLIR_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	tb.Logf("random cases from seed %d (set LEGALFUZZ_MLIR_SEED to replay)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	names := Domains() // MLIR 19's: render below is 19's
	var cases []domain.Case
	if withSeeds {
		for _, name := range names {
			for _, v := range domains[name].Seeds() {
				cases = append(cases, domain.NewCase(name, v))
			}
		}
	}
	seen := map[string]bool{}
	for found, tries := 0, 0; found < n && tries < 2000*n; tries++ {
		name := names[rng.IntN(len(names))]
		c := domain.NewCase(name, decodeRandom(tb, domains[name], rng))
		if _, _, err := (render.Spelling{}).Render(c); err == nil && !seen[c.ID] {
			seen[c.ID] = true
			cases = append(cases, c)
			found++
		}
	}
	rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
	return cases
}

// decodeRandom decodes 512 random bytes (more than any domain reads).
func decodeRandom(tb testing.TB, d domain.Domain, rng *rand.Rand) domain.Value {
	b := make([]byte, 512)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	v, err := d.Decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// TestBatchMatchesOneByOne judges a mixed sample in one batch and with one
// case per process, through the whole lowering, and wants the same verdicts.
func TestBatchMatchesOneByOne(t *testing.T) {
	o := discover(t)
	n, withSeeds := 150, true
	if testing.Short() {
		n, withSeeds = 110, false
	}
	cases := randomCases(t, n, withSeeds)
	start := time.Now()
	batched, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	mid := time.Now()
	single := &Oracle{Opt: o.Opt, Lower: o.Lower, Timeout: o.Timeout, BatchSize: 1}
	alone, err := single.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases: batched %v, one by one %v", len(cases), mid.Sub(start), time.Since(mid))
	counts := map[string]int{}
	for i := range cases {
		b, a := batched[i], alone[i]
		counts[string(b.Kind)+"/"+b.Rule]++
		if b.Kind != a.Kind || b.Rule != a.Rule || b.Diagnostic != a.Diagnostic || b.Value != a.Value {
			t.Errorf("%s %v:\nbatched %s/%s %q %s\nalone   %s/%s %q %s", cases[i].Domain, cases[i].Value,
				b.Kind, b.Rule, b.Diagnostic, b.Value, a.Kind, a.Rule, a.Diagnostic, a.Value)
		}
	}
	t.Logf("verdicts: %v", counts)
}

// fakeOpt writes a mlir-opt stand-in that behaves as the real one, except
// on a batch file holding marker, where it runs action instead.
func fakeOpt(t *testing.T, real, marker, action string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mlir-opt-fake")
	script := "#!/bin/sh\n" +
		"for a in \"$@\"; do\n" +
		"  if [ -f \"$a\" ] && grep -q '" + marker + "' \"$a\"; then " + action + "; fi\n" +
		"done\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFailingTool puts a crashing, hanging, or babbling mlir-opt in front
// of LLVM 19: the case that sets it off gets error or
// timeout, every other case of the batch its real verdict.
func TestFailingTool(t *testing.T) {
	real := discover(t)
	cases := randomCases(t, 24, false)
	want, err := real.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	bad := -1
	for i, c := range cases {
		if _, _, err := (render.Spelling{}).Render(c); err == nil {
			bad = i
			break
		}
	}
	if bad < 0 {
		t.Fatal("no renderable case in the sample")
	}
	for _, tc := range []struct {
		name, action string
		kind         oracles.Kind
		diag         string
	}{
		{"crash", "kill -SEGV $$", oracles.Error, "mlir-opt crashed (segmentation fault)"},
		{"abort", "echo 'LLVM ERROR: out of luck' >&2; exit 1", oracles.Error, "LLVM ERROR: out of luck"},
		{"hang", "sleep 30", oracles.Timeout, "mlir-opt timed out after 3s"},
		{"garbage", "echo 'within split at nowhere:99999 offset :1:1: error: what' >&2; exit 1", oracles.Error, "names no case"},
		{"silent failure", "exit 1", oracles.Error, "exited 1 with output that names no case"},
		// LLVM's IR verifier (in mlir-translate) says why with no location:
		// alone in its run, the case was refused in those words.
		{"unlocated refusal", "echo 'immarg value 2 out of range [0, 2)' >&2; exit 1", oracles.Reject, "immarg value 2 out of range [0, 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, st := Discover(context.Background(), toolchaintest.WithTool(t, toolchaintest.Release(t, 19), "mlir-opt",
				fakeOpt(t, real.Opt.Path, render.KernelName(cases[bad]), tc.action)))
			if o == nil {
				t.Fatalf("fake mlir-opt not found: %s", st.Reason)
			}
			o.Timeout = timeoutFor(tc.name)
			start := time.Now()
			got, err := o.Judge(context.Background(), cases)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("judged in %v", time.Since(start))
			for i := range cases {
				if i == bad {
					if got[i].Kind != tc.kind || !strings.Contains(got[i].Diagnostic, tc.diag) {
						t.Errorf("culprit: got %s %q, want %s containing %q", got[i].Kind, got[i].Diagnostic, tc.kind, tc.diag)
					}
					continue
				}
				if got[i].Kind != want[i].Kind || got[i].Diagnostic != want[i].Diagnostic {
					t.Errorf("%s: got %s %q, want %s %q", cases[i].Domain, got[i].Kind, got[i].Diagnostic, want[i].Kind, want[i].Diagnostic)
				}
			}
		})
	}
}

// timeoutFor keeps the hang case short and gives the real tool, which
// judges the other cases of the batch, room on a loaded machine.
func timeoutFor(test string) time.Duration {
	if test == "hang" {
		return 3 * time.Second
	}
	return 20 * time.Second
}

func TestJoinChunksLines(t *testing.T) {
	file, starts := JoinSplit([]string{"a\nb\n", "c", "d\ne\nf\n"})
	lines := strings.Split(file, "\n")
	if lines[2] != SplitMarker || lines[4] != SplitMarker {
		t.Fatalf("markers not where expected:\n%s", file)
	}
	want := map[int]int{1: 0, 3: 1, 5: 2}
	for line, i := range want {
		if starts[line] != i {
			t.Errorf("line %d maps to chunk %d, want %d (%v)", line, starts[line], i, starts)
		}
	}
}

func TestPtxasAttribution(t *testing.T) {
	ptx := "//\n.version 8.0\n.visible .entry k_a(\n)\n{\nret;\n}\n.visible .entry k_b(\n)\n{\nbad;\n}\n"
	r := tool.Result{Stderr: []byte("ptxas /tmp/x/out.ptx, line 11; error   : Unknown instruction 'bad'\n" +
		"ptxas fatal   : Ptx assembly aborted due to errors\n"), ExitCode: 255}
	msgs, ok := attributePTX(ptx, r)
	if !ok || len(msgs["k_b"]) != 1 || len(msgs["k_a"]) != 0 {
		t.Fatalf("got %v %v, want one error for k_b", msgs, ok)
	}
	r.Stderr = []byte("ptxas /tmp/x/out.ptx, line 1; error   : before any entry\n")
	if _, ok := attributePTX(ptx, r); ok {
		t.Fatal("an error before the first entry was attributed")
	}
}

// BenchmarkJudge1000 judges 1,000 renderable cases with and without the
// lowering, in batches and one per process:
//
//	go test ./oracles/mlir -run '^$' -bench Judge1000 -benchtime 1x
func BenchmarkJudge1000(b *testing.B) {
	o, st := Discover(context.Background(), toolchaintest.Release(b, 19))
	if o == nil || o.Lower == nil {
		b.Skipf("mlir tools not found: %s", st.Reason)
	}
	cases := randomCases(b, 1000, false)
	for _, bc := range []struct {
		name  string
		lower *Lowering
		batch int
	}{
		{"verify/batch", nil, 0}, {"verify/one-by-one", nil, 1},
		{"lower/batch", o.Lower, 0}, {"lower/one-by-one", o.Lower, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			oc := &Oracle{Opt: o.Opt, Lower: bc.lower, BatchSize: bc.batch}
			for b.Loop() {
				if _, err := oc.Judge(context.Background(), cases); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
