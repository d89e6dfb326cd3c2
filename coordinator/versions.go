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
// show the bucket's signature: found-in / fixed-in. The versions judge in
// one call to the panel, side by side (each installation's oracle is a
// worker consumer, or a goroutine of a local panel, of its own). A version
// not installed is left out; a bucket whose deviating tool is not one tool
// (two tools disputing, spec/ptxisa silent) is left as it is. An
// installation that replayed the same case in the version it runs now is
// not asked again: its answer stands (unchangedReplays).
func ReplayVersions(ctx context.Context, s *store.Store, panel oracles.Panel, b store.Bucket) (store.Bucket, error) {
	in, ok := oracles.Lookup(b.Signature.Tool)
	if !ok || in.Family == "" {
		return b, nil
	}
	rec, err := s.BucketCase(b)
	if err != nil {
		return b, err
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
	names = slices.DeleteFunc(names, func(name string) bool {
		version, ok := oracles.Lookup(name)
		return !ok || version.Family != in.Family
	})
	current, err := panel.Versions(ctx)
	if err != nil {
		return b, fmt.Errorf("bucket %s: %w", b.Key, err)
	}
	kept := unchangedReplays(b, c.ID, names, current)
	names = slices.DeleteFunc(names, func(name string) bool {
		return slices.ContainsFunc(kept, func(vv store.VersionVerdict) bool { return vv.Oracle == name })
	})
	if len(names) == 0 {
		return b, nil
	}
	byCase, err := panel.Judge(ctx, []domain.Case{c}, append([]string{oracles.SpecPTXISA}, names...))
	if errors.Is(err, oracles.ErrUnavailable) {
		return b, nil // a worker left between Names and Judge: tomorrow's replay
	}
	if err != nil {
		return b, fmt.Errorf("bucket %s on %v: %w", b.Key, names, err)
	}
	out := kept
	for _, name := range names {
		vv := replayedOn(b, c, byCase[c.ID], name)
		vv.Case, vv.Version = c.ID, cmp.Or(vv.Version, current[name])
		out = append(out, vv)
	}
	slices.SortStableFunc(out, func(x, y store.VersionVerdict) int {
		return cmp.Or(cmp.Compare(oracles.Major(x.Version), oracles.Major(y.Version)), strings.Compare(x.Oracle, y.Oracle))
	})
	b.Versions = out
	return b, s.PutBucket(b)
}

// replayedOn says what the version named did with c, from the verdicts of
// one judgment by every version and spec/ptxisa: shows the bucket's
// signature, or another outcome (see store's outcomes). The key names the
// tool's family, so any version's deviation of the same kind, stage, rule
// and title is the bucket's. A version that gave no verdict does not judge
// the case's domain (MLIR 19 has no tcgen05 ops): it cannot judge it,
// which is not a fix.
func replayedOn(b store.Bucket, c domain.Case, vs []oracles.Verdict, name string) store.VersionVerdict {
	vv := store.VersionVerdict{Oracle: name, Outcome: store.CannotJudge}
	i := slices.IndexFunc(vs, func(v oracles.Verdict) bool { return v.Oracle == name })
	if i < 0 {
		return vv
	}
	v := vs[i]
	vv.Version, vv.Kind, vv.Rule = v.Version, v.Kind, v.Rule
	mine := slices.DeleteFunc(slices.Clone(vs), func(v oracles.Verdict) bool { return v.Oracle != name && v.Oracle != oracles.SpecPTXISA })
	pair := policy.Pair{A: oracles.SpecPTXISA, B: name, On: b.Signature.Pair.On}
	dis := policy.PolicyFor(c.Domain).On(pair).Evaluate(c, mine)
	for _, d := range dis {
		sig := policy.SignatureOf(d)
		if sig.Key() == b.Key || slices.Contains(sig.AltKeys(), b.Key) {
			vv.Outcome = store.Reproduces
			return vv
		}
	}
	vv.Outcome = outcome(b.Signature, v, len(dis) == 0)
	return vv
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
	anywhere := class == policy.TooPermissive || under.Fault == oracles.Dropped || under.Fault == oracles.WrongValue
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
