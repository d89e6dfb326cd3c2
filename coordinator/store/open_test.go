package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/oracles"
)

type opener func(string, time.Duration) (*store.Store, error)

var openers = map[string]opener{"write": store.OpenStore, "read": store.OpenStoreReadOnly}

// unchanged fails the test if the file at path changed during f.
func unchanged(t *testing.T, path string, f func()) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f()
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("%s changed (%v)", path, err)
	}
}

func TestForeignFilesRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other-app")); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, bytes.Repeat([]byte("not a database\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{empty, foreign, text} {
		for mode, open := range openers {
			t.Run(filepath.Base(path)+"/"+mode, func(t *testing.T) {
				unchanged(t, path, func() {
					s, err := open(path, time.Second)
					if !errors.Is(err, store.ErrNotStore) {
						t.Errorf("opened: %v, want ErrNotStore", err)
					}
					if s != nil {
						s.Close()
					}
				})
			})
		}
	}
}

func TestReadNeverCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	if _, err := store.OpenStoreReadOnly(path, time.Second); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only open of a missing store: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read created %s", path)
	}
}

func TestFIFORefusedWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.db")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for mode, open := range openers {
		if _, err := open(path, time.Second); !errors.Is(err, store.ErrNotStore) {
			t.Errorf("%s open of a FIFO: %v, want ErrNotStore", mode, err)
		}
	}
}

// filledStore writes a store with enough verdicts to span many pages.
func filledStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legalfuzz.db")
	s := storetest.Open(t, path)
	var vs []oracles.Verdict
	for i := range 3000 {
		vs = append(vs, oracles.Verdict{Oracle: "ptxas", Case: fmt.Sprintf("case-%05d", i), Domain: "d", Kind: oracles.Reject,
			Diagnostic: strings.Repeat("x", 200)})
	}
	if _, err := s.CommitVerdicts(store.Commit{Verdicts: vs}); err != nil {
		t.Fatal(err)
	}
	storetest.Close(t, s)
	return path
}

func TestTruncatedStoreIsAClearError(t *testing.T) {
	path := filledStore(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for mode, open := range openers {
		if _, err := open(path, time.Second); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "store check") {
			t.Errorf("%s open of a truncated store: %v, want ErrCorrupt naming store check", mode, err)
		}
	}
	s, err := store.OpenDamaged(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if damage := s.Inspect(); len(damage) == 0 || !strings.Contains(damage[0], "truncated") {
		t.Fatalf("inspect found %q, want the truncation first", damage)
	}
	salvaged := filepath.Join(t.TempDir(), "salvaged.db")
	res, err := s.Salvage(salvaged)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lost) == 0 || res.Copied["verdicts"] >= 3000 {
		t.Fatalf("salvage %+v: want the lost part reported", res)
	}
	out := storetest.Open(t, salvaged) // a sound store, checked at cleanup, whatever it kept
	if damage := out.Inspect(); len(damage) != 0 {
		t.Fatalf("salvaged store is damaged: %q", damage)
	}
}

func TestSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { // the release before the schema record
		for _, b := range []string{"campaigns", "cases", "verdicts", "buckets", "members", "deadletters"} {
			if _, err := tx.CreateBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenStoreReadOnly(path, time.Second)
	if err != nil {
		t.Fatalf("a schema-1 store does not read: %v", err)
	}
	r.Close()
	storetest.Close(t, storetest.Open(t, path)) // migrates
	db, err = bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if got := string(tx.Bucket([]byte("meta")).Get([]byte("schema"))); got != fmt.Sprint(store.Schema) {
			return fmt.Errorf("schema after migration %q, want %d", got, store.Schema)
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("99"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for mode, open := range openers {
		if _, err := open(path, time.Second); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("%s open of a schema-99 store: %v, want refused as newer", mode, err)
		}
	}
}

// TestFullDisk: a store whose disk fills up fails the commit with ErrWrite
// naming the file and the kernel's reason, keeps that as its WriteErr, and
// holds everything committed before, consistent.
func TestFullDisk(t *testing.T) {
	path := filepath.Join(storetest.SmallDisk(t, 256<<10), "legalfuzz.db")
	s := storetest.Open(t, path)
	big := strings.Repeat("a diagnostic of some length\n", 2<<10)
	var err error
	stored := 0
	for i := 0; i < 100 && err == nil; i++ {
		v := oracles.Verdict{Oracle: "o", Case: fmt.Sprint(i), Domain: "d", Kind: oracles.Error, Diagnostic: big}
		if _, err = s.CommitVerdicts(store.Commit{Now: time.Unix(1, 0), Verdicts: []oracles.Verdict{v}}); err == nil {
			stored++
		}
	}
	if !errors.Is(err, store.ErrWrite) || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), path) {
		t.Fatalf("after %d commits: %v; want ErrWrite naming %s and the full disk", stored, err, path)
	}
	t.Logf("after %d commits: %v", stored, err)
	if werr := s.WriteErr(); !errors.Is(werr, store.ErrWrite) {
		t.Errorf("WriteErr = %v, want the failed write", werr)
	}
	if _, n, err := s.Counts(); err != nil || n != stored {
		t.Errorf("%d verdicts readable, %v; want the %d committed", n, err, stored)
	}
}
