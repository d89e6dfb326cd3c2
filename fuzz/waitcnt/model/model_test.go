package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
)

var (
	op = wc.Op
	w  = wc.WaitOn
)

// vm, lgkm and exp build an s_waitcnt naming one counter.
func vm(n int) wc.Waitcnt   { x := wc.NoWait; x[wc.VM] = n; return x }
func lgkm(n int) wc.Waitcnt { x := wc.NoWait; x[wc.LGKM] = n; return x }
func exp(n int) wc.Waitcnt  { x := wc.NoWait; x[wc.Exp] = n; return x }

// TestKnownAnswers pins the model on programs whose answers follow from the
// ISA's ordering rules by hand: which thresholds are sound, and the best one.
func TestKnownAnswers(t *testing.T) {
	both := wc.NoWait
	both[wc.Exp], both[wc.LGKM] = 0, 0
	for _, tc := range []struct {
		name   string
		gpu    wc.GPU
		items  []wc.Item
		waits  []wc.Waitcnt
		sound  []bool
		best   []wc.Waitcnt
		causes []string // of each wait's first miss, "" when sound
	}{
		{"in-order VMEM loads: vmcnt(3) waits for the oldest of four", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMLoad), op(wc.VMEMLoad), op(wc.VMEMLoad), w(0)},
			[]wc.Waitcnt{vm(3)}, []bool{true}, []wc.Waitcnt{vm(3)}, []string{""}},
		{"vmcnt(4) there waits for nothing", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMLoad), op(wc.VMEMLoad), op(wc.VMEMLoad), w(0)},
			[]wc.Waitcnt{vm(4)}, []bool{false}, []wc.Waitcnt{vm(3)}, []string{"other-stream"}},
		{"stores share the in-order vmcnt stream on gfx9", wc.GFX90A,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMStore), op(wc.VMEMStore), w(0)},
			[]wc.Waitcnt{vm(2)}, []bool{true}, []wc.Waitcnt{vm(2)}, []string{""}},
		{"mixed LDS+SMEM with lgkmcnt(1): unsound", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.SMEM), w(0)},
			[]wc.Waitcnt{lgkm(1)}, []bool{false}, []wc.Waitcnt{lgkm(0)}, []string{"other-stream"}},
		{"mixed LDS+SMEM with lgkmcnt(0): sound", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.SMEM), w(0)},
			[]wc.Waitcnt{lgkm(0)}, []bool{true}, []wc.Waitcnt{lgkm(0)}, []string{""}},
		{"LDS with a younger LDS and SMEM: lgkmcnt(1) is enough (LLVM's TODO)", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.LDS), op(wc.SMEM), w(0)},
			[]wc.Waitcnt{lgkm(1)}, []bool{true}, []wc.Waitcnt{lgkm(1)}, []string{""}},
		{"SMEM alone is unordered", wc.GFX942,
			[]wc.Item{op(wc.SMEM), op(wc.SMEM), w(0)},
			[]wc.Waitcnt{lgkm(1)}, []bool{false}, []wc.Waitcnt{lgkm(0)}, []string{"smem-unordered"}},
		{"an older SMEM does not hurt a younger LDS", wc.GFX942,
			[]wc.Item{op(wc.SMEM), op(wc.LDS), op(wc.LDS), w(1)},
			[]wc.Waitcnt{lgkm(1)}, []bool{true}, []wc.Waitcnt{lgkm(1)}, []string{""}},
		{"GDS needs expcnt too", wc.GFX942,
			[]wc.Item{op(wc.GDS), w(0)},
			[]wc.Waitcnt{lgkm(0)}, []bool{false}, []wc.Waitcnt{both}, []string{"gds-expcnt"}},
		{"GDS with both counters", wc.GFX942,
			[]wc.Item{op(wc.GDS), w(0)},
			[]wc.Waitcnt{both}, []bool{true}, []wc.Waitcnt{both}, []string{""}},
		{"exports in order", wc.GFX908,
			[]wc.Item{op(wc.Export), op(wc.Export), op(wc.Export), w(0)},
			[]wc.Waitcnt{exp(2)}, []bool{true}, []wc.Waitcnt{exp(2)}, []string{""}},
		{"an export and a GDS lock are unordered", wc.GFX908,
			[]wc.Item{op(wc.Export), op(wc.GDS), w(0)},
			[]wc.Waitcnt{exp(1)}, []bool{false}, []wc.Waitcnt{exp(0)}, []string{"other-stream"}},
		{"an earlier wait covers a later one", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMLoad), w(1), w(0)},
			[]wc.Waitcnt{vm(0), vm(1)}, []bool{true, true}, []wc.Waitcnt{vm(0), wc.NoWait}, []string{"", ""}},
		{"an earlier unsound wait leaves the later one to wait", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.SMEM), w(0), w(0)},
			[]wc.Waitcnt{lgkm(1), lgkm(0)}, []bool{false, true}, []wc.Waitcnt{lgkm(0), lgkm(0)}, []string{"other-stream", ""}},
		{"thresholds above the field width are judged as numbers", wc.GFX942,
			append(wc.Ops(wc.LDS, 17), w(0)),
			[]wc.Waitcnt{lgkm(16)}, []bool{true}, []wc.Waitcnt{lgkm(15)}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(wc.MustBuild(tc.gpu, tc.items...))
			res, err := p.Check(tc.waits)
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range res.Waits {
				cause := ""
				if len(r.Misses) > 0 {
					cause = r.Misses[0].Cause()
				}
				if r.Sound() != tc.sound[k] || r.Best != tc.best[k] || cause != tc.causes[k] {
					t.Errorf("wait %d (%v): sound=%v best=%v cause=%q, want %v %v %q (misses %+v)",
						k, r.Emitted, r.Sound(), r.Best, cause, tc.sound[k], tc.best[k], tc.causes[k], r.Misses)
				}
			}
			ex, err := p.Explore(tc.waits, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			for k := range tc.waits {
				if (ex.Incomplete[k] == 0) != tc.sound[k] {
					t.Errorf("wait %d: brute force leaves %b incomplete (%v)", k, ex.Incomplete[k], ex.Traces[k])
				}
			}
		})
	}
}

