// Package minimize shrinks a failing case to a smaller one that still fails
// the same way. It is a pure function of (value, predicate, budget): it
// caches predicate answers by case ID, removes whole parts first, then
// shrinks single fields toward zero, one and halves. Given a rank (the
// rules a value breaks) it prefers a candidate that breaks fewer before a
// smaller one, and also moves fields to the values legal seeds give them,
// so that a minimized case breaks no rule it need not. It knows domain values
// only as the plain structs every domain uses (numbers, bools, fixed arrays,
// nested structs), plus an optional Shrinker hook for structural shrinks.
package minimize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Predicate reports, for each candidate, whether it still shows the
// failure (the same signature). It is asked about several candidates at a
// time: a judge a round trip away (a worker over NATS) answers a window of
// them in one job rather than one job each. Its error aborts minimization
// (a harness failure, not "no").
type Predicate func(ctx context.Context, vs []domain.Value) ([]bool, error)

// Shrinker is implemented by domain values that know structural shrinks the
// generic field walk cannot find (dropping a role or an op of a schedule).
type Shrinker interface {
	Shrinks() []domain.Value
}

// Options bound a minimization.
type Options struct {
	// Budget is the most candidates the predicate is asked about; zero
	// means 500.
	Budget int
	// Rank, when set, counts what is wrong with a value besides its size
	// (the rules it breaks). The walk then orders values by rank before
	// size, and also tries each field at each value it takes in the
	// domain's seeds of rank zero: a field moves to a legal value though
	// that value is not smaller.
	Rank func(domain.Value) int
	// Keep, when set, is a constraint of the caller's that a candidate must
	// meet before the predicate is asked (a rule the case must keep
	// breaking): it costs no predicate call.
	Keep func(domain.Value) bool
}

// Result is a minimization's outcome.
type Result struct {
	Value domain.Value
	// Steps is how many candidates were accepted (each made the value smaller).
	Steps int
	// Calls counts the candidates the predicate was asked about (cache
	// hits excluded).
	Calls int
	// Exhausted is set when the budget ran out before a fixed point.
	Exhausted bool
}

// ErrNotFailing means the original value does not fail: nothing to minimize.
var ErrNotFailing = errors.New("the original case does not fail (any more)")

// Minimize shrinks v while pred holds. It first re-checks that v fails.
func Minimize(ctx context.Context, d domain.Domain, v domain.Value, pred Predicate, opts Options) (Result, error) {
	m := &minimizer{d: d, pred: pred, budget: opts.Budget, cache: map[string]bool{}, rank: opts.Rank, keep: opts.Keep}
	if m.budget == 0 {
		m.budget = 500
	}
	if m.rank == nil {
		m.rank = func(domain.Value) int { return 0 }
	} else {
		m.legal = legalValuesOf(d, m.rank)
	}
	ok, err := m.test(ctx, v)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{Value: v, Calls: m.calls}, ErrNotFailing
	}
	res := Result{Value: v}
	for {
		next, err := m.pass(ctx, res.Value)
		if err != nil {
			return res, err
		}
		if next == nil {
			break
		}
		res.Value, res.Steps = next, res.Steps+1
	}
	res.Calls, res.Exhausted = m.calls, m.calls >= m.budget
	return res, nil
}

type minimizer struct {
	d      domain.Domain
	pred   Predicate
	budget int
	calls  int
	cache  map[string]bool
	rank   func(domain.Value) int
	keep   func(domain.Value) bool
	legal  legalValues
}

// test answers the predicate for v, from the cache when it can.
func (m *minimizer) test(ctx context.Context, v domain.Value) (bool, error) {
	ok, err := m.testAll(ctx, []domain.Value{v})
	if err != nil {
		return false, err
	}
	return ok[0], nil
}

