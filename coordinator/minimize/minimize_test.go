package minimize

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Each makes a Predicate (for the tests) of a function that answers one value at a time.
func Each(f func(ctx context.Context, v domain.Value) (bool, error)) Predicate {
	return func(ctx context.Context, vs []domain.Value) ([]bool, error) {
		out := make([]bool, len(vs))
		for i, v := range vs {
			ok, err := f(ctx, v)
			if err != nil {
				return nil, err
			}
			out[i] = ok
		}
		return out, nil
	}
}

// firesRule is a predicate: the value's seed ladder fires rule id.
func firesRule(set rules.Set, domainName, id string) Predicate {
	return Each(func(_ context.Context, v domain.Value) (bool, error) {
		j, err := rules.JudgeValue(set, domainName, v)
		return err == nil && !j.Accept && j.Rule.ID == id, err
	})
}

// holds asks pred about one value.
func holds(pred Predicate, v domain.Value) bool {
	ok, err := pred(context.Background(), []domain.Value{v})
	return err == nil && ok[0]
}

// TestPlantedKindWord plants seed rule 10 (collector::a::use with ashift) in a
// cluttered instruction; the minimal instruction that still fires it has
// only the collector op and ashift set and everything else at zero.
func TestPlantedKindWord(t *testing.T) {
	v := kindword.Value{Kind: kindword.F16, CTAGroup: 1, WS: true, ATMem: true, ScaleInputAcc: true, ScaleInputD: 9,
		CollectorA: kindword.Use, AShift: true, ArchConditional: true, Tgt: target.MustParse("sm_100a", "")}
	pred := firesRule(rules.Seed, kindword.Name, "seed.kindword.10-collector-ashift")
	res, err := Minimize(context.Background(), kindword.Domain, v, pred, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Value.(kindword.Value)
	want := kindword.Value{Kind: kindword.I8, CollectorA: kindword.Fill, AShift: true, ArchConditional: true,
		Tgt: target.MustParse("sm_80", "")}
	// The rule needs use or fill (fill is smaller) and ashift, and no earlier
	// rule may fire: kind 0 (mxf4nvf4) is block-scaled, so with ashift rule 7
	// would fire first; i8 needs arch_conditional to pass rule 1.
	if got != want {
		t.Fatalf("minimized to %+v (%d steps, %d calls), want %+v", got, res.Steps, res.Calls, want)
	}
	if !holds(pred, got) {
		t.Fatal("the minimized case no longer fails")
	}
}

// TestMinimizeEveryDomain minimizes each domain's seeds that fire a ptxisa
// rule and checks the result still fires it, is canonical and is no larger.
func TestMinimizeEveryDomain(t *testing.T) {
	for _, d := range fuzz.Domains() {
		t.Run(d.Name, func(t *testing.T) {
			n := 0
			for _, v := range d.Seeds() {
				j, err := rules.JudgeValue(rules.PTXISA, d.Name, v)
				if err != nil || j.Accept || n == 3 {
					continue
				}
				n++
				pred := firesRule(rules.PTXISA, d.Name, j.Rule.ID)
				res, err := Minimize(context.Background(), d, v, pred, Options{Budget: 300})
				if err != nil {
					t.Fatalf("%s: %v", j.Rule.ID, err)
				}
				if !holds(pred, res.Value) {
					t.Fatalf("%s: minimized case no longer fires", j.Rule.ID)
				}
				if size(reflect.ValueOf(v)) < size(reflect.ValueOf(res.Value)) {
					t.Fatalf("%s: minimized case is larger", j.Rule.ID)
				}
			}
		})
	}
}

func TestNotFailing(t *testing.T) {
	v := kindword.Seeds()[1] // 0x42 arch-conditional: accepted
	_, err := Minimize(context.Background(), kindword.Domain, v, firesRule(rules.Seed, kindword.Name, "seed.kindword.1-int8-arch-conditional"), Options{})
	if !errors.Is(err, ErrNotFailing) {
		t.Fatalf("err = %v, want ErrNotFailing", err)
	}
}

// TestCacheAndBudget checks that repeated candidates are not re-asked and the
// budget bounds the calls.
func TestCacheAndBudget(t *testing.T) {
	calls := 0
	pred := Each(func(_ context.Context, v domain.Value) (bool, error) { calls++; return true, nil })
	v := kindword.Seeds()[0]
	res, err := Minimize(context.Background(), kindword.Domain, v, pred, Options{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	if calls != res.Calls || calls != 2 || !res.Exhausted {
		t.Fatalf("calls %d, result %+v: want exactly 2 calls and Exhausted", calls, res)
	}
	// Without a budget an always-failing case shrinks to the smallest value,
	// and no candidate is asked about twice.
	calls = 0
	res, err = Minimize(context.Background(), kindword.Domain, v, pred, Options{})
	if err != nil || calls != res.Calls || res.Exhausted || size(reflect.ValueOf(res.Value)) != 80+70 {
		t.Fatalf("calls %d, result %+v, %v: want the zero value on sm_80 (PTX 7.0)", calls, res, err)
	}
}

// TestRankMovesTowardLegal: a case that breaks two rules, minimized for a
// tool that lacks the check of one of them, ends breaking that one alone.
// Shrinking alone keeps both broken: the other rule is fixed only by a
// larger value. An s4 mma with .and.popc at PTX 7.0 breaks bit-op (only
// .b1 takes a bit op) and and-popc-ptx (.and.popc needs PTX 7.1): a later
// target, a larger value, has the PTX version. A bf16 m8n8k4 row.row mma
// breaks shape and layout (bf16 is row.col): B's layout must move up to
// col, a value the legal seeds give it.
// TestWindowsAskLessOften: asked a window of candidates at a time, the
// minimizer ends where one-at-a-time asking ends (the first failing
// candidate of each pass wins either way), in far fewer round trips.
func TestWindowsAskLessOften(t *testing.T) {
	v := kindword.Value{Kind: kindword.F16, CTAGroup: 1, WS: true, ATMem: true, ScaleInputAcc: true, ScaleInputD: 9,
		CollectorA: kindword.Use, AShift: true, ArchConditional: true, Tgt: target.MustParse("sm_100a", "")}
	fires := firesRule(rules.Seed, kindword.Name, "seed.kindword.10-collector-ashift")
	trips, asked := 0, 0
	windowed := func(ctx context.Context, vs []domain.Value) ([]bool, error) {
		trips, asked = trips+1, asked+len(vs)
		return fires(ctx, vs)
	}
	res, err := Minimize(context.Background(), kindword.Domain, v, windowed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	one := 0
	single := Each(func(ctx context.Context, v domain.Value) (bool, error) {
		one++
		ok, err := fires(ctx, []domain.Value{v})
		return err == nil && ok[0], err
	})
	want, err := Minimize(context.Background(), kindword.Domain, v, single, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != want.Value || res.Steps != want.Steps {
		t.Fatalf("windows ended at %+v in %d steps; one at a time at %+v in %d", res.Value, res.Steps, want.Value, want.Steps)
	}
	if asked != res.Calls || trips*3 > one {
		t.Errorf("windows: %d round trips for %d candidates (Calls %d); one at a time: %d; want a third of the trips at most", trips, asked, res.Calls, one)
	}
	t.Logf("windows: %d trips, %d candidates; one at a time: %d", trips, asked, one)
}

func TestRankMovesTowardLegal(t *testing.T) {
	firing := func(v domain.Value) []string {
		rs, err := rules.FiringRules(rules.PTXISA, mma.Name, v)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	rank := func(v domain.Value) int { return len(firing(v)) }
	for _, tc := range []struct{ json, lacks, other string }{
		{`{"shape": [8, 8, 32], "a_type": "s4", "bit_op": "and", "target": "sm_80", "ptx": "7.0"}`, "ptxisa.mma.bit-op", "ptxisa.mma.and-popc-ptx"},
		{`{"shape": [8, 8, 4], "a_type": "bf16", "a_layout": "row", "b_layout": "row", "target": "sm_80"}`, "ptxisa.mma.shape", "ptxisa.mma.layout"},
	} {
		v, err := mma.ParseJSON([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := firing(v); !slices.Equal(got, []string{tc.lacks, tc.other}) {
			t.Fatalf("the planted case breaks %v", got)
		}
		lacks := Each(func(_ context.Context, v domain.Value) (bool, error) {
			return slices.Contains(firing(v), tc.lacks), nil
		})
		res, err := Minimize(context.Background(), mma.Domain, v, lacks, Options{Rank: rank})
		if err != nil {
			t.Fatal(err)
		}
		if got := firing(res.Value); !slices.Equal(got, []string{tc.lacks}) {
			t.Errorf("minimized %s to %v, which breaks %v; want %s alone", tc.json, res.Value, got, tc.lacks)
		}
	}
}
