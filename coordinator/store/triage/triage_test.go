package triage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func bucketFor(key, campaign, oracle, rule, diag string) store.Bucket {
	return store.Bucket{Key: key, Campaign: campaign, Cases: 1, Signature: policy.Signature{Domain: "ldsm",
		Pair: policy.Pair{A: oracles.SpecPTXISA, B: oracle, On: policy.OnVerdict}, KindA: oracles.Reject, KindB: oracles.Accept, RuleA: rule, DiagB: diag}}
}

// TestNightsStatus walks a bucket's histories over four nights and checks
// its status in the last against the one before it, and against --since
// the first.
func TestNightsStatus(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 1, 0, 0, 0, time.UTC)
	var camps []store.Campaign
	for i, id := range []string{"n1", "n2", "n3", "n4"} {
		camps = append(camps, store.Campaign{ID: id, Created: t0.Add(time.Duration(i) * 24 * time.Hour)})
	}
	nights := NewNights(camps)
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
		{"found tonight first", seen("", "", "", f), "n3", TonightNew, ""},
		{"found again", seen(f, "", r, f), "n3", TonightStill, ""},
		{"replayed, reproduces", seen(f, r, r, r), "n3", TonightStill, ""},
		{"replayed, fixed", seen(f, r, r, x), "n3", TonightFixed, "exec:toy 0.n4"},
		{"fixed, back", seen(f, x, x, f), "n3", TonightRegressed, ""},
		{"fixed, replay back", seen(f, f, x, r), "n3", TonightRegressed, ""},
		{"still fixed", seen(f, x, x, x), "n3", "", ""},
		{"not looked at tonight", seen(f, f, f, ""), "n3", "", ""},
		{"since n1: new in n2, fixed", seen("", f, r, x), "n1", TonightFixed, "exec:toy 0.n4"},
		{"since n1: fixed at n1, still open", seen(x, f, r, r), "n1", TonightRegressed, ""},
		{"legacy bucket of tonight", store.Bucket{Key: "k", Campaign: "n4"}, "n3", TonightNew, ""},
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

func TestClassify(t *testing.T) {
	buckets := []store.Bucket{
		bucketFor("k1", "old", "llc19", "ptxisa.ldsm.target-ptx-version", ""),
		bucketFor("k2", "latest", "ptxas", "ptxisa.ldsm.shape", ""),
		bucketFor("k3", "latest", "llc22", "ptxisa.ldsm.shape", "LLVM ERROR: Cannot select"),
	}
	sups := []store.Suppression{{Oracle: "llc22", DiagContains: "Cannot select", Reason: "known LLVM issue"}}
	got := Classify(buckets, "latest", sups)
	want := map[string]string{"k1": StatusKnown, "k2": StatusNew, "k3": StatusSuppressed}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3 (suppressed buckets are listed, not hidden)", len(got))
	}
	for _, e := range got {
		if e.Status != want[e.Key] {
			t.Errorf("bucket %s: status %s, want %s", e.Key, e.Status, want[e.Key])
		}
	}
	if got[0].Key != "k2" || got[2].Suppressed != "known LLVM issue" {
		t.Errorf("order/reasons wrong: %+v", got)
	}
}

func TestReadSuppressions(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`[{"oracle":"llc19","rule":"ptxisa.ldsm.target-ptx-version","reason":"llc 19 raises .version"}]`), 0o644)
	ss, err := ReadSuppressions(good)
	if err != nil || len(ss) != 1 || ss[0].Oracle != "llc19" {
		t.Fatalf("%+v %v", ss, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"oracle":"llc19"}]`), 0o644)
	if _, err := ReadSuppressions(bad); err == nil {
		t.Fatal("a suppression file entry without a reason was accepted")
	}
}