// testAll answers the predicate for each of vs: from the cache where it
// can, the rest in one call while the budget lasts (past it, "no").
func (m *minimizer) testAll(ctx context.Context, vs []domain.Value) ([]bool, error) {
	ids := make([]string, len(vs))
	var ask []domain.Value
	var askIDs []string
	for i, v := range vs {
		ids[i] = domain.ID(m.d.Name, v.Encode())
		if _, seen := m.cache[ids[i]]; !seen && !slices.Contains(askIDs, ids[i]) && m.calls+len(ask) < m.budget {
			ask, askIDs = append(ask, v), append(askIDs, ids[i])
		}
	}
	if len(ask) > 0 {
		m.calls += len(ask)
		got, err := m.pred(ctx, ask)
		if err == nil && len(got) != len(ask) {
			err = fmt.Errorf("%d answers for %d candidates", len(got), len(ask))
		}
		if err != nil {
			return nil, fmt.Errorf("predicate: %w", err)
		}
		for i, id := range askIDs {
			m.cache[id] = got[i]
		}
	}
	out := make([]bool, len(vs))
	for i, id := range ids {
		out[i] = m.cache[id]
	}
	return out, nil
}

// Candidate windows: pass asks about the next window of candidates at a
// time and takes the first that still fails, as if it had asked one by
// one. The window starts small, since a step often succeeds early, and
// doubles after each window in which none did: a fixed point, where every
// candidate is asked, costs a few round trips rather than one each.
const (
	firstWindow = 4
	maxWindow   = 32
)

// pass tries the candidates smaller than v, smallest first, and returns the
// first that still fails, or nil at a fixed point.
func (m *minimizer) pass(ctx context.Context, v domain.Value) (domain.Value, error) {
	var cands []domain.Value
	if s, ok := v.(Shrinker); ok {
		cands = append(cands, s.Shrinks()...)
	}
	cands = append(cands, fieldCandidates(v)...)
	cands = append(cands, m.legal.candidates(v)...)
	cands = m.smallestFirst(v, cands)
	for window := firstWindow; len(cands) > 0; window = min(2*window, maxWindow) {
		if m.calls >= m.budget {
			return nil, nil
		}
		win := cands[:min(window, len(cands))]
		cands = cands[len(win):]
		fails, err := m.testAll(ctx, win)
		if err != nil {
			return nil, err
		}
		if i := slices.Index(fails, true); i >= 0 {
			return win[i], nil
		}
	}
	return nil, nil
}

// smallestFirst keeps the real candidates below v, lowest first, in the
// order of (rank, size) (structural ones before field shrinks of the same
// order): the greedy walk then takes the largest step that still fails, so
// its result does not hang on the order of the value's fields, which the
// domain's byte layout fixes. (Taking the first field that shrinks,
// kindword dropped arch_conditional before scale_input_d and stopped at a
// larger minimum.) Every step lowers (rank, size), so the walk ends.
func (m *minimizer) smallestFirst(v domain.Value, cands []domain.Value) []domain.Value {
	type ranked struct {
		v          domain.Value
		rank, size uint64
	}
	order := func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.size, b.size))
	}
	at := ranked{v, uint64(m.rank(v)), size(reflect.ValueOf(v))}
	var out []ranked
	for _, c := range cands {
		if c, ok := m.canonical(c); ok && (m.keep == nil || m.keep(c)) {
			if r := (ranked{c, uint64(m.rank(c)), size(reflect.ValueOf(c))}); order(r, at) < 0 {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, order)
	vs := make([]domain.Value, len(out))
	for i, r := range out {
		vs[i] = r.v
	}
	return vs
}

// canonical re-decodes a candidate: only values the domain can encode and
// decode back to themselves are real cases.
func (m *minimizer) canonical(c domain.Value) (domain.Value, bool) {
	if _, err := domain.RoundTrip(m.d, c); err != nil {
		return nil, false
	}
	return c, true
}

// size is a value's size: the sum of its fields' magnitudes (numbers, set
// bools), so every accepted step makes progress.
func size(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n < 0 {
			return uint64(-n)
		} else {
			return uint64(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Array:
		var s uint64
		for i := range v.Len() {
			s += size(v.Index(i))
		}
		return s
	case reflect.Struct:
		var s uint64
		for i := range v.NumField() {
			s += size(v.Field(i))
		}
		return s
	}
	return 0
}
