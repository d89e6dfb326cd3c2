package coordinator

import (
	"context"
	"slices"

	"github.com/legalfuzz/legalfuzz/coordinator/minimize"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// witnesses finds the minimized cases of one bucket: cases that break as
// few spec/ptxisa rules as the tool's wrong verdict allows, one rule each
// where it can (issue 36). spec/ptxisa names only the first rule a case
// breaks, so a case that breaks several and that the tool accepts says
// nothing of which check it lacks; a witness per rule does.
type witnesses struct {
	panel oracles.Panel
	b     store.Bucket
	d     domain.Domain
	// shown caches, by case ID, whether a case shows the bucket's
	// behaviour: the per-rule minimizations meet the same candidates.
	shown map[string]bool
}

// witness is a minimized case and the one rule it breaks ("" when it
// breaks none, or several).
type witness struct {
	rule  string
	value domain.Value
}

func newWitnesses(panel oracles.Panel, b store.Bucket, d domain.Domain) *witnesses {
	return &witnesses{panel: panel, b: b, d: d, shown: map[string]bool{}}
}

// firing lists the IDs of the spec/ptxisa rules v breaks; none for a
// domain spec/ptxisa does not judge.
func (w *witnesses) firing(v domain.Value) []string {
	fired, err := rules.FiringRules(rules.PTXISA, w.d.Name, v)
	if err != nil {
		return nil
	}
	ids := make([]string, len(fired))
	for i, r := range fired {
		ids[i] = r.ID
	}
	return ids
}

func (w *witnesses) rank(v domain.Value) int { return len(w.firing(v)) }

// shows is the minimizer's predicate: the tool still mis-judges each of vs
// as the bucket says (sameSignature), whatever rule it breaks. The cases
// not seen yet are judged in one panel call: a window of candidates is one
// job per oracle.
func (w *witnesses) shows(ctx context.Context, vs []domain.Value) ([]bool, error) {
	cases := make([]domain.Case, len(vs))
	var ask []domain.Case
	for i, v := range vs {
		cases[i] = domain.NewCase(w.d.Name, v)
		if _, seen := w.shown[cases[i].ID]; !seen {
			ask = append(ask, cases[i])
		}
	}
	if len(ask) > 0 {
		byCase, err := w.panel.Judge(ctx, ask, signatureJudges(w.b))
		if err != nil {
			return nil, err
		}
		for _, c := range ask {
			_, w.shown[c.ID] = showsSignature(w.b, c, byCase[c.ID])
		}
	}
	out := make([]bool, len(cases))
	for i, c := range cases {
		out[i] = w.shown[c.ID]
	}
	return out, nil
}

// showsOne is shows for one value.
func (w *witnesses) showsOne(ctx context.Context, v domain.Value) (bool, error) {
	ok, err := w.shows(ctx, []domain.Value{v})
	if err != nil {
		return false, err
	}
	return ok[0], nil
}

// find minimizes the example ex within budget predicate calls. A bucket
// keyed on a rule whose example breaks several is minimized once per rule,
// keeping that rule broken, with budget shared among them: each result
// that breaks that rule alone is a witness. When none does, the tool
// mis-judges only a combination, and one minimization keeps what it must.
func (w *witnesses) find(ctx context.Context, ex domain.Value, budget int) ([]witness, error) {
	rules := w.firing(ex)
	if len(rules) < 2 || !w.b.Signature.KeysRule() {
		return w.one(ctx, ex, budget, "")
	}
	if ok, err := w.showsOne(ctx, ex); err != nil || !ok {
		return nil, firstErr(err, minimize.ErrNotFailing)
	}
	per := max(1, budget/len(rules))
	var out []witness
	for _, r := range rules {
		found, err := w.one(ctx, ex, per, r)
		if err != nil {
			return nil, err
		}
		if found[0].rule == r {
			out = append(out, found[0])
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return w.one(ctx, ex, per, "")
}

// one minimizes ex, keeping rule broken when it is not "".
func (w *witnesses) one(ctx context.Context, ex domain.Value, budget int, rule string) ([]witness, error) {
	opts := minimize.Options{Budget: budget, Rank: w.rank}
	if rule != "" {
		opts.Keep = func(v domain.Value) bool { return slices.Contains(w.firing(v), rule) }
	}
	res, err := minimize.Minimize(ctx, w.d, ex, w.shows, opts)
	if err != nil {
		return nil, err
	}
	x := witness{value: res.Value}
	if f := w.firing(res.Value); len(f) == 1 {
		x.rule = f[0]
	}
	return []witness{x}, nil
}

// file stores the witnesses: the one of the bucket's own rule (else the
// first) as the bucket's minimized case, every other as a bucket of its
// own split off this one, each re-checked, filed under the signature it
// shows and replayed on the tool's versions.
func (w *witnesses) file(ctx context.Context, s *store.Store, found []witness, rechecks int) (store.Bucket, error) {
	own := max(0, slices.IndexFunc(found, func(x witness) bool { return x.rule == w.b.Signature.Rule }))
	b, err := storeMinimized(ctx, s, w.panel, w.b, domain.NewCase(w.d.Name, found[own].value), rechecks)
	if err != nil {
		return b, err
	}
	for i, x := range found {
		if i == own {
			continue
		}
		split, err := w.split(ctx, s, b, domain.NewCase(w.d.Name, x.value), rechecks)
		if err != nil {
			return b, err
		}
		if split.Key != "" && split.Key != b.Key && !slices.Contains(b.Split, split.Key) {
			b.Split = append(b.Split, split.Key)
		}
	}
	if len(b.Split) > 0 {
		return b, s.PutBucket(b)
	}
	return b, nil
}

// split files one witness split off bucket b; a witness that does not
// show the behaviour again on its re-checks is dropped (zero bucket).
func (w *witnesses) split(ctx context.Context, s *store.Store, b store.Bucket, c domain.Case, rechecks int) (store.Bucket, error) {
	wb := store.Bucket{Key: w.b.Key, Signature: w.b.Signature, Campaign: w.b.Campaign}
	wb, shown, err := recheck(ctx, s, w.panel, wb, c, rechecks)
	if err != nil || wb.Reliability == 0 {
		return store.Bucket{}, err
	}
	wb, err = s.AddWitness(b, shown, wb)
	if err != nil {
		return wb, err
	}
	return ReplayVersions(ctx, s, w.panel, wb)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
