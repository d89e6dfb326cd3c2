package coordinator

import (
	"slices"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// TestLeftoversQueuedFirst: a campaign queues the buckets earlier
// campaigns left not yet minimized before its own, oldest first, and
// skips those minimized or given a note.
func TestLeftoversQueuedFirst(t *testing.T) {
	s := storetest.Open(t, "")
	now := time.Now().UTC()
	for _, b := range []store.Bucket{
		{Key: "mine", Campaign: "tonight", FirstSeen: now.Add(-time.Hour)},
		{Key: "old-new", Campaign: "night2", FirstSeen: now.Add(-2 * time.Hour)},
		{Key: "old-old", Campaign: "night1", FirstSeen: now.Add(-3 * time.Hour)},
		{Key: "done", Campaign: "night1", FirstSeen: now.Add(-4 * time.Hour), Minimized: "x"},
		{Key: "noted", Campaign: "night1", FirstSeen: now.Add(-4 * time.Hour), MinimizeNote: "not minimized: unavailable"},
	} {
		if err := s.PutBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutCampaign(store.Campaign{ID: "tonight", State: store.StateRunning, Config: store.CampaignConfig{Duration: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	c := &Coordinator{opts: Options{Store: s}, campaign: store.Campaign{ID: "tonight", Config: store.CampaignConfig{Duration: time.Minute}}}
	tr := newTriager(c, TriageOptions{Panel: oracles.Local{}, Minimize: &MinimizeOptions{}})
	if err := tr.queueStored(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"old-old", "old-new", "mine"}; !slices.Equal(tr.waiting, want) {
		t.Fatalf("queued %v; want %v", tr.waiting, want)
	}
}
