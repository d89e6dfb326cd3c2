package llvm

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	kw "github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// decoders and seeds of every domain with a renderer, for random cases.
var testDomains = map[string]struct {
	decode func([]byte) (domain.Value, error)
	seeds  func() []domain.Value
}{
	kw.Name:         {kw.Decode, kw.Seeds},
	cpasync.Name:    {cpasync.Decode, cpasync.Seeds},
	ldsm.Name:       {ldsm.Decode, ldsm.Seeds},
	mma.Name:        {mma.Decode, mma.Seeds},
	tmamode.Name:    {tmamode.Decode, tmamode.Seeds},
	blockscale.Name: {blockscale.Decode, blockscale.Seeds},
	wgmma.Name:      {wgmma.Decode, wgmma.Seeds},
}

// randomCases decodes n random inputs (random bytes, or a seed's encoding
// with a byte or two changed), spread evenly over the rendered domains,
// and adds a random sample of each domain's seeds (24, or 16
// under -short; the seed tests of each domain judge them all). The seed is
// logged; LEGALFUZZ_SEED overrides it.
func randomCases(t *testing.T, n int) []domain.Case {
	t.Helper()
	seed := domaintest.Seed(t, "LEGALFUZZ_SEED", 20261121)
	rng := rand.New(rand.NewPCG(seed, seed))
	var cs []domain.Case
	for _, name := range slices.Sorted(maps.Keys(renderers)) { // sorted: the draws must not depend on map order
		d, ok := testDomains[name]
		if !ok {
			t.Fatalf("domain %s has a renderer but no decoder in testDomains", name)
		}
		seeds, keep := d.seeds(), 24
		if testing.Short() {
			keep = 16
		}
		if len(seeds) > keep {
			rng.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
			seeds = seeds[:keep]
		}
		for _, s := range seeds {
			cs = append(cs, domain.NewCase(name, s))
		}
		all := d.seeds()
		for i := range n / len(renderers) {
			// Half are random bytes, half a seed with one or two bytes
			// changed: random bytes rarely spell a form LLVM has.
			var buf []byte
			if i%2 == 0 {
				buf = make([]byte, 64)
				for j := range buf {
					buf[j] = byte(rng.UintN(256))
				}
			} else {
				buf = all[rng.IntN(len(all))].Encode()
				for range 1 + rng.IntN(2) {
					buf[rng.IntN(len(buf))] = byte(rng.UintN(256))
				}
			}
			if v, err := d.decode(buf); err == nil {
				cs = append(cs, domain.NewCase(name, v))
			}
		}
	}
	rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	return cs
}

// TestBatchedEqualsOneByOne judges the same random cases in modules of up
// to BatchSize kernels and one kernel per process: every verdict must match.
func TestBatchedEqualsOneByOne(t *testing.T) {
	for _, major := range []int{19, 22} {
		t.Run(strconv.Itoa(major), func(t *testing.T) {
			batched := shared(t, major)
			single := discover(t, major)
			single.BatchSize = 1
			n := 210
			if testing.Short() {
				n = 120
			}
			cases := randomCases(t, n)
			start := time.Now()
			got := judge(t, batched, cases)
			tb := time.Since(start)
			start = time.Now()
			ref := judge(t, single, cases)
			t.Logf("%d cases: batched %v, one by one %v", len(cases), tb, time.Since(start))
			counts := map[oracles.Kind]int{}
			for i := range cases {
				counts[got[i].Kind]++
				if got[i].Kind != ref[i].Kind || got[i].Rule != ref[i].Rule || got[i].Diagnostic != ref[i].Diagnostic {
					t.Errorf("case %v: batched %s %s %q, alone %s %s %q", cases[i].Value,
						got[i].Kind, got[i].Rule, got[i].Diagnostic, ref[i].Kind, ref[i].Rule, ref[i].Diagnostic)
				}
			}
			t.Logf("verdicts: %v", counts)
			if major == 22 && counts[oracles.Accept]+counts[oracles.Reject] < 50 {
				t.Errorf("only %d cases reached llc: the comparison says little", counts[oracles.Accept]+counts[oracles.Reject])
			}
		})
	}
}

