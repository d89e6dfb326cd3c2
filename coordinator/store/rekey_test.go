package store_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

// nvgpuTypes is MLIR 19's refusal of an mma.sync element type
// (oracles/diag/testdata/mlir-opt-19-mma-e4m3.txt), its title before
// issue 36 and after: the type words stay now.
const (
	nvgpuTypes      = "x.mlir:4:13: error: expected input data type (i4,i8,f16,bf16,tf32,f64) supported by nvgpu.mma.sync"
	nvgpuTypesOldTi = "error: expected input data type (iN,iN,fN,bfN,tfN,fN) supported by nvgpu.mma.sync"
)

// legalMMA returns the i-th mma seed spec/ptxisa accepts.
func legalMMA(t *testing.T, i int) domain.Case {
	t.Helper()
	for _, v := range mma.Seeds() {
		if j, err := rules.JudgeValue(rules.PTXISA, mma.Name, v); err == nil && j.Accept {
			if i == 0 {
				return domain.NewCase(mma.Name, v)
			}
			i--
		}
	}
	t.Fatal("not enough legal mma seeds")
	return domain.Case{}
}

// plantRefusal plants c refused by a tool ("errs") with diag while
// spec/ptxisa accepts it: a bucket keyed on the diagnostic's title.
func plantRefusal(t *testing.T, s *store.Store, c domain.Case, diag string) store.Bucket {
	t.Helper()
	errs := testoracle.New(testoracle.Config{Name: "errs", Kind: oracles.Reject, Diagnostic: diag})
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "errs", On: policy.OnVerdict}
	bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}},
		storetest.Judge(t, []oracles.Oracle{spec.New(rules.PTXISA), errs}, c))
	if len(bs) != 1 {
		t.Fatalf("planted %d buckets, want 1", len(bs))
	}
	return bs[0]
}

// TestRekeyMergesEqualMinimized: two buckets whose minimized cases are
// one case are one root cause: the second merges into the first, with
// its cases, and its key still finds the bucket.
func TestRekeyMergesEqualMinimized(t *testing.T) {
	s := storetest.Open(t, "")
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	if b1.Key == b2.Key {
		t.Fatal("two titles, one bucket")
	}
	b1.Minimized, b2.Minimized = legalMMA(t, 2).ID, legalMMA(t, 2).ID
	if _, err := s.Rekey(b1, b1.Signature); err != nil {
		t.Fatal(err)
	}
	got, err := s.Rekey(b2, b2.Signature)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	if got.Key != b1.Key || len(all) != 1 || all[0].Cases != 2 {
		t.Fatalf("merged into %s, %d buckets (%+v), want one: %s with 2 cases", got.Key, len(all), all, b1.Key)
	}
	if b, ok, err := s.Bucket(b2.Key); err != nil || !ok || b.Key != b1.Key {
		t.Fatalf("old key %s finds %+v, %t, %v; want bucket %s", b2.Key, b, ok, err, b1.Key)
	}
	members, err := s.Members()
	if err != nil {
		t.Fatal(err)
	}
	if keys := members[legalMMA(t, 1).ID]; len(keys) != 1 || keys[0] != b1.Key {
		t.Fatalf("the merged bucket's case is a member of %v, want [%s]", keys, b1.Key)
	}
}

// TestRekeyMergesEqualTitle: a bucket whose title (tool, verdict,
// diagnostic and rule) equals another's merges into it though its key
// differs (here by the stage its diagnostic starts with, which the title
// leaves out, as the mlir oracle's diagnostics do).
func TestRekeyMergesEqualTitle(t *testing.T) {
	s := storetest.Open(t, "")
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	sig := b1.Signature
	sig.Diag = sig.Stage + ": " + sig.Diag
	if sig.Key() == b1.Key || sig.Title() != b1.Title {
		t.Fatalf("the test's premise: key %s (b1 %s), title %q (b1 %q)", sig.Key(), b1.Key, sig.Title(), b1.Title)
	}
	got, err := s.Rekey(b2, sig)
	if err != nil {
		t.Fatal(err)
	}
	if all, _ := s.Buckets(); got.Key != b1.Key || len(all) != 1 {
		t.Fatalf("re-keyed to %s with %d buckets, want merged into %s", got.Key, len(all), b1.Key)
	}
}

