package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
)

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestCampaignOnFullDisk: a campaign whose store fills its disk ran on and
// ended, long after, with "the drain timeout passed with 10741 jobs
// unjudged". It stops at once: exit 2, its last line naming the store and
// the full disk.
func TestCampaignOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("campaign test takes seconds; skipped in -short")
	}
	db := filepath.Join(storetest.SmallDisk(t, 1<<20), "legalfuzz.db")
	_, errOut, code := runCLI(t, "", "campaign", "--duration", "60s", "--drain-timeout", "60s", "--out", t.TempDir(), "--db", db,
		"--quiet", "--no-minimize", "--domains", "kindword", "--oracles", "spec/seed,spec/ptxisa", "--generator", "structured")
	last := lastLine(errOut)
	if code != exitError || !strings.HasPrefix(last, "legalfuzz: campaign stopped: cannot write the store "+db) ||
		!strings.Contains(last, "no space left on device") {
		t.Fatalf("exit %d, last line %q; want 2 and the full disk named", code, last)
	}
}
