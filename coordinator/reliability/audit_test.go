package reliability_test

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
)

const (
	auditCampaign = "audit"
	auditMarker   = "FORGED-BY-TEST"
)

// auditStore is a finished campaign of three kindword cases, each enqueued
// for fixed-a and fixed-b: every pair judged except (third, fixed-b), which
// a dead letter gave up; one bucket with one member. Before the audit, edit
// changes it through the store's API, then raw through bbolt on the closed
// file (as damage or a bug would); either may be nil.
func auditStore(t *testing.T, edit func(db *store.Store, ids []string), raw func(tx *bolt.Tx, ids []string) error) reliability.Audit {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	db := storetest.Open(t, path)
	orcs := []string{"fixed-a", "fixed-b"}
	// Kept in full (KeepAll): the violations are planted into stored cases.
	camp := store.Campaign{ID: auditCampaign, State: store.StateDone, Config: store.CampaignConfig{Oracles: orcs, KeepAll: true}}
	if err := db.PutCampaign(camp); err != nil {
		t.Fatal(err)
	}
	var recs []store.CaseRecord
	var ids []string
	enq := map[string][]string{}
	for _, c := range mustCases(t, "kindword", 3, 99) {
		recs = append(recs, store.CaseRecord{ID: c.ID, Domain: "kindword", Data: c.Value.Encode(), Campaign: auditCampaign, Source: "test"})
		ids = append(ids, c.ID)
		enq[c.ID] = orcs
	}
	if _, err := db.AddCases(auditCampaign, recs); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkEnqueued(auditCampaign, enq); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		for _, o := range orcs {
			if i != 2 || o != "fixed-b" {
				commit(t, db, oracles.Verdict{Oracle: o, Case: id, Domain: "kindword", Kind: oracles.Accept})
			}
		}
	}
	dl := store.DeadLetter{Campaign: auditCampaign, Subject: "deadletters.audit", Reason: "gave up", Time: time.Now(), Message: "LF_RESULTS:1"}
	if err := db.AddDeadLetter(dl, []store.Pair{{Case: ids[2], Oracle: "fixed-b"}}); err != nil {
		t.Fatal(err)
	}
	// A bucket's members are written only by a commit's findings, which
	// needs a policy: the bucket goes in through the API, its member raw.
	if err := db.PutBucket(auditBucket(ids[0], "fixed-a")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateCampaign(auditCampaign, func(c *store.Campaign) { c.Stats.Findings, c.Stats.NewBuckets = 1, 1 }); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(db, ids)
	}
	storetest.Close(t, db)
	rawEdit(t, path, func(tx *bolt.Tx) error {
		member := auditBucket(ids[0], "fixed-a").Key + "\x00" + ids[0]
		if err := tx.Bucket([]byte("members")).Put([]byte(member), []byte{}); err != nil {
			return err
		}
		if raw != nil {
			return raw(tx, ids)
		}
		return nil
	})
	ro, err := store.OpenStoreReadOnly(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	a, err := reliability.AuditCampaign(ro, auditCampaign, auditMarker)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// rawEdit changes a closed store file through bbolt, bypassing the store.
func rawEdit(t *testing.T, path string, f func(*bolt.Tx) error) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(f); err != nil {
		t.Fatal(err)
	}
	if err := bdb.Close(); err != nil {
		t.Fatal(err)
	}
}

