package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// fake is an in-memory tool over ints: a negative item is rejected, 0
// crashes the run (a suspect when stops is set, else nothing decided), and
// with stops the run ends at the first rejection, as llc does. It keeps
// the runs it was given and how many were under way at most.
type fake struct {
	stops bool
	// hold, when set, keeps each run under way that long, so runs overlap.
	hold time.Duration

	mu            sync.Mutex
	runs          [][]int
	busy, maxBusy int
}

func (f *fake) Render(items []int) ([]int, error) { return items, nil }

func (f *fake) Run(ctx context.Context, in []int) ([]int, error) {
	f.mu.Lock()
	f.runs = append(f.runs, in)
	f.busy++
	f.maxBusy = max(f.maxBusy, f.busy)
	f.mu.Unlock()
	time.Sleep(f.hold)
	f.mu.Lock()
	f.busy--
	f.mu.Unlock()
	return in, ctx.Err()
}

func (f *fake) Parse(in, _ []int) Report {
	var r Report
	for pos, x := range in {
		switch {
		case x == 0 && len(in) == 1:
			r.Decide(pos, Outcome{Kind: oracles.Error})
			return r
		case x == 0 && f.stops:
			r.Suspects = []int{pos}
			return r
		case x == 0:
			return Report{}
		case x < 0:
			r.Decide(pos, Outcome{Kind: oracles.Reject})
			if f.stops {
				return r
			}
		default:
			r.Decide(pos, Outcome{Kind: oracles.Accept})
		}
	}
	return r
}

func kinds(outs []Outcome) []oracles.Kind {
	ks := make([]oracles.Kind, len(outs))
	for i, o := range outs {
		ks[i] = o.Kind
	}
	return ks
}

const (
	A = oracles.Accept
	R = oracles.Reject
	E = oracles.Error
)

// TestDecide: every item gets the outcome its own run would give, and the
// number of runs follows from the tool's mode.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stops bool
		items []int
		opts  Options
		want  []oracles.Kind
		runs  int
	}{
		{"all accepted", false, []int{1, 2, 3}, Options{}, []oracles.Kind{A, A, A}, 1},
		{"reports all", false, []int{1, -2, 3, -4}, Options{}, []oracles.Kind{A, R, A, R}, 1},
		{"stops at first", true, []int{1, -2, 3, -4, 5}, Options{}, []oracles.Kind{A, R, A, R, A}, 3},
		{"crash cuts the run", false, []int{1, 0, 3, 4}, Options{}, []oracles.Kind{A, E, A, A}, 5},
		{"suspect runs alone", true, []int{1, 0, 3}, Options{}, []oracles.Kind{A, E, A}, 3},
		{"batch size", false, []int{1, 2, 3, 4, 5}, Options{MaxBatch: 2}, []oracles.Kind{A, A, A, A, A}, 3},
		{"one per run", false, []int{1, -2}, Options{MaxBatch: 1}, []oracles.Kind{A, R}, 2},
		{"empty", false, nil, Options{}, []oracles.Kind{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{stops: tc.stops}
			outs, err := Decide(context.Background(), f, tc.items, nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(outs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("outcomes %v, want %v", got, tc.want)
			}
			if len(f.runs) != tc.runs {
				t.Errorf("%d runs %v, want %d", len(f.runs), f.runs, tc.runs)
			}
		})
	}
}