// TestMigrateOldKeys: a schema-4 store keyed on the old titles ("fN" for
// f16) is re-keyed on open: the bucket takes the key today's title gives,
// the old key still finds it, and a new finding of the same refusal joins
// it instead of opening a second bucket.
func TestMigrateOldKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s := storetest.Open(t, path)
	b := plantRefusal(t, s, legalMMA(t, 0), nvgpuTypes)
	storetest.Close(t, s)
	old := b.Signature
	old.Diag = nvgpuTypesOldTi
	oldKey := old.Key()
	if oldKey == b.Key {
		t.Fatal("the old title gives today's key")
	}
	writeOld(t, path, b, old)

	s = storetest.Open(t, path) // migrates
	all, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Key != b.Key || all[0].Signature.Diag != b.Signature.Diag {
		t.Fatalf("after migration: %+v, want one bucket %s titled %q", all, b.Key, b.Signature.Diag)
	}
	if got, ok, err := s.Bucket(oldKey); err != nil || !ok || got.Key != b.Key {
		t.Fatalf("old key %s finds %+v, %t, %v; want bucket %s", oldKey, got, ok, err, b.Key)
	}
	errs := testoracle.New(testoracle.Config{Name: "errs", Kind: oracles.Reject, Diagnostic: nvgpuTypes})
	c := legalMMA(t, 1)
	pair := policy.Pair{A: oracles.SpecPTXISA, B: "errs", On: policy.OnVerdict}
	if bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}},
		storetest.Judge(t, []oracles.Oracle{spec.New(rules.PTXISA), errs}, c)); len(bs) != 0 {
		t.Fatalf("a new finding of the migrated bucket opened %+v", bs)
	}
	if all, _ := s.Buckets(); len(all) != 1 || all[0].Cases != 2 {
		t.Fatalf("after a new finding: %+v, want the one bucket with 2 cases", all)
	}
}

// writeOld rewrites a closed store as a schema-4 build would have written
// bucket b: under the key of its old signature, with its member mark, and
// no aliases.
func writeOld(t *testing.T, path string, b store.Bucket, old policy.Signature) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		bb, mb := tx.Bucket([]byte("buckets")), tx.Bucket([]byte("members"))
		if err := bb.Delete([]byte(b.Key)); err != nil {
			return err
		}
		if err := mb.Delete([]byte(b.Key + "\x00" + b.Example)); err != nil {
			return err
		}
		if err := tx.DeleteBucket([]byte("bucket-aliases")); err != nil && err != bolt.ErrBucketNotFound {
			return err
		}
		b.Key, b.Signature, b.Title = old.Key(), old, old.Title()
		data, err := json.Marshal(b)
		if err != nil {
			return err
		}
		if err := bb.Put([]byte(b.Key), data); err != nil {
			return err
		}
		if err := mb.Put([]byte(b.Key+"\x00"+b.Example), []byte{}); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte(fmt.Sprint(4)))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAddWitnessJoinsItsBucket: two buckets' examples each split off a
// witness of one signature: the first starts its bucket, the second joins
// it as a second case.
func TestAddWitnessJoinsItsBucket(t *testing.T) {
	s := storetest.Open(t, "")
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	sig := b1.Signature
	sig.Diag = "error: a third way"
	w1, err := s.AddWitness(b1, sig, store.Bucket{Minimized: legalMMA(t, 2).ID, Reliability: 3, ReChecks: 3})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := s.AddWitness(b2, sig, store.Bucket{Minimized: legalMMA(t, 3).ID, Reliability: 3, ReChecks: 3})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.Buckets()
	if w1.Key != sig.Key() || w2.Key != w1.Key || w2.Cases != 2 || w2.Minimized != legalMMA(t, 2).ID || len(all) != 3 {
		t.Fatalf("witnesses %+v and %+v, %d buckets; want one bucket %s of 2 cases, minimized to the first witness, beside the two", w1, w2, len(all), sig.Key())
	}
	members, _ := s.Members()
	if keys := members[legalMMA(t, 3).ID]; len(keys) != 1 || keys[0] != sig.Key() {
		t.Fatalf("the second witness is a member of %v, want [%s]", keys, sig.Key())
	}
}