func commit(t *testing.T, db *store.Store, v oracles.Verdict) {
	t.Helper()
	if _, err := db.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{v}, Campaign: auditCampaign, Oracle: v.Oracle, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// auditBucket is a bucket of the audit campaign in which tool deviates.
func auditBucket(example, tool string) store.Bucket {
	sig := policy.Signature{Domain: "kindword", Tool: tool, Kind: oracles.Reject, Diag: "bad kind",
		Pair: policy.Pair{A: "fixed-a", B: "fixed-b"}}
	return store.Bucket{Key: "kindword|" + tool + "|bad kind", Signature: sig, Title: tool + " reject: bad kind", Cases: 1,
		Example: example, Campaign: auditCampaign}
}

// TestAuditCampaign plants each violation the soak must catch into an
// otherwise sound store, and checks that the audit counts exactly it.
func TestAuditCampaign(t *testing.T) {
	sound := auditStore(t, nil, nil)
	if !sound.OK() || sound.Cases != 3 || sound.Pairs != 6 || sound.Verdicts != 5 || sound.DeadPairs != 1 || sound.Findings != 1 {
		t.Fatalf("sound store: %+v", sound)
	}
	lost := func(a reliability.Audit) int { return a.Lost }
	double := func(a reliability.Audit) int { return a.Double }
	forged := func(a reliability.Audit) int { return a.ForgedKept }
	for _, tc := range []struct {
		name  string
		edit  func(db *store.Store, ids []string)
		raw   func(tx *bolt.Tx, ids []string) error
		count func(reliability.Audit) int
		want  string
	}{
		{"lost pair", nil, func(tx *bolt.Tx, ids []string) error {
			return tx.Bucket([]byte("verdicts")).Delete([]byte(ids[1] + "\x00fixed-a"))
		}, lost, "lost pair"},
		{"case never enqueued", func(db *store.Store, _ []string) {
			c := mustCases(t, "kindword", 4, 99)[3]
			if _, err := db.AddCases(auditCampaign, []store.CaseRecord{{ID: c.ID, Domain: "kindword", Data: c.Value.Encode(), Campaign: auditCampaign}}); err != nil {
				t.Fatal(err)
			}
		}, nil, lost, "never enqueued"},
		{"verdict and dead", nil, func(tx *bolt.Tx, ids []string) error {
			return tx.Bucket([]byte("dead")).Put([]byte(ids[0]+"\x00fixed-a"), []byte{})
		}, double, "verdict and dead"},
		{"bucket double-counted", func(db *store.Store, ids []string) {
			b := auditBucket(ids[0], "fixed-a")
			b.Cases = 2
			if err := db.PutBucket(b); err != nil {
				t.Fatal(err)
			}
		}, nil, double, "bucket miscounted"},
		{"forged verdict kept", nil, func(tx *bolt.Tx, ids []string) error {
			v := `{"oracle":"fixed-a","case":"` + ids[1] + `","domain":"kindword","verdict":"reject","diagnostic":"` + auditMarker + `"}`
			return tx.Bucket([]byte("verdicts")).Put([]byte(ids[1]+"\x00fixed-a"), []byte(v))
		}, forged, "forged verdict"},
		{"verdict of an oracle never enqueued", func(db *store.Store, ids []string) {
			commit(t, db, oracles.Verdict{Oracle: "gpu", Case: ids[0], Domain: "kindword", Kind: oracles.Reject})
		}, nil, forged, "verdict never asked for"},
		{"forged bucket", func(db *store.Store, ids []string) {
			b := auditBucket(ids[1], "gpu")
			b.Cases, b.Campaign = 0, "elsewhere"
			if err := db.PutBucket(b); err != nil {
				t.Fatal(err)
			}
		}, nil, forged, "forged bucket"},
		{"dead letter recorded twice", nil, func(tx *bolt.Tx, _ []string) error {
			b := tx.Bucket([]byte("deadletters"))
			_, first := b.Cursor().First()
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			return b.Put(binary.BigEndian.AppendUint64(nil, seq), first)
		}, double, "dead letter recorded twice"},
		{"minimized case of no bucket", func(db *store.Store, ids []string) {
			c := mustCases(t, "kindword", 4, 99)[3]
			rec := store.CaseRecord{ID: c.ID, Domain: "kindword", Data: c.Value.Encode(), Campaign: auditCampaign,
				Source: store.MinimizedSource(auditBucket(ids[0], "fixed-a").Key)} // the bucket names no minimized case
			if _, err := db.AddCases("", []store.CaseRecord{rec}); err != nil {
				t.Fatal(err)
			}
		}, nil, forged, "minimized case of no bucket"},
		{"dead mark for a pair never enqueued", nil, func(tx *bolt.Tx, ids []string) error {
			return tx.Bucket([]byte("dead")).Put([]byte(ids[0]+"\x00gpu"), []byte{})
		}, forged, "dead mark never asked for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := auditStore(t, tc.edit, tc.raw)
			if got := tc.count(a); got != 1 || a.OK() {
				t.Errorf("count %d, ok %v; want 1 and not ok: %q", got, a.OK(), a.Violations)
			}
			if !strings.Contains(strings.Join(a.Violations, "\n"), tc.want) {
				t.Errorf("no violation says %q: %q", tc.want, a.Violations)
			}
		})
	}
}