// fakeLLC writes a wrapper around the real llc that misbehaves on modules
// holding marker: it crashes, hangs or prints garbage, and otherwise runs
// llc itself (also for -mcpu=help, so the oracle's probe works).
func fakeLLC(t *testing.T, real, marker, misbehave string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "llc-fake")
	body := fmt.Sprintf(`#!/bin/sh
case "$*" in *-mcpu=help*) exec '%s' "$@";; esac
input=$(cat)
case "$input" in *'%s'*) %s;; esac
printf '%%s\n' "$input" | exec '%s' "$@"
`, real, marker, misbehave, real)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFakeLLCMisbehaves puts a crashing, hanging or babbling llc in front
// of LLVM 22: the cases that trigger it get error or timeout
// verdicts, and the rest of the batch is still judged by the real llc.
func TestFakeLLCMisbehaves(t *testing.T) {
	real := discover(t, 22).tool.Path
	good := f16("sm_100a", nil)
	bad := f16("sm_100a", func(v *kw.Value) { v.WS = true }) // renders tcgen05.mma.ws
	gated := f16("sm_90a", nil)
	for _, tc := range []struct {
		name, misbehave string
		want            want
	}{
		{"segfault", "kill -SEGV $$", want{oracles.Error, RuleCrash, "segmentation fault"}},
		{"hang", "sleep 30", want{oracles.Timeout, RuleTimeout, "did not finish"}},
		{"garbage", "printf 'zz\\001\\377 garbage\\n'; exit 3", want{oracles.Error, RuleUnexplained, "exited 3"}},
		{"assertion", "echo 'llc: X.cpp:1: Assertion `x == y failed.' >&2; kill -ABRT $$", want{oracles.Error, RuleCrash, "Assertion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := discoverIn(t, toolchaintest.WithTool(t, toolchaintest.Release(t, 22), "llc", fakeLLC(t, real, "tcgen05.mma.ws", tc.misbehave)))
			if o.tool.Path == real {
				t.Fatalf("the fake llc was not used")
			}
			o.Timeout = 20 * time.Second // room for the real llc on a loaded machine
			if tc.name == "hang" {
				o.Timeout = 3 * time.Second
			}
			vs := judge(t, o, []domain.Case{bad, good, gated})
			tc.want.check(t, vs[0])
			want{oracles.Accept, RuleAccepted, ""}.check(t, vs[1])
			want{oracles.Reject, RuleCannotSelect, "Cannot select"}.check(t, vs[2])
		})
	}
}

// TestCancelledContextIsAnError: a cancelled Judge is a harness error, not
// a verdict.
func TestCancelledContextIsAnError(t *testing.T) {
	o := shared(t, 22)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Judge(ctx, []domain.Case{f16("sm_100a/8.8", nil)}); err == nil {
		t.Fatal("Judge with a cancelled context returned no error")
	}
}

// benchCases are n tcgen05.mma cases on sm_100a; every tenth is i8 on
// sm_103a, which llc rejects, so failures are spread through the batch.
func benchCases(n int) []domain.Case {
	var cs []domain.Case
	for i := range n {
		v := kw.Value{Kind: []kw.Kind{kw.F16, kw.TF32, kw.F8F6F4, kw.I8}[i%4], CTAGroup: uint8(1 + i%2),
			CollectorA: kw.Collector(i / 2 % 4), ATMem: i%3 == 0, Tgt: target.MustParse("sm_100a", "")}
		if i%10 == 9 {
			v.Kind, v.Tgt = kw.I8, target.MustParse("sm_103a", "")
		}
		cs = append(cs, domain.NewCase(kw.Name, v))
	}
	return cs
}

// BenchmarkJudge1000 times 1,000 cases batched and one per process:
// go test -run '^$' -bench Judge1000 -benchtime 1x ./oracles/llvm
func BenchmarkJudge1000(b *testing.B) {
	for _, size := range []int{0, 1} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			o := discover(b, 22)
			o.BatchSize = size
			cs := benchCases(1000)
			for b.Loop() {
				if _, err := o.Judge(context.Background(), cs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEntries: the kernels of a clean run are read from their PTX entries,
// and only from well-formed ones.
func TestEntries(t *testing.T) {
	ptx := ".visible .entry k_1(\n\t.param .u64 p\n)\n{\n}\n.visible .entry k_23()\n// .entry k_x(\n.entry k_4"
	if got, want := entries(ptx), map[int]bool{1: true, 23: true}; !reflect.DeepEqual(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
}
