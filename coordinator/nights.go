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

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// NightReplay counts what ReplayNight did.
type NightReplay struct {
	Reproduced, Fixed int
	// Skipped counts buckets it could not replay: an oracle of the pair is
	// not reachable, or the deviating tool cannot judge the case.
	Skipped int
	// Carried counts buckets not replayed because their pair runs the
	// versions that last judged them (planReplay): their outcome stands.
	Carried int
}

// ReplayNight ends a night: every bucket the campaign's cases did not show,
// open or fixed, has its minimized case (its example when it has none)
// judged again by its pair through the panel, with tonight's tools, and the
// night records it reproduced (still failing, or back after a fix) or
// fixed, with the versions that judged it. It is the same judgment the
// minimizer's predicate makes (sameSignature). A bucket whose pair runs
// the versions that last judged it is not replayed, unless the rotating
// sample takes it (planReplay): the night records its last outcome,
// carried. Each bucket's found-in is brought up to date on the
// installations whose version changed (ReplayVersions). Buckets are
// replayed GOMAXPROCS at a time, as MinimizeBuckets minimizes them.
func ReplayNight(ctx context.Context, s *store.Store, panel oracles.Panel, campaign string) (NightReplay, error) {
	var out NightReplay
	buckets, err := s.Buckets()
	if err != nil {
		return out, err
	}
	buckets = slices.DeleteFunc(buckets, func(b store.Bucket) bool { return b.SeenIn(campaign) })
	judge, carry := planReplay(ctx, panel, buckets)
	for _, b := range carry {
		if _, err := s.RecordSighting(b.Key, carried(b, campaign)); err != nil {
			return out, err
		}
		out.Carried++
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	for _, b := range judge {
		g.Go(func() error {
			sg, ok, err := replayTonight(gctx, s, panel, b, campaign)
			if err != nil {
				return err
			}
			if ok {
				if _, err := s.RecordSighting(b.Key, sg); err != nil {
					return err
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !ok:
				out.Skipped++
			case sg.Outcome == store.SeenFixed:
				out.Fixed++
			default:
				out.Reproduced++
			}
			return nil
		})
	}
	for _, b := range buckets {
		g.Go(func() error {
			_, err := ReplayVersions(gctx, s, panel, b)
			return err
		})
	}
	return out, g.Wait()
}

// replayTonight judges one bucket's case; ok is false when it could not be
// judged.
func replayTonight(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket, campaign string) (store.Sighting, bool, error) {
	rec, err := s.BucketCase(b)
	if err != nil {
		return store.Sighting{}, false, err
	}
	d, v, err := rec.Decode()
	if err != nil {
		return store.Sighting{}, false, nil // a domain this build no longer has, or changed
	}
	vs, _, same, err := sameSignature(ctx, panel, b, domain.NewCase(d.Name, v))
	if errors.Is(err, oracles.ErrUnavailable) {
		return store.Sighting{}, false, nil
	}
	if err != nil {
		return store.Sighting{}, false, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	sg := store.Sighting{Campaign: campaign, Outcome: store.SeenReproduced, Time: time.Now().UTC(), Versions: map[string]string{}}
	pair := b.Signature.Pair
	for _, v := range vs {
		if v.Oracle != pair.A && v.Oracle != pair.B {
			continue
		}
		if v.Kind == oracles.Unsupported && !same {
			return store.Sighting{}, false, nil // cannot judge it tonight: not a fix
		}
		if v.Version != "" {
			sg.Versions[v.Oracle] = v.Version
		}
	}
	if !same {
		sg.Outcome = store.SeenFixed
	}
	return sg, true, nil
}
