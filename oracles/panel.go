package oracles

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// ErrUnavailable marks an oracle a panel cannot reach: not installed here, or
// offered by no live worker. It is a fact about the machine, not a finding.
var ErrUnavailable = errors.New("oracle not available")

// Panel asks oracles about cases wherever they run: in this process (Local)
// or on workers over NATS (queue.Remote). check, judge, the minimizer and
// the regression tests all judge through it, so a bucket whose oracle lives
// on a GPU worker is minimized the same way as one judged here.
type Panel interface {
	// Judge asks each named oracle (every oracle of the panel when names is
	// empty) about the cases of the domains it judges, and returns each
	// case's verdicts by case ID. A named oracle the panel cannot reach is
	// an error wrapping ErrUnavailable.
	Judge(ctx context.Context, cases []domain.Case, names []string) (map[string][]Verdict, error)
	// Names lists the oracles the panel reaches, sorted.
	Names(ctx context.Context) ([]string, error)
	// Versions says which version each oracle it reaches runs, without
	// judging: a replay is not repeated on an unchanged installation. An
	// oracle whose version it cannot tell (two workers disagree) is left
	// out.
	Versions(ctx context.Context) (map[string]string, error)
}

// Local is the in-process panel: its oracles judge in batches of BatchSize,
// oracles in parallel.
type Local struct {
	Oracles []Oracle
	// BatchSize is the most cases per Judge call; zero means 256.
	BatchSize int
}

// Judge implements Panel.
func (l Local) Judge(ctx context.Context, cases []domain.Case, names []string) (map[string][]Verdict, error) {
	orcs, err := l.pick(names)
	if err != nil {
		return nil, err
	}
	perOracle := make([][]Verdict, len(orcs))
	errs := make([]error, len(orcs))
	var wg sync.WaitGroup
	for i, o := range orcs {
		wg.Go(func() { perOracle[i], errs[i] = l.judgeAll(ctx, o, cases) })
	}
	wg.Wait()
	verdicts := map[string][]Verdict{}
	for i, vs := range perOracle {
		if errs[i] != nil {
			return nil, fmt.Errorf("oracle %s: %w", orcs[i].Name(), errs[i])
		}
		for _, v := range vs { // in oracle order, so output is stable
			verdicts[v.Case] = append(verdicts[v.Case], v)
		}
	}
	return verdicts, nil
}

// Names implements Panel.
func (l Local) Names(context.Context) ([]string, error) {
	names := make([]string, len(l.Oracles))
	for i, o := range l.Oracles {
		names[i] = o.Name()
	}
	slices.Sort(names)
	return names, nil
}

// Versions implements Panel.
func (l Local) Versions(context.Context) (map[string]string, error) {
	out := make(map[string]string, len(l.Oracles))
	for _, o := range l.Oracles {
		out[o.Name()] = o.Version()
	}
	return out, nil
}

// pick finds the named oracles, or returns them all.
func (l Local) pick(names []string) ([]Oracle, error) {
	if len(names) == 0 {
		return l.Oracles, nil
	}
	var out []Oracle
	for _, name := range names {
		i := slices.IndexFunc(l.Oracles, func(o Oracle) bool { return o.Name() == name })
		if i < 0 {
			return nil, fmt.Errorf("%s: %w on this machine", name, ErrUnavailable)
		}
		out = append(out, l.Oracles[i])
	}
	return out, nil
}

// judgeAll judges the cases of o's domains in batches; an oracle breaking
// its one-verdict-per-case contract is our bug.
func (l Local) judgeAll(ctx context.Context, o Oracle, cases []domain.Case) ([]Verdict, error) {
	size := l.BatchSize
	if size < 1 {
		size = 256
	}
	var mine []domain.Case
	for _, c := range cases {
		if o.Judges(c.Domain) {
			mine = append(mine, c)
		}
	}
	var out []Verdict
	for batch := range slices.Chunk(mine, size) {
		vs, err := o.Judge(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(batch) {
			return nil, fmt.Errorf("%d verdicts for %d cases", len(vs), len(batch))
		}
		out = append(out, Clip(vs)...)
	}
	return out, nil
}
