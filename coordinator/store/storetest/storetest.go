// Package storetest opens real bbolt stores for tests and checks their
// consistency when the test ends, as bbolt's own btesting does.
package storetest

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Open opens the store at path, or a fresh one in the test's temp dir when
// path is empty. At cleanup it runs bbolt's consistency check and closes the
// file; a store the test closed itself is skipped.
func Open(t testing.TB, path string) *store.Store {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "legalfuzz.db")
	}
	db, err := store.OpenStore(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := db.Check()
		if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
			return
		}
		if err != nil {
			t.Errorf("store %s inconsistent at cleanup: %v", path, err)
		}
		_ = db.Close()
	})
	return db
}

// Close checks the store's consistency and closes it, for tests that hand the
// file to another reader (a command, a read-only open) before they end.
func Close(t testing.TB, db *store.Store) {
	t.Helper()
	if err := db.Check(); err != nil {
		t.Errorf("store inconsistent: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("close store: %v", err)
	}
}
