package lower

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
)

var (
	op = wc.Op
	w  = wc.WaitOn
)

// TestLowerKnownAnswers pins the lowering's s_waitcnts and the model's
// verdict on them: the blind spots are findings, recorded here as such.
func TestLowerKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gpu     wc.GPU
		items   []wc.Item
		lowered string // wc.Format of the lowering
		sound   bool
	}{
		{"in-order VMEM loads: threshold N is exact", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMLoad), op(wc.VMEMLoad), w(0), w(2)},
			"s_waitcnt vmcnt(2);0x0f72 | s_waitcnt vmcnt(0);0x0f70", true},
		{"VMEM stores count on vmcnt", wc.GFX942,
			[]wc.Item{op(wc.VMEMStore), op(wc.VMEMLoad), w(0)}, "s_waitcnt vmcnt(1);0x0f71", true},
		{"one LGKM kind is in order", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.LDS), w(0)}, "s_waitcnt lgkmcnt(1);0xc17f", true},
		{"finding: mixed LDS+SMEM with lgkmcnt(1)", wc.GFX942,
			[]wc.Item{op(wc.LDS), op(wc.SMEM), w(0)}, "s_waitcnt lgkmcnt(1);0xc17f", false},
		{"finding: SMEM trusted to be in order", wc.GFX942,
			[]wc.Item{op(wc.SMEM), op(wc.SMEM), w(0)}, "s_waitcnt lgkmcnt(1);0xc17f", false},
		{"finding: a message counted as if ordered with LDS", wc.GFX942,
			[]wc.Item{op(wc.Message), op(wc.LDS), w(0)}, "s_waitcnt lgkmcnt(1);0xc17f", false},
		{"finding: GDS's expcnt side forgotten", wc.GFX942,
			[]wc.Item{op(wc.GDS), w(0)}, "s_waitcnt lgkmcnt(0);0xc07f", false},
		{"two counters in one wait", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.LDS), op(wc.VMEMLoad), w(0, 1)}, "s_waitcnt vmcnt(1) lgkmcnt(0);0x0071", true},
		{"redundant second wait still emitted", wc.GFX942,
			[]wc.Item{op(wc.VMEMLoad), op(wc.VMEMLoad), w(1), w(0)}, "s_waitcnt vmcnt(0);0x0f70 | s_waitcnt vmcnt(1);0x0f71", true},
		{"exports on expcnt", wc.GFX908,
			[]wc.Item{op(wc.Export), op(wc.Export), w(0)}, "s_waitcnt expcnt(1);0xcf1f", true},
		{"not clamped: lgkmcnt(16) has no encoding", wc.GFX942,
			append(wc.Ops(wc.LDS, 17), w(0)), "s_waitcnt lgkmcnt(16);invalid", true},
		{"not clamped: expcnt(8)", wc.GFX908,
			append(wc.Ops(wc.Export, 9), w(0)), "s_waitcnt expcnt(8);invalid", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := wc.MustBuild(tc.gpu, tc.items...)
			waits := Lower(v)
			if got := wc.Format(waits); got != tc.lowered {
				t.Errorf("lowered %q, want %q", got, tc.lowered)
			}
			res, err := model.New(v).Check(waits)
			if err != nil {
				t.Fatal(err)
			}
			if res.Sound() != tc.sound {
				t.Errorf("sound=%v, want %v: %+v", res.Sound(), tc.sound, res.Waits)
			}
		})
	}
}

// TestSmallestFindings enumerates every program of two operations and one
// wait on gfx942, and checks that the unsound ones are exactly those the
// model's ordering rules predict: a wait on an older LGKM event while a
// younger one of another stream (or SMEM) is outstanding, and any wait on GDS.
func TestSmallestFindings(t *testing.T) {
	kinds := []wc.Kind{wc.VMEMLoad, wc.VMEMStore, wc.LDS, wc.SMEM, wc.GDS, wc.Message}
	var found []string
	for _, a := range kinds {
		for _, b := range kinds {
			for mask := 1; mask < 4; mask++ {
				it := wc.Item{Wait: true, Tokens: uint32(mask)}
				v := wc.MustBuild(wc.GFX942, op(a), op(b), it)
				res, err := model.New(v).Check(Lower(v))
				if err != nil {
					t.Fatal(err)
				}
				lgkm := CounterOf(a) == wc.LGKM && CounterOf(b) == wc.LGKM
				want := a == wc.GDS && mask&1 != 0 || b == wc.GDS && mask&2 != 0 ||
					lgkm && mask == 1 && (a != b || a == wc.SMEM)
				if res.Sound() == want {
					t.Errorf("%v: sound=%v", v, res.Sound())
				}
				if !res.Sound() {
					found = append(found, fmt.Sprintf("%v -> %v (%s)", v, Lower(v)[0], res.Waits[0].Misses[0].Cause()))
				}
			}
		}
	}
	t.Logf("%d unsound programs of two operations and one wait:\n%s", len(found), strings.Join(found, "\n"))
}

