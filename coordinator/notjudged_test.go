package coordinator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator"
	"github.com/legalfuzz/legalfuzz/coordinator/queue/queuetest"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// TestCampaignWithoutJudgeIsNotDone: with no worker at all, a campaign
// stored its 57 seeds, enqueued none and judged nothing, and said "done"
// (exit 0). It now ends with ErrNotJudged naming why, stays unfinished,
// and a run with a worker resumes it to done with every seed judged.
func TestCampaignWithoutJudgeIsNotDone(t *testing.T) {
	_, nc := queuetest.Embedded(t)
	db := storetest.Open(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	coord, err := coordinator.New(coordinator.Options{Store: db, Conn: nc, Seeds: true, WaitWorkers: 100 * time.Millisecond,
		DrainTimeout: time.Second, Config: store.CampaignConfig{Domains: []string{"kindword"}, Duration: 500 * time.Millisecond,
			Generator: coordinator.GenNone}})
	if err != nil {
		t.Fatal(err)
	}
	camp, err := coord.Run(ctx)
	if !errors.Is(err, coordinator.ErrNotJudged) {
		t.Fatalf("Run: %v, want ErrNotJudged", err)
	}
	for _, want := range []string{"57 of its 57 cases were stored and never enqueued (domains kindword)", "no worker advertised a judge"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if camp.State == store.StateDone {
		t.Fatalf("state %s: a campaign that judged nothing is not done", camp.State)
	}
	camp = runCampaign(t, ctx, nc, nil, coordinator.Options{Store: db, WaitWorkers: 10 * time.Second})
	if camp.State != store.StateDone || camp.Stats.Judged != camp.Stats.Enqueued || camp.Stats.Judged < 57 {
		t.Fatalf("resumed with a worker: state %s, stats %+v; want done with every seed judged", camp.State, camp.Stats)
	}
}