// TestRekeyKeepsWhatMergedMeanwhile: buckets are minimized side by side;
// a bucket merged into b1 while b1 was being minimized stays merged when
// b1's results, taken from the record before the merge, are filed.
func TestRekeyKeepsWhatMergedMeanwhile(t *testing.T) {
	s := storetest.Open(t, "")
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	if _, err := s.Rekey(b2, b1.Signature); err != nil { // b2's case showed b1's signature
		t.Fatal(err)
	}
	b1.Minimized = legalMMA(t, 2).ID
	got, err := s.Rekey(b1, b1.Signature)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cases != 2 || got.Minimized != legalMMA(t, 2).ID {
		t.Fatalf("b1 filed as %+v; want 2 cases (b2 merged meanwhile) and its minimized case", got)
	}
}

// TestMergeCountsNewBuckets: a campaign's new buckets are its buckets
// after merging: a bucket merged into another was not new, and a witness
// split off one is.
func TestMergeCountsNewBuckets(t *testing.T) {
	s := storetest.Open(t, "")
	if err := s.PutCampaign(store.Campaign{ID: "night", Stats: store.Stats{NewBuckets: 2}}); err != nil {
		t.Fatal(err)
	}
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	for _, b := range []*store.Bucket{&b1, &b2} {
		b.Campaign = "night"
		if err := s.PutBucket(*b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Rekey(b2, b1.Signature); err != nil {
		t.Fatal(err)
	}
	if c, _, err := s.GetCampaign("night"); err != nil || c.Stats.NewBuckets != 1 {
		t.Fatalf("campaign stats %+v, %v; want 1 new bucket after the merge", c.Stats, err)
	}
	sig := b1.Signature
	sig.Diag = "error: a third way"
	if _, err := s.AddWitness(b1, sig, store.Bucket{Minimized: legalMMA(t, 2).ID}); err != nil {
		t.Fatal(err)
	}
	c, _, err := s.GetCampaign("night")
	if err != nil || c.Stats.NewBuckets != 2 || c.Stats.Domains["mma"].NewBuckets != 0 {
		t.Fatalf("campaign stats %+v, %v; want 2 new buckets (2, one merged away, one witness), domain mma +1-1", c.Stats, err)
	}
}

// TestMergeTwins: two buckets left apart with one minimized case (filed
// with PutBucket, as two minimizations side by side could leave them) are
// one after MergeTwins, the other key an alias; a bucket of another case
// stays.
func TestMergeTwins(t *testing.T) {
	s := storetest.Open(t, "")
	b1 := plantRefusal(t, s, legalMMA(t, 0), "error: one way to say it")
	b2 := plantRefusal(t, s, legalMMA(t, 1), "error: another way")
	b3 := plantRefusal(t, s, legalMMA(t, 3), "error: a third")
	b1.Minimized, b2.Minimized, b3.Minimized = legalMMA(t, 2).ID, legalMMA(t, 2).ID, legalMMA(t, 3).ID
	for _, b := range []store.Bucket{b1, b2, b3} {
		if err := s.PutBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.MergeTwins()
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Buckets()
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(all) != 2 {
		t.Fatalf("merged %d, %d buckets left; want 1 merged, 2 left", n, len(all))
	}
	for _, k := range []string{b1.Key, b2.Key} {
		b, ok, err := s.Bucket(k)
		if err != nil || !ok || b.Minimized != legalMMA(t, 2).ID {
			t.Errorf("key %s finds %+v (%t, %v); want the merged bucket", k, b, ok, err)
		}
	}
	if n, err := s.MergeTwins(); n != 0 || err != nil {
		t.Errorf("a second pass merged %d (%v); want none", n, err)
	}
}
