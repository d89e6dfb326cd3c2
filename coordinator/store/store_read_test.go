package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestForEachCaseReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	if _, err := s.AddCases("", []store.CaseRecord{{ID: "b", Domain: "d"}, {ID: "a", Domain: "d"}, {ID: "c", Domain: "d"}}); err != nil {
		t.Fatal(err)
	}
	_, err := s.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{
		{Oracle: oracles.SpecSeed, Case: "a", Domain: "d", Kind: oracles.Accept},
		{Oracle: "ptxas", Case: "a", Domain: "d", Kind: oracles.Reject},
		{Oracle: oracles.SpecSeed, Case: "b", Domain: "d", Kind: oracles.Reject, Rule: "seed.d.r"},
	}})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("locked by a writer", func(t *testing.T) {
		_, err := store.OpenStoreReadOnly(path, 50*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "still locked") {
			t.Fatalf("open while the writer holds the file: %v, want a lock timeout", err)
		}
	})
	storetest.Close(t, s)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	r, err := store.OpenStoreReadOnly(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	verdicts := map[string]int{}
	err = r.ForEachCase(func(c store.CaseRecord, vs []oracles.Verdict) error {
		ids = append(ids, c.ID)
		verdicts[c.ID] = len(vs)
		for _, v := range vs {
			if v.Case != c.ID {
				t.Errorf("case %s got verdict of case %s", c.ID, v.Case)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "a,b,c" || verdicts["a"] != 2 || verdicts["b"] != 1 || verdicts["c"] != 0 {
		t.Fatalf("walked %v with verdict counts %v; want a,b,c with 2,1,0", ids, verdicts)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatal("a read-only open changed the file")
	}
}

func TestOpenStoreReadOnlyMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	if _, err := store.OpenStoreReadOnly(path, time.Second); err == nil {
		t.Fatal("opened a missing store")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("read-only open created %s", path)
	}
}
