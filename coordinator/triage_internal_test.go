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

// TestPacingShallowWindingDown: generation keeps deep queues until its
// last stretch (half the tail), and small batches and shallow queues then,
// so that what is queued at --duration drains sooner; a bucket being
// minimized changes nothing (its candidates take the urgent lane).
func TestPacingShallowWindingDown(t *testing.T) {
	camp := store.Campaign{ID: "c", Config: store.CampaignConfig{Duration: 10 * time.Minute, BatchSize: 256}}
	c := &Coordinator{campaign: camp}
	c.triage = newTriager(c, TriageOptions{Tail: 2 * time.Minute, Minimize: &MinimizeOptions{}})
	check := func(what string, elapsed time.Duration, running, wantSize, wantLow, wantHigh int) {
		t.Helper()
		camp.Elapsed = elapsed
		if c.triage != nil {
			c.triage.running = running
		}
		p := c.pacing(camp)
		if low, high := p.marks("o"); p.size != wantSize || low != wantLow || high != wantHigh {
			t.Errorf("%s: batches of %d, marks %d/%d; want %d, %d/%d", what, p.size, low, high, wantSize, wantLow, wantHigh)
		}
	}
	check("early, nothing minimized", time.Minute, 0, 256, lowBatches*256, highBatches*256)
	check("early, a bucket minimized", time.Minute, 1, 256, lowBatches*256, highBatches*256)
	check("before the last stretch", 8*time.Minute+59*time.Second, 0, 256, lowBatches*256, highBatches*256)
	check("in the last minute (half the tail)", 9*time.Minute+time.Second, 0, windDownBatch, windDownBatch, 2*windDownBatch)
	c.triage = nil
	check("no triage, last minute", 9*time.Minute+time.Second, 0, 256, lowBatches*256, highBatches*256)
}

// TestFullAtItsPace: a queue below its high mark is full when it holds
// more than its oracle judges, at its pace so far (cases per second busy),
// in generation's time left and half the tail; not before the pace is
// known, nor without a tail; and a judge idle most of the time is paced by
// what it judged while busy, not by what it was given.
func TestFullAtItsPace(t *testing.T) {
	// 200 judged in 20 s busy: 10 a second; 500 queued.
	slow := &store.OracleStats{Enqueued: 700, Judged: 200, Elapsed: 20 * time.Second}
	camp := store.Campaign{ID: "c", Config: store.CampaignConfig{Duration: time.Minute, BatchSize: 128},
		Stats: store.Stats{Oracles: map[string]*store.OracleStats{"slow": slow}}}
	c := &Coordinator{campaign: camp, started: time.Now().Add(-40 * time.Second), busy0: map[string]time.Duration{}, judged0: map[string]int{}}
	c.triage = newTriager(c, TriageOptions{Tail: 30 * time.Second, Minimize: &MinimizeOptions{}})
	check := func(what string, elapsed time.Duration, want bool) {
		t.Helper()
		camp.Elapsed = elapsed
		if got := c.pacing(camp).full("slow"); got != want {
			t.Errorf("%s: full %t; want %t", what, got, want)
		}
	}
	check("40 s and 15 s of tail left: 550 cases of work", 20*time.Second, false)
	check("30 s and 15 s left: 450", 30*time.Second, true)
	c.busy0["slow"] = 16 * time.Second
	check("busy 4 s: pace not known yet", 30*time.Second, false)
	c.busy0["slow"] = 0
	camp.Stats.Oracles["slow"] = &store.OracleStats{Enqueued: 520, Judged: 20, Elapsed: 6 * time.Second}
	check("20 judged in 6 s busy of 40: 3.3 a second, 500 queued, 45 s left", 30*time.Second, true)
	camp.Stats.Oracles["slow"] = &store.OracleStats{Enqueued: 140, Judged: 20, Elapsed: 6 * time.Second}
	check("idle most of the time, 120 queued: 3.3 a second busy, not 0.5 a second of wall clock", 30*time.Second, false)
	c.triage = nil
	check("no tail", 30*time.Second, false)
}
