package coordinator

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

// TestOldStoreReplays: a store written when oracles had release names
// (llc22) holds a bucket of llc 22 accepting what spec/ptxisa rejects.
// Opened for writing, its names become the installations' (llc@22), and
// the night replays the bucket on llc@22; a store left with the old names
// could not replay it (no oracle is named llc22 any more).
func TestOldStoreReplays(t *testing.T) {
	for _, tc := range []struct {
		name     string
		renamed  bool
		replayed int
	}{
		{"renamed on open", true, 1},
		{"old names kept", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "legalfuzz.db")
			c := rejectedSeed(t)
			llc22 := testoracle.New(testoracle.Config{Name: "llc@22", Kind: oracles.Accept})
			orcs := []oracles.Oracle{spec.New(spec.PTXISA), llc22}
			s, err := store.OpenStore(path, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			pair := policy.Pair{A: oracles.SpecPTXISA, B: "llc@22", On: policy.OnVerdict}
			bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, storetest.Judge(t, orcs, c))
			if len(bs) != 1 {
				t.Fatalf("planting: %d buckets", len(bs))
			}
			storetest.Close(t, s)
			writeOldNames(t, path, c.ID, !tc.renamed)

			s = storetest.Open(t, path)
			n, err := ReplayNight(context.Background(), s, oracles.Local{Oracles: orcs}, "tonight")
			if err != nil {
				t.Fatal(err)
			}
			if n.Reproduced != tc.replayed || n.Reproduced+n.Skipped != 1 {
				t.Fatalf("night replay %+v; want %d reproduced", n, tc.replayed)
			}
			if !tc.renamed {
				return
			}
			stored, err := s.Buckets()
			if err != nil || len(stored) != 1 || stored[0].Key != bs[0].Key || stored[0].Signature.Tool != "llc@22" ||
				stored[0].Signature.Pair != pair || !slices.ContainsFunc(stored[0].Nights, func(n store.Sighting) bool { return n.Versions["llc@22"] != "" }) {
				t.Fatalf("stored buckets %+v (%v); want one, of llc@22, under its old key %s", stored, err, bs[0].Key)
			}
			vs, err := s.Verdicts(c.ID)
			if err != nil || !slices.ContainsFunc(vs, func(v oracles.Verdict) bool { return v.Oracle == "llc@22" }) ||
				slices.ContainsFunc(vs, func(v oracles.Verdict) bool { return v.Oracle == "llc22" }) {
				t.Fatalf("the case's verdicts %+v (%v); want llc22's named llc@22", vs, err)
			}
		})
	}
}

// writeOldNames turns a store into one written before installations were
// data: the bucket's tool and pair, and the case's llc verdict, named
// llc22, and no mark that its names are the installations'. keepMark
// leaves that mark, so that opening it renames nothing.
func writeOldNames(t *testing.T, path, caseID string, keepMark bool) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		if !keepMark {
			if err := tx.Bucket([]byte("meta")).Delete([]byte("oracle-names")); err != nil {
				return err
			}
		}
		buckets := tx.Bucket([]byte("buckets"))
		var keys [][]byte
		_ = buckets.ForEach(func(k, _ []byte) error { keys = append(keys, slices.Clone(k)); return nil })
		for _, k := range keys {
			if err := buckets.Put(k, []byte(strings.ReplaceAll(string(buckets.Get(k)), `"llc@22"`, `"llc22"`))); err != nil {
				return err
			}
		}
		verdicts := tx.Bucket([]byte("verdicts"))
		from := []byte(caseID + "\x00llc@22")
		var v oracles.Verdict
		if err := json.Unmarshal(verdicts.Get(from), &v); err != nil {
			return err
		}
		v.Oracle = "llc22"
		data, _ := json.Marshal(v)
		if err := verdicts.Delete(from); err != nil {
			return err
		}
		return verdicts.Put([]byte(caseID+"\x00llc22"), data)
	})
	if err != nil {
		t.Fatal(err)
	}
}
