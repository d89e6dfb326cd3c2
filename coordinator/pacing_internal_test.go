package coordinator

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// TestFullPastDuration: an oracle whose queue holds more than it can judge
// by --duration at its pace so far is full, though under its high mark;
// before its pace is known, or with time enough left, it is not.
func TestFullPastDuration(t *testing.T) {
	camp := func(spent time.Duration, judged, queued int) store.Campaign {
		return store.Campaign{Elapsed: spent, Config: store.CampaignConfig{Duration: time.Minute, BatchSize: 256},
			Stats: store.Stats{Oracles: map[string]*store.OracleStats{"slow": {Enqueued: judged + queued, Judged: judged}}}}
	}
	c := &Coordinator{}
	for _, tc := range []struct {
		name           string
		spent          time.Duration
		judged, queued int
		want           bool
	}{
		{"30/s, 40 s left, 1,500 queued: 50 s of work", 20 * time.Second, 600, 1500, true},
		{"30/s, 40 s left, 1,000 queued", 20 * time.Second, 600, 1000, false},
		{"pace not known yet", 5 * time.Second, 600, 1500, false},
		{"too few judged to know", 20 * time.Second, 300, 1500, false},
		{"at the high mark", 20 * time.Second, 600, 6 * 256, true},
	} {
		p := pace{c: c, camp: camp(tc.spent, tc.judged, tc.queued), size: 256}
		if got := p.full("slow"); got != tc.want {
			t.Errorf("%s: full %t, want %t", tc.name, got, tc.want)
		}
	}
}
