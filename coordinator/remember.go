package coordinator

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Replays that remember: a replay judges a case with deterministic tools,
// so the same case on the same version says what it said before. A found-in
// replay is not repeated on an installation whose version has not changed
// (unchangedReplays), and the night's fixed check replays only buckets one
// of whose pair changed version since it last judged them, plus a rotating
// sample of the others (rotateNights), so a bucket whose tools never
// change is still judged again every few nights: our renderers change
// between builds, and a flaky verdict is caught.

// rotateNights is how many nights it takes the rotating sample to replay
// every bucket whose tools did not change: it replays a 1/rotateNights
// share of them, those judged longest ago first.
const rotateNights = 7

// unchangedReplays are the bucket's found-in verdicts that still stand: of
// an installation among names that replayed case in the version the panel
// reaches now. A verdict stored before replays named their case replayed
// the bucket's case of then, which minimization (the one thing that
// changes it) replays at once.
func unchangedReplays(b store.Bucket, caseID string, names []string, current map[string]string) []store.VersionVerdict {
	var out []store.VersionVerdict
	for _, vv := range b.Versions {
		now, ok := current[vv.Oracle]
		if ok && now != "" && vv.Version == now && (vv.Case == caseID || vv.Case == "") && slices.Contains(names, vv.Oracle) {
			out = append(out, vv)
		}
	}
	return out
}

// pairUnchanged reports whether the bucket's last sighting was judged by
// the versions of its pair the panel reaches now: replaying it would say
// the same.
func pairUnchanged(b store.Bucket, current map[string]string) bool {
	h := b.History()
	if len(h) == 0 {
		return false
	}
	last := h[len(h)-1]
	for _, o := range []string{b.Signature.Pair.A, b.Signature.Pair.B} {
		if v := current[o]; v == "" || last.Versions[o] != v {
			return false
		}
	}
	return true
}

// lastJudged is when the bucket was last judged rather than carried.
func lastJudged(b store.Bucket) time.Time {
	h := b.History()
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].Carried {
			return h[i].Time
		}
	}
	return time.Time{}
}

// planReplay splits the buckets a night replays: those to judge (a tool
// of the pair changed, or the rotating sample) and those whose outcome is
// carried over. Without the panel's versions every bucket is judged.
func planReplay(ctx context.Context, panel oracles.Panel, buckets []store.Bucket) (judge, carry []store.Bucket) {
	current, err := panel.Versions(ctx)
	if err != nil || len(current) == 0 {
		return buckets, nil
	}
	for _, b := range buckets {
		if pairUnchanged(b, current) {
			carry = append(carry, b)
		} else {
			judge = append(judge, b)
		}
	}
	slices.SortStableFunc(carry, func(x, y store.Bucket) int {
		return cmp.Or(lastJudged(x).Compare(lastJudged(y)), strings.Compare(x.Key, y.Key))
	})
	n := (len(carry) + rotateNights - 1) / rotateNights
	return append(judge, carry[:n]...), carry[n:]
}

// carried is tonight's sighting of a bucket not replayed: its last
// outcome, with the versions that judged it.
func carried(b store.Bucket, campaign string) store.Sighting {
	h := b.History()
	last := h[len(h)-1]
	sg := store.Sighting{Campaign: campaign, Outcome: last.Outcome, Time: time.Now().UTC(), Versions: last.Versions, Carried: true}
	if sg.Outcome == store.SeenFound {
		sg.Outcome = store.SeenReproduced
	}
	return sg
}