// TestWaitAll checks the seed's baseline is sound except on GDS (whose
// expcnt side it forgets too) and never waits less than Lower.
func TestWaitAll(t *testing.T) {
	for _, sv := range wc.Seeds() {
		v := sv.(wc.Value)
		all, seq := WaitAll(v), Lower(v)
		res, _ := model.New(v).Check(all)
		gds := false
		for _, k := range v.Ops() {
			gds = gds || k == wc.GDS
		}
		if !res.Sound() && !gds {
			t.Errorf("%v: wait-all %v unsound", v, all)
		}
		for k := range all {
			for c := range all[k] {
				if all[k][c] > seq[k][c] {
					t.Errorf("%v: wait-all %v waits less than %v", v, all[k], seq[k])
				}
			}
		}
	}
}

// TestLoweringFigures measures the lowering on random programs: how often it
// is unsound (by cause), out of range, and how far its sound waits
// over-synchronize against the best sound thresholds, next to the seed's
// wait-all baseline. It asserts nothing beyond consistency; run with -v for
// the figures. Set WAITCNT_SEED to change the programs.
func TestLoweringFigures(t *testing.T) {
	seed := domaintest.Seed(t, "WAITCNT_SEED", 3)
	rng := rand.New(rand.NewPCG(seed, 11))
	var seqF, allF figures
	for range domaintest.Iterations(20000, 2000) {
		dv, _ := wc.Decode(domaintest.Input(rng, 40))
		v := dv.(wc.Value)
		if !v.GPU.HasExport() && slices.Contains(v.Ops(), wc.Export) {
			continue // no such program: ptxisa.waitcnt.export-gpu
		}
		seqF.add(t, v, Lower(v))
		allF.add(t, v, WaitAll(v))
	}
	t.Logf("seed %d, %d programs\nsequence-number lowering: %s\nwait-all baseline:         %s", seed, seqF.programs, seqF, allF)
}

// figures accumulates one lowering's statistics.
type figures struct {
	programs, unsoundPrograms, outOfRange   int
	waits, soundWaits, overWaits, redundant int
	unneeded, excess                        int
	causes                                  map[string]int
}

func (f *figures) add(t *testing.T, v wc.Value, waits []wc.Waitcnt) {
	t.Helper()
	res, err := model.New(v).Check(waits)
	if err != nil {
		t.Fatal(err)
	}
	if f.causes == nil {
		f.causes = map[string]int{}
	}
	f.programs++
	if !res.Sound() {
		f.unsoundPrograms++
	}
	for _, r := range res.Waits {
		f.waits++
		if !r.Emitted.InRange() {
			f.outOfRange++
			continue
		}
		if !r.Sound() {
			f.causes[r.Misses[0].Cause()]++
			continue
		}
		f.soundWaits++
		x := r.Excess()
		if s := x[0] + x[1] + x[2]; s > 0 {
			f.overWaits++
			f.excess += s
		}
		if r.Redundant() {
			f.redundant++
		} else if len(r.Unneeded()) > 0 {
			f.unneeded++
		}
	}
}

func (f figures) String() string {
	var cs []string
	for c, n := range f.causes {
		cs = append(cs, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(cs)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	return fmt.Sprintf("unsound programs %.1f%%; waits %d: out of range %d, unsound %d (%s); "+
		"sound %d, of which over-synchronized %.1f%% (mean excess %.2f operations), redundant %.1f%%, "+
		"naming an unneeded counter %.1f%%",
		pct(f.unsoundPrograms, f.programs), f.waits, f.outOfRange, f.waits-f.outOfRange-f.soundWaits,
		strings.Join(cs, ", "), f.soundWaits, pct(f.overWaits, f.soundWaits),
		float64(f.excess)/float64(max(f.overWaits, 1)), pct(f.redundant, f.soundWaits), pct(f.unneeded, f.soundWaits))
}