// TestWitnessTrace checks the brute force's witness on the seed's point.
func TestWitnessTrace(t *testing.T) {
	p := New(wc.MustBuild(wc.GFX942, op(wc.LDS), op(wc.SMEM), w(0)))
	ex, err := p.Explore([]wc.Waitcnt{lgkm(1)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"issue t0 (lds)", "issue t1 (smem)", "t1 (smem) completes on lgkmcnt", "s_waitcnt lgkmcnt(1) returns"}
	if fmt.Sprint(ex.Traces[0]) != fmt.Sprint(want) {
		t.Fatalf("trace %q, want %q", ex.Traces[0], want)
	}
}

// TestClosedFormMatchesBruteForce compares Check with Explore on random small
// programs with random thresholds. Set WAITCNT_SEED to replay a seed.
func TestClosedFormMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(domaintest.Seed(t, "WAITCNT_SEED", 1), 7))
	for range domaintest.Iterations(3000, 300) {
		buf := domaintest.Input(rng, 24)
		buf[1] = byte(rng.IntN(12))
		dv, _ := wc.Decode(buf)
		v := dv.(wc.Value)
		p := New(v)
		waits := make([]wc.Waitcnt, len(p.WaitPos))
		for k := range waits {
			waits[k] = wc.Waitcnt{rng.IntN(4), rng.IntN(3), rng.IntN(4)}
		}
		res, err := p.Check(waits)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := p.Explore(waits, 1<<18)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		for k, r := range res.Waits {
			var closed uint32
			for _, m := range r.Misses {
				closed |= 1 << m.Token
			}
			if closed != ex.Incomplete[k] {
				t.Fatalf("%v with %v: wait %d closed form %b, brute force %b (%v)", v, waits, k, closed, ex.Incomplete[k], ex.Traces[k])
			}
		}
	}
}

// TestEventsOf pins which counters each kind counts on.
func TestEventsOf(t *testing.T) {
	want := map[wc.Kind]string{
		wc.VMEMLoad: "[{vmcnt vmem}]", wc.VMEMStore: "[{vmcnt vmem}]", wc.LDS: "[{lgkmcnt lds}]",
		wc.SMEM: "[{lgkmcnt smem}]", wc.GDS: "[{lgkmcnt gds} {expcnt gds-lock}]",
		wc.Message: "[{lgkmcnt msg}]", wc.Export: "[{expcnt export}]",
	}
	for k, s := range want {
		if got := fmt.Sprint(EventsOf(k)); got != s {
			t.Errorf("%v: %s, want %s", k, got, s)
		}
	}
}

func TestCheckCountMismatch(t *testing.T) {
	p := New(wc.MustBuild(wc.GFX942, op(wc.LDS), w(0)))
	if _, err := p.Check(nil); err == nil {
		t.Fatal("Check with no s_waitcnt for one wait succeeded")
	}
	if _, err := p.Explore(nil, 10); err == nil {
		t.Fatal("Explore with no s_waitcnt for one wait succeeded")
	}
}
