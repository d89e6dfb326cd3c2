package reports

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// oldStore is a store main wrote before schema 3 (a 1 s campaign on ldsm
// with every installed oracle, 3 buckets), every case and verdict kept.
const oldStore = "testdata/schema2-main-54e4226.db.gz"

// TestOldStoreReportedAndCompacted: a store written before tallies is
// reported from its cases, and its compaction (settled cases folded into
// the night's tally, those nothing needs dropped) is reported the same:
// buckets, claims, both matrices, rule coverage, totals and tonight.
func TestOldStoreReportedAndCompacted(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	gunzip(t, oldStore, old)
	db, err := store.OpenStoreReadOnly(old, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Unix(1e9, 0)
	before, err := Load(db, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	compacted := filepath.Join(dir, "new.db")
	res, err := db.Compact(compacted)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped == 0 || res.Kept == 0 || res.Settled < res.Dropped || res.Cases != res.Dropped+res.Kept {
		t.Fatalf("compaction %+v: want cases dropped and kept, every one counted once", res)
	}
	ndb, err := store.OpenStoreReadOnly(compacted, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ndb.Close()
	after, err := Load(ndb, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Buckets) == 0 || before.Totals.Cases != res.Cases {
		t.Fatalf("old store reported %d buckets, %d cases; want buckets and the %d cases it holds", len(before.Buckets), before.Totals.Cases, res.Cases)
	}
	for name, pair := range map[string][2]any{
		"buckets":  {before.Buckets, after.Buckets},
		"claims":   {before.Claims, after.Claims},
		"counts":   {before.ClaimCounts, after.ClaimCounts},
		"matrix":   {before.Matrix, after.Matrix},
		"coverage": {before.Coverage, after.Coverage},
		"totals":   {before.Totals, after.Totals},
		"tonight":  {before.Tonight, after.Tonight},
		"corpus":   {before.Timeline.Corpus, after.Timeline.Corpus},
	} {
		if a, b := jsonOf(t, pair[0]), jsonOf(t, pair[1]); a != b {
			t.Errorf("%s differ after compaction:\nold %.600s\nnew %.600s", name, a, b)
		}
	}
	cases, _, err := ndb.Counts()
	if err != nil || cases != res.Kept {
		t.Errorf("the compacted store holds %d cases (err %v), want the %d kept", cases, err, res.Kept)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// gunzip writes the gzipped file src to dst.
func gunzip(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
