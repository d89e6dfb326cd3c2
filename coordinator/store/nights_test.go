package store_test

import (
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// TestNightsStatus walks a bucket's histories over four nights and checks
// its status in the last against the one before it, and against --since
// the first.
func TestNightsStatus(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 1, 0, 0, 0, time.UTC)
	var camps []store.Campaign
	for i, id := range []string{"n1", "n2", "n3", "n4"} {
		camps = append(camps, store.Campaign{ID: id, Created: t0.Add(time.Duration(i) * 24 * time.Hour)})
	}
	nights := store.NewNights(camps)
	if nights.Latest() != "n4" || nights.Before("n4") != "n3" || nights.Before("n1") != "" {
		t.Fatalf("order: latest %q, before n4 %q", nights.Latest(), nights.Before("n4"))
	}
	seen := func(outcomes ...string) store.Bucket {
		b := store.Bucket{Key: "k"}
		for i, o := range outcomes {
			if o != "" {
				b.Nights = append(b.Nights, store.Sighting{Campaign: camps[i].ID, Outcome: o, Versions: map[string]string{"exec:toy": "0." + camps[i].ID}})
			}
		}
		return b
	}
	const f, r, x = store.SeenFound, store.SeenReproduced, store.SeenFixed
	for _, tc := range []struct {
		name        string
		b           store.Bucket
		since, want string
		fixedBy     string
	}{
		{"found tonight first", seen("", "", "", f), "n3", store.TonightNew, ""},
		{"found again", seen(f, "", r, f), "n3", store.TonightStill, ""},
		{"replayed, reproduces", seen(f, r, r, r), "n3", store.TonightStill, ""},
		{"replayed, fixed", seen(f, r, r, x), "n3", store.TonightFixed, "exec:toy 0.n4"},
		{"fixed, back", seen(f, x, x, f), "n3", store.TonightRegressed, ""},
		{"fixed, replay back", seen(f, f, x, r), "n3", store.TonightRegressed, ""},
		{"still fixed", seen(f, x, x, x), "n3", "", ""},
		{"not looked at tonight", seen(f, f, f, ""), "n3", "", ""},
		{"since n1: new in n2, fixed", seen("", f, r, x), "n1", store.TonightFixed, "exec:toy 0.n4"},
		{"since n1: fixed at n1, still open", seen(x, f, r, r), "n1", store.TonightRegressed, ""},
		{"legacy bucket of tonight", store.Bucket{Key: "k", Campaign: "n4"}, "n3", store.TonightNew, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := nights.Status(tc.b, tc.since, "no such run"); got != "" {
				t.Errorf("status %q at a run the store lacks", got)
			}
			got, by := nights.Status(tc.b, tc.since, "n4")
			if got != tc.want || by != tc.fixedBy {
				t.Fatalf("status %q fixed by %q, want %q %q", got, by, tc.want, tc.fixedBy)
			}
		})
	}
}

// TestRecordSighting: a night records one sighting per bucket; a replay
// after a finding of the same night changes nothing.
func TestRecordSighting(t *testing.T) {
	s := storetest.Open(t, "")
	b := bucketFor("k1", "n1", "ptxas", "ptxisa.ldsm.shape", "")
	if err := s.PutBucket(b); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecordSighting("k1", store.Sighting{Campaign: "n1", Outcome: store.SeenFixed})
	if h := got.History(); err != nil || len(h) != 1 || h[0].Outcome != store.SeenFound {
		t.Fatalf("replay in the night that found it: %+v, %v; want the finding kept", h, err)
	}
	got, err = s.RecordSighting("k1", store.Sighting{Campaign: "n2", Outcome: store.SeenFixed})
	if err != nil || len(got.Nights) != 2 || got.Open() {
		t.Fatalf("replay in n2: %+v, %v; want fixed", got.Nights, err)
	}
	if _, err := s.RecordSighting("nope", store.Sighting{Campaign: "n2"}); err == nil {
		t.Fatal("a sighting of a missing bucket was recorded")
	}
}
