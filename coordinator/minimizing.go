package coordinator

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/legalfuzz/legalfuzz/coordinator/minimize"
	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// MinimizeOptions bound the minimization of buckets.
type MinimizeOptions struct {
	// Budget is the most predicate calls per bucket (each judges one case
	// with the pair's two oracles); zero means 200.
	Budget int
	// ReChecks is how often the minimized case is judged again to measure
	// reliability; zero means 3.
	ReChecks int
}

// MinimizeBucket shrinks a bucket's example case while the same signature
// holds, judging candidates with the pair's oracles through the panel (in
// this process, or on the workers that have them), then stores the minimized
// case, its verdicts and its reliability on the bucket. A bucket whose
// oracles the panel cannot reach gets a note instead.
//
// Then the bucket's case is replayed on every installed version of its
// tool (ReplayVersions).
func MinimizeBucket(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, opts MinimizeOptions) (store.Bucket, error) {
	b, err := minimizeBucket(ctx, s, panel, b, opts)
	if err != nil {
		return b, err
	}
	return ReplayVersions(ctx, s, panel, b)
}

// MinimizeBuckets minimizes the buckets (MinimizeBucket) up to width at a
// time (zero means GOMAXPROCS), calling done with each bucket as it
// finishes, from one goroutine at a time. Each bucket is judged by its own
// pair, so buckets of different tools judge side by side on their
// workers, and one bucket's tool runs overlap another's round trips. The
// first error stops the buckets not yet started and is returned.
func MinimizeBuckets(ctx context.Context, s *store.Store, panel oracles.Panel, buckets []store.Bucket, opts MinimizeOptions,
	width int, done func(store.Bucket)) error {
	if width <= 0 {
		width = runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(width)
	var mu sync.Mutex
	for _, b := range buckets {
		g.Go(func() error {
			b, err := MinimizeBucket(ctx, s, panel, b, opts)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			done(b)
			return nil
		})
	}
	return g.Wait()
}

func minimizeBucket(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, opts MinimizeOptions) (store.Bucket, error) {
	if opts.Budget == 0 {
		opts.Budget = 200
	}
	if opts.ReChecks == 0 {
		opts.ReChecks = 3
	}
	rec, ok, err := s.Case(b.Example)
	if err != nil || !ok {
		return b, errors.Join(fmt.Errorf("bucket %s: example case %s missing", b.Key, b.Example), err)
	}
	d, v, err := rec.Decode()
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	pred := func(ctx context.Context, cand domain.Value) (bool, error) {
		_, same, err := sameSignature(ctx, panel, b, domain.NewCase(d.Name, cand))
		return same, err
	}
	res, err := minimize.Minimize(ctx, d, v, pred, minimize.Options{Budget: opts.Budget})
	if errors.Is(err, oracles.ErrUnavailable) {
		b.MinimizeNote = "not minimized: " + err.Error()
		return b, s.PutBucket(b)
	}
	if errors.Is(err, minimize.ErrNotFailing) {
		b.MinimizeNote = "the example no longer shows this signature with the oracles here"
		return b, s.PutBucket(b)
	}
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	return storeMinimized(ctx, s, panel, b, domain.NewCase(d.Name, res.Value), opts.ReChecks)
}

// storeMinimized re-checks the minimized case and records it on the bucket.
func storeMinimized(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, c domain.Case, rechecks int) (store.Bucket, error) {
	var verdicts []oracles.Verdict
	b.Reliability, b.ReChecks = 0, rechecks
	for range rechecks {
		vs, same, err := sameSignature(ctx, panel, b, c)
		if err != nil {
			return b, err
		}
		if same {
			b.Reliability++
		}
		verdicts = vs
	}
	b.Minimized, b.MinimizeNote = c.ID, ""
	rec := store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: b.Campaign, Source: store.MinimizedSource(b.Key), Seen: time.Now().UTC()}
	if _, err := s.AddCases("", []store.CaseRecord{rec}); err != nil {
		return b, err
	}
	if _, err := s.CommitVerdicts(store.Commit{Verdicts: verdicts}); err != nil {
		return b, err
	}
	return b, s.PutBucket(b)
}

// sameSignature judges c with the pair's oracles and spec/ptxisa (whose
// verdict says which side deviates, and its rule is part of the signature)
// and reports whether the pair still disagrees with the bucket's signature.
// spec/ptxisa's verdict and rule must stay too: a tool error's key ignores
// the reference rule, and a legal case that crashes a tool must not shrink
// to an illegal one (garbage in) that still does, nor a wgmma whose K the
// lowering drops to one on sm_80 that is wrong for another reason.
func sameSignature(ctx context.Context, panel oracles.Panel, b store.Bucket, c domain.Case) ([]oracles.Verdict, bool, error) {
	pair := b.Signature.Pair
	names := []string{pair.A, pair.B}
	if pair.A != oracles.SpecPTXISA && pair.B != oracles.SpecPTXISA {
		names = append(names, oracles.SpecPTXISA)
	}
	byCase, err := panel.Judge(ctx, []domain.Case{c}, names)
	if err != nil {
		return nil, false, err
	}
	vs := byCase[c.ID]
	for _, d := range policy.PolicyFor(c.Domain).On(b.Signature.Pair).Evaluate(c, vs) {
		sig := policy.SignatureOf(d)
		sameSpec := b.Signature.SpecKind == "" || sig.SpecKind == b.Signature.SpecKind && sig.Rule == b.Signature.Rule
		if d.Pair == b.Signature.Pair && sameSpec && (sig.Key() == b.Key || slices.Contains(sig.AltKeys(), b.Key)) {
			return vs, true, nil
		}
	}
	return vs, false, nil
}
