package cuda

import (
	"context"
	"math/rand/v2"
	"os"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// ptxasLoader stands in for cuModuleLoadDataEx on an sm_90 device: ptxas
// 12.4 compiles the module for sm_90a, and its output is the log. Its
// messages have the JIT's shape ("ptxas FILE, line N; error   : MSG"), so
// the oracle's batching and attribution run as on a GPU. Like the driver,
// it may be called from several goroutines at once.
type ptxasLoader struct {
	p     tool.Tool
	dir   string
	loads *atomic.Int64
}

func (l ptxasLoader) LoadModule(ctx context.Context, text string) (JITResult, error) {
	l.loads.Add(1)
	f, err := os.CreateTemp(l.dir, "module-*.ptx")
	if err != nil {
		return JITResult{}, err
	}
	path := f.Name()
	f.Close()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return JITResult{}, err
	}
	res, err := l.p.Run(ctx, time.Minute, nil, "-arch=sm_90a", "-O0", path, "-o", os.DevNull)
	if err != nil {
		return JITResult{}, err
	}
	if res.ExitCode != 0 {
		return JITResult{Code: "CUDA_ERROR_INVALID_PTX", Log: res.Output()}, nil
	}
	return JITResult{OK: true, Log: res.Output()}, nil
}

// jitCases are mutated seeds of every rendered domain, on targets an sm_90
// device loads with PTX ISA up to 8.4.
func jitCases(t *testing.T, want int) []domain.Case {
	t.Helper()
	rng := rand.New(rand.NewPCG(rngSeed(t), 3))
	var cases []domain.Case
	for len(cases) < want {
		for _, name := range ptx.Domains() {
			d, _ := fuzz.Lookup(name)
			seeds := d.Seeds()
			b := append([]byte(nil), seeds[rng.IntN(len(seeds))].Encode()...)
			for range rng.IntN(3) {
				if len(b) > 0 {
					b[rng.IntN(len(b))] = byte(rng.Uint32())
				}
			}
			v, err := d.Decode(b)
			if err != nil {
				continue
			}
			if tg := v.Target(); Loadable(tg.Arch, 90) && tg.PTX <= 84 {
				cases = append(cases, domain.NewCase(name, v))
			}
		}
	}
	return cases
}

// Batched, the oracle gives every case the verdict it gets alone: the log
// is attributed to the right entries, and failures it cannot attribute
// are split until they can be.
func TestJITBatchingMatchesSingleCases(t *testing.T) {
	p := ptxas124(t)
	n := 120
	if testing.Short() {
		n = 40
	}
	cases := jitCases(t, n)
	var batchedLoads, singleLoads atomic.Int64
	batched := NewJITOracle(ptxasLoader{p, t.TempDir(), &batchedLoads}, "ptxas-as-jit", 90, 84)
	single := NewJITOracle(ptxasLoader{p, t.TempDir(), &singleLoads}, "ptxas-as-jit", 90, 84)
	single.BatchSize = 1
	ctx := context.Background()
	got, err := batched.Judge(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	want, err := single.Judge(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[oracles.Kind]int{}
	for i := range cases {
		if got[i].Case != cases[i].ID || !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("case %s (%s %v):\nbatched %+v\nalone   %+v", cases[i].ID, cases[i].Domain, cases[i].Value, got[i], want[i])
		}
		kinds[got[i].Kind]++
	}
	t.Logf("%d cases: %v; %d loads batched, %d alone", len(cases), kinds, batchedLoads.Load(), singleLoads.Load())
	if kinds[oracles.Accept] == 0 || kinds[oracles.Reject] == 0 {
		t.Errorf("the cases should have both accepts and rejects: %v", kinds)
	}
}

func TestParseJITLog(t *testing.T) {
	log := "ptxas application ptx input, line 12; error   : Instruction 'wgmma.fence' requires .target sm_90a\n" +
		"ptxas application ptx input, line 30; warning : Unused register %r7\n" +
		"ptxas error   : Entry function 'case_0011223344556677' uses too much shared data (0x40000 bytes, 0xe000 max)\n" +
		"ptxas application ptx input, line 2; error   : Unknown target\n" +
		"ptxas fatal   : Ptx assembly aborted due to errors\n"
	table := ptx.LineTable{HeaderLast: 3, Spans: []ptx.Span{{Entry: 0, First: 5, Last: 20}, {Entry: 1, First: 22, Last: 40}}}
	r := parseJITLog(log, table, map[string]int{"case_0011223344556677": 1})
	want := jitReport{
		errs: map[int][]string{
			0: {"error   : Instruction 'wgmma.fence' requires .target sm_90a"},
			1: {"error   : Entry function 'ENTRY' uses too much shared data (HEX bytes, HEX max)"},
		},
		stray: []string{"error   : Unknown target"},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("parsed\n%+v\nwant\n%+v", r, want)
	}
}

func TestLoadable(t *testing.T) {
	for _, tc := range []struct {
		arch string
		sm   int
		want bool
	}{
		{"sm_80", 90, true}, {"sm_90", 90, true}, {"sm_90a", 90, true}, {"sm_100a", 90, false},
		{"sm_90a", 100, false}, {"sm_100f", 103, true}, {"sm_103f", 100, false}, {"sm_100", 120, true},
		{"sm_120a", 120, true}, {"sm_100f", 120, false},
	} {
		a, err := target.ParseArch(tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		if got := Loadable(a, tc.sm); got != tc.want {
			t.Errorf("Loadable(%s, sm_%d) = %v, want %v", tc.arch, tc.sm, got, tc.want)
		}
	}
}

func TestMaxPTX(t *testing.T) {
	for v, want := range map[int]target.PTX{11080: 78, 12000: 80, 12040: 84, 12060: 85, 12080: 87, 12090: 88, 13000: 90,
		13020: 90, 10000: 70} {
		if got := MaxPTX(v); got != want {
			t.Errorf("MaxPTX(%d) = %s, want %s", v, got, want)
		}
	}
}

// Cases the device cannot load, or whose PTX version its driver does not
// know, are unsupported without a load.
func TestJITUnsupportedTargets(t *testing.T) {
	var loads atomic.Int64
	o := NewJITOracle(ptxasLoader{loads: &loads}, "fake", 90, 84)
	var cases []domain.Case
	for _, name := range ptx.Domains() {
		d, _ := fuzz.Lookup(name)
		for _, v := range d.Seeds() {
			if tg := v.Target(); !Loadable(tg.Arch, 90) || tg.PTX > 84 {
				cases = append(cases, domain.NewCase(name, v))
			}
		}
	}
	vs, err := o.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v.Kind != oracles.Unsupported || v.Diagnostic == "" {
			t.Fatalf("%s (%v): %+v", cases[i].ID, cases[i].Value.Target(), v)
		}
	}
	if n := loads.Load(); n != 0 {
		t.Fatalf("%d loads for cases it cannot judge", n)
	}
	t.Logf("%d seeds unsupported on an sm_90 device with driver 12.4", len(cases))
}
