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
	w := newWitnesses(panel, b, d)
	found, err := w.find(ctx, v, opts.Budget)
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
	return w.file(ctx, s, found, opts.ReChecks)
}

// storeMinimized re-checks the minimized case, records it on the bucket and
// files the bucket under the signature the case shows (Store.Rekey): the
// rule it breaks, now that it breaks no other it need not.
func storeMinimized(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, c domain.Case, rechecks int) (store.Bucket, error) {
	b, shown, err := recheck(ctx, s, panel, b, c, rechecks)
	if err != nil {
		return b, err
	}
	if b.Reliability == 0 { // the case did not show it again: keep the key
		return b, s.PutBucket(b)
	}
	return s.Rekey(b, shown)
}

// recheck judges the minimized case c rechecks times, stores it with its
// verdicts and sets it on b with its reliability; shown is the signature
// it showed.
func recheck(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, c domain.Case, rechecks int) (store.Bucket, policy.Signature, error) {
	var verdicts []oracles.Verdict
	var shown policy.Signature
	b.Reliability, b.ReChecks = 0, rechecks
	for range rechecks {
		vs, sig, same, err := sameSignature(ctx, panel, b, c)
		if err != nil {
			return b, shown, err
		}
		if same {
			b.Reliability++
			shown = sig
		}
		verdicts = vs
	}
	b.Minimized, b.MinimizeNote = c.ID, ""
	rec := store.CaseRecord{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode(), Campaign: b.Campaign, Source: store.MinimizedSource(b.Key), Seen: time.Now().UTC()}
	if _, err := s.AddCases("", []store.CaseRecord{rec}); err != nil {
		return b, shown, err
	}
	_, err := s.CommitVerdicts(store.Commit{Verdicts: verdicts})
	return b, shown, err
}

// sameSignature judges c with the pair's oracles and spec/ptxisa (whose
// verdict says which side deviates) and reports whether the pair's tool
// still mis-judges it as the bucket says, and the signature it shows: the
// same tool family, verdict, stage and diagnostic title, and spec/ptxisa's
// verdict kind, whichever rule gives it. A minimized case that breaks
// another rule than the example's first one shows the same wrong
// acceptance, filed under its rule (Store.Rekey). spec/ptxisa's verdict
// must stay: a legal case that crashes a tool must not shrink to an
// illegal one (garbage in) that still does, nor a wgmma whose K the
// lowering drops to one on sm_80 that is wrong for another reason; nor
// must the case become one the policy expects.
func sameSignature(ctx context.Context, panel oracles.Panel, b store.Bucket, c domain.Case) ([]oracles.Verdict, policy.Signature, bool, error) {
	byCase, err := panel.Judge(ctx, []domain.Case{c}, signatureJudges(b))
	if err != nil {
		return nil, policy.Signature{}, false, err
	}
	vs := byCase[c.ID]
	sig, same := showsSignature(b, c, vs)
	return vs, sig, same, nil
}

// signatureJudges are the oracles sameSignature asks: the bucket's pair
// and spec/ptxisa.
func signatureJudges(b store.Bucket) []string {
	pair := b.Signature.Pair
	names := []string{pair.A, pair.B}
	if pair.A != oracles.SpecPTXISA && pair.B != oracles.SpecPTXISA {
		names = append(names, oracles.SpecPTXISA)
	}
	return names
}

// showsSignature is sameSignature on verdicts already given.
func showsSignature(b store.Bucket, c domain.Case, vs []oracles.Verdict) (policy.Signature, bool) {
	for _, d := range policy.PolicyFor(c.Domain).On(b.Signature.Pair).Evaluate(c, vs) {
		sig := policy.SignatureOf(d)
		if d.Pair != b.Signature.Pair || !d.Finding() || b.Signature.SpecKind != "" && sig.SpecKind != b.Signature.SpecKind {
			continue
		}
		asIf := sig
		asIf.Rule = b.Signature.Rule
		if asIf.Key() == b.Key || slices.Contains(asIf.AltKeys(), b.Key) {
			return sig, true
		}
	}
	return policy.Signature{}, false
}
