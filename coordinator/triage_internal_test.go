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

// TestPacingInWorkAndWindingDown: an oracle's marks are its batches until
// it has a rate, then the lower of those and seconds of its own work (a
// slow judge's queue holds half a minute, not six batches of 256); in
// generation's last stretch (half the tail) batches and queues are
// shallow, so that what is queued at --duration drains within the tail;
// generation's batch for a domain fits the room its judges have left.
func TestPacingInWorkAndWindingDown(t *testing.T) {
	camp := store.Campaign{ID: "c", Config: store.CampaignConfig{Duration: 10 * time.Minute, BatchSize: 256},
		Stats: store.Stats{Oracles: map[string]*store.OracleStats{
			"slow": {Enqueued: 900, Judged: 700, Elapsed: 100 * time.Second}, // 7 cases/s, 200 queued
			"fast": {Enqueued: 5000, Judged: 4000, Elapsed: 4 * time.Second}, // 1000 cases/s, 1000 queued
			"busy": {Enqueued: 110, Judged: 100, Elapsed: 100 * time.Second}, // 1 case/s, 10 queued
		}}}
	c := &Coordinator{campaign: camp}
	c.triage = newTriager(c, TriageOptions{Tail: 2 * time.Minute, Minimize: &MinimizeOptions{}})
	check := func(what string, elapsed time.Duration, oracle string, wantSize, wantLow, wantHigh int) {
		t.Helper()
		camp.Elapsed = elapsed
		p := c.pacing(camp)
		if low, high := p.marks(oracle); p.size != wantSize || low != wantLow || high != wantHigh {
			t.Errorf("%s, %s: batches of %d, marks %d/%d; want %d, %d/%d", what, oracle, p.size, low, high, wantSize, wantLow, wantHigh)
		}
	}
	check("early", time.Minute, "new", 256, 1, minBatch)
	check("early", time.Minute, "fast", 256, 2*256, 6*256)
	check("early", time.Minute, "slow", 256, 70, 210)
	check("early", time.Minute, "busy", 256, jobGap, 2*jobGap)
	check("in the last minute (half the tail)", 9*time.Minute+time.Second, "slow", 32, jobGap, 2*jobGap)
	check("in the last minute (half the tail)", 9*time.Minute+time.Second, "fast", 32, 32, 64)
	c.triage = nil
	check("no triage, last minute", 9*time.Minute+time.Second, "slow", 256, 70, 210)

	camp.Elapsed = time.Minute
	p := c.pacing(camp)
	if n := p.room([]string{"fast", "slow"}); n != minBatch {
		t.Errorf("room for fast and slow: %d; want %d (slow has 10 left)", n, minBatch)
	}
	if n := p.room([]string{"fast"}); n != 256 {
		t.Errorf("room for fast: %d; want the batch size 256", n)
	}
	if p.full("fast") || p.full("slow") {
		t.Errorf("fast full %v, slow full %v; want neither (1000 of 1536, 200 of 210)", p.full("fast"), p.full("slow"))
	}
}
