package coordinator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// ReplayVersions judges the bucket's minimized case (its example when it
// has none) with every version of the deviating tool's family that the
// panel reaches, each against spec/ptxisa, and records on the bucket which
// show the bucket's signature: found-in / fixed-in. A version not
// installed is left out; a bucket whose deviating tool is not one tool
// (two tools disputing, spec/ptxisa silent) is left as it is.
func ReplayVersions(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket) (store.Bucket, error) {
	in, ok := oracles.Lookup(b.Signature.Tool)
	if !ok || in.Family == "" {
		return b, nil
	}
	id := b.Minimized
	if id == "" {
		id = b.Example
	}
	rec, ok, err := s.Case(id)
	if err != nil || !ok {
		return b, errors.Join(fmt.Errorf("bucket %s: case %s missing", b.Key, id), err)
	}
	d, v, err := rec.Decode()
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	c := domain.NewCase(d.Name, v)
	names, err := panel.Names(ctx)
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	var out []store.VersionVerdict
	for _, name := range names {
		if version, ok := oracles.Lookup(name); !ok || version.Family != in.Family {
			continue
		}
		vv, err := replayOn(ctx, panel, b, c, name)
		if errors.Is(err, oracles.ErrUnavailable) {
			continue
		}
		if err != nil {
			return b, fmt.Errorf("bucket %s on %s: %w", b.Key, name, err)
		}
		out = append(out, vv)
	}
	slices.SortStableFunc(out, func(x, y store.VersionVerdict) int {
		return cmp.Or(cmp.Compare(oracles.Major(x.Version), oracles.Major(y.Version)), strings.Compare(x.Oracle, y.Oracle))
	})
	b.Versions = out
	return b, s.PutBucket(b)
}

// replayOn judges c with one version and spec/ptxisa and says what the
// version did: shows the bucket's signature, or another outcome (see
// store's outcomes). The key names the tool's family, so any version's
// deviation of the same kind, stage, rule and title is the bucket's.
func replayOn(ctx context.Context, panel oracles.Panel, b store.Bucket, c domain.Case, name string) (store.VersionVerdict, error) {
	byCase, err := panel.Judge(ctx, []domain.Case{c}, []string{oracles.SpecPTXISA, name})
	if err != nil {
		return store.VersionVerdict{}, err
	}
	vv := store.VersionVerdict{Oracle: name}
	var v oracles.Verdict
	for _, x := range byCase[c.ID] {
		if x.Oracle == name {
			v = x
			vv.Version, vv.Kind, vv.Rule = x.Version, x.Kind, x.Rule
		}
	}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: name, On: b.Signature.Pair.On}
	dis := policy.PolicyFor(c.Domain).On(pair).Evaluate(c, byCase[c.ID])
	for _, d := range dis {
		sig := policy.SignatureOf(d)
		if sig.Key() == b.Key || slices.Contains(sig.AltKeys(), b.Key) {
			vv.Outcome = store.Reproduces
			return vv, nil
		}
	}
	vv.Outcome = outcome(b.Signature, v, len(dis) == 0)
	return vv, nil
}

// outcome says what a version did with the bucket's case when it did not
// show the bucket; right says its verdict agrees with spec/ptxisa. Where
// the bug is a check the tool lacks (it let through what spec/ptxisa
// rejects, or lowered an op to less work than it asks), a refusal at any
// stage is the fix; where the bug is a stage failing (a crash, an error at
// exit status 0, a refusal of a legal case), the fix is at that stage, and
// a version that stops before it cannot say.
func outcome(sig policy.Signature, v oracles.Verdict, right bool) string {
	if v.Kind == "" || v.Kind == oracles.Unsupported {
		return store.CannotJudge
	}
	at, under := oracles.ParseStage(v.Rule), oracles.ParseStage(sig.Stage)
	class := policy.ClassOf(sig)
	anywhere := class == policy.TooPermissive || under.Fault == oracles.Dropped
	same := !at.Before(under) && !under.Before(at)
	failed := class == policy.Crash || class == policy.ExitZeroError
	switch {
	case right && (anywhere || same || v.Kind == oracles.Accept):
		return store.Fixed
	case same && failed && (v.Kind == oracles.Accept || v.Kind == oracles.Reject):
		return store.Fixed // it answers in words where it failed
	case at.Before(under):
		return store.StopsEarlier
	case under.Before(at):
		return store.DecidedLater
	}
	return store.Differs
}
