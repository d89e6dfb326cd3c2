package store_test

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

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
