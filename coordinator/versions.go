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

// replayOn judges c with one version and spec/ptxisa and says whether the
// version shows the bucket's signature. The key names the tool's family,
// so any version's deviation of the same kind, stage, rule and title is
// the bucket's.
func replayOn(ctx context.Context, panel oracles.Panel, b store.Bucket, c domain.Case, name string) (store.VersionVerdict, error) {
	byCase, err := panel.Judge(ctx, []domain.Case{c}, []string{oracles.SpecPTXISA, name})
	if err != nil {
		return store.VersionVerdict{}, err
	}
	vv := store.VersionVerdict{Oracle: name, Outcome: store.Fixed}
	for _, v := range byCase[c.ID] {
		if v.Oracle == name {
			vv.Version, vv.Kind, vv.Rule = v.Version, v.Kind, v.Rule
		}
	}
	if vv.Kind == oracles.Unsupported {
		vv.Outcome = store.CannotJudge
		return vv, nil
	}
	pair := policy.Pair{A: oracles.SpecPTXISA, B: name, On: b.Signature.Pair.On}
	for _, dis := range policy.PolicyFor(c.Domain).On(pair).Evaluate(c, byCase[c.ID]) {
		sig := policy.SignatureOf(dis)
		if sig.Key() == b.Key || slices.Contains(sig.AltKeys(), b.Key) {
			vv.Outcome = store.Reproduces
		}
	}
	return vv, nil
}
