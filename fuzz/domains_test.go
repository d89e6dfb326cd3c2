package fuzz_test

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
)

// TestCampaignedLeavesOutOptIn: a campaign that names no domain judges
// every domain but nvvmop, which it judges when named.
func TestCampaignedLeavesOutOptIn(t *testing.T) {
	got := map[string]bool{}
	for _, d := range fuzz.Campaigned() {
		got[d.Name] = true
	}
	if got["nvvmop"] || len(got) != len(fuzz.Domains())-1 {
		t.Errorf("campaigned %v; want every domain of %d but nvvmop", got, len(fuzz.Domains()))
	}
	if _, ok := fuzz.Lookup("nvvmop"); !ok {
		t.Error("nvvmop cannot be named")
	}
}