// TestPlanByPrediction: expected accepts run apart from the rest for a tool
// that reports all, ahead of them for one that stops at the first error;
// a wrong prediction costs a run, not an outcome.
func TestPlanByPrediction(t *testing.T) {
	items := []int{-1, 2, -3, 4}
	expect := []oracles.Kind{R, A, R, R} // 4 is mispredicted
	f := &fake{}
	outs, err := Decide(context.Background(), f, items, expect, Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(outs); !reflect.DeepEqual(got, []oracles.Kind{R, A, R, A}) {
		t.Errorf("outcomes %v", got)
	}
	if want := [][]int{{2}, {-1, -3, 4}}; !reflect.DeepEqual(f.runs, want) {
		t.Errorf("runs %v, want %v", f.runs, want)
	}
	f = &fake{stops: true}
	if _, err := Decide(context.Background(), f, items, expect, Options{Mode: StopsAtFirst, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{2, -1, -3, 4}, {-3}, {4}}; !reflect.DeepEqual(f.runs, want) {
		t.Errorf("runs %v, want %v", f.runs, want)
	}
}

// TestDecideParallel: independent runs are under way together, never more
// than Options.Parallel, and decide what they decide one after another.
func TestDecideParallel(t *testing.T) {
	items := []int{1, -2, 3, 0, 5, -6, 7, 8}
	want, err := Decide(context.Background(), &fake{}, items, nil, Options{MaxBatch: 2, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{2, 3} {
		f := &fake{hold: 50 * time.Millisecond}
		got, err := Decide(context.Background(), f, items, nil, Options{MaxBatch: 2, Parallel: p})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parallel %d: outcomes %v, one at a time %v", p, kinds(got), kinds(want))
		}
		if f.maxBusy != p {
			t.Errorf("parallel %d: at most %d runs under way", p, f.maxBusy)
		}
	}
}

// TestEngineGroupsParallel: the groups of a Judge run side by side, each
// case still gets its own verdict, in order.
func TestEngineGroupsParallel(t *testing.T) {
	var cases []domain.Case
	for i := range 6 {
		cases = append(cases, domain.NewCase(cpasync.Name, cpasync.Value{SrcElements: uint8(i)}))
	}
	f := &fake{hold: 50 * time.Millisecond}
	e := &Engine[int, []int, []int]{Oracle: "fake", Tool: caseTool{f}, Options: Options{Parallel: 3}}
	vs, err := e.Judge(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if want := []oracles.Kind{R, A}[i%2]; v.Case != cases[i].ID || v.Kind != want {
			t.Errorf("case %d: %s %s, want %s %s", i, v.Case, v.Kind, cases[i].ID, want)
		}
	}
	if f.maxBusy != 3 || len(f.runs) != 6 {
		t.Errorf("%d runs, at most %d under way; want 6 groups of one run, 3 at once", len(f.runs), f.maxBusy)
	}
}

// caseTool prepares case i of TestEngineGroupsParallel as item ±(i+1), in
// a group of its own: odd sizes rejected.
type caseTool struct{ *fake }

func (c caseTool) Prepare(dc domain.Case) (Prepared[int], error) {
	n := int(dc.Value.(cpasync.Value).SrcElements) + 1
	if n%2 == 1 {
		n = -n
	}
	return Prepared[int]{Item: n, Group: fmt.Sprint(n)}, nil
}

// TestDecideCancelled: a cancelled context is an error, not outcomes.
func TestDecideCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Decide(ctx, &fake{}, []int{1}, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

// TestProbesPersist: an answer put by one cache is on disk once saved, and
// read by the next one of the same tool, not by another version's.
func TestProbesPersist(t *testing.T) {
	t.Setenv(CacheDirEnv, t.TempDir())
	p := OpenProbes("ptxas", "12.4.131", "/bin/ptxas")
	p.Put("header sm_90", []string{"error"})
	var got []string
	if OpenProbes("ptxas", "12.4.131", "/bin/ptxas").Get("header sm_90", &got) {
		t.Fatal("an answer reached the disk before Save")
	}
	p.Save()
	if !OpenProbes("ptxas", "12.4.131", "/bin/ptxas").Get("header sm_90", &got) || !reflect.DeepEqual(got, []string{"error"}) {
		t.Fatalf("not persisted: %v", got)
	}
	if OpenProbes("ptxas", "13.0.48", "/bin/ptxas").Get("header sm_90", &got) {
		t.Fatal("another version read the answer")
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv(CacheDirEnv), "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
}

// TestHistoryLearns: a case spec/ptxisa rejects is expected rejected until
// the tool has accepted most cases of its rule; the history outlives the
// oracle in the probe cache, and a nil History predicts from spec alone.
func TestHistoryLearns(t *testing.T) {
	t.Setenv(CacheDirEnv, t.TempDir())
	c := unitStrideCase(t)
	h := OpenProbes("llc22", "22.1.8", "/bin/llc").History()
	k, rule := h.Predict(c)
	if k != R || rule != "ptxisa.cpasync.unit-stride" {
		t.Fatalf("fresh history predicts %q for rule %q, want reject for ptxisa.cpasync.unit-stride", k, rule)
	}
	h.Observe(rule, A)
	h.Observe(rule, R)
	if k, _ := h.Predict(c); k != R {
		t.Errorf("one accept, one reject: predicted %q, want reject", k)
	}
	h.Observe(rule, A)
	if k, _ := h.Predict(c); k != A {
		t.Errorf("two accepts, one reject: predicted %q, want accept", k)
	}
	h.Save()
	if k, _ := OpenProbes("llc22", "22.1.8", "/bin/llc").History().Predict(c); k != A {
		t.Errorf("reopened history predicts %q, want accept", k)
	}
	if k, _ := OpenProbes("llc22", "22.1.9", "/bin/llc").History().Predict(c); k != R {
		t.Errorf("another version's history predicts %q, want reject", k)
	}
	var none *History
	none.Observe(rule, A)
	if k, _ := none.Predict(c); k != R {
		t.Errorf("nil history predicts %q, want reject", k)
	}
}

// unitStrideCase is a cp.async whose source is not unit-stride: spec/ptxisa
// rejects it for ptxisa.cpasync.unit-stride, which llc and ptxas never check.
func unitStrideCase(t *testing.T) domain.Case {
	t.Helper()
	v, err := cpasync.ParseJSON([]byte(`{"src_stride": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewCase(cpasync.Name, v)
}
