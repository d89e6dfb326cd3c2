// Package storetest opens real bbolt stores for tests and checks their
// consistency when the test ends, as bbolt's own btesting does.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
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

// Plant adds case c to the store, in no campaign, and commits the verdicts
// vs, judged by pol, as a campaign would; it returns the buckets they open.
// The tests that need findings in a store (minimization, version replays,
// reproducers) plant them this way rather than write the commit out.
func Plant(t testing.TB, db *store.Store, c domain.Case, pol policy.Policy, vs []oracles.Verdict) []store.Bucket {
	t.Helper()
	if _, err := db.AddCases("", []store.CaseRecord{{ID: c.ID, Domain: c.Domain, Data: c.Value.Encode()}}); err != nil {
		t.Fatal(err)
	}
	res, err := db.CommitVerdicts(store.Commit{Verdicts: vs, Now: time.Unix(1, 0), Judged: pol.Evaluate})
	if err != nil {
		t.Fatalf("plant %s: %v", c.ID, err)
	}
	return res.NewBuckets
}

// Judge judges c with each oracle in turn and returns all their verdicts,
// the verdicts Plant commits when a test plants what real oracles say.
func Judge(t testing.TB, orcs []oracles.Oracle, c domain.Case) []oracles.Verdict {
	t.Helper()
	var vs []oracles.Verdict
	for _, o := range orcs {
		v, err := o.Judge(context.Background(), []domain.Case{c})
		if err != nil {
			t.Fatalf("%s on %s: %v", o.Name(), c.ID, err)
		}
		vs = append(vs, v...)
	}
	return vs
}

// SmallDisk returns a folder on a tmpfs of size bytes, unmounted at
// cleanup: a real file system that fills up, so that a store on it meets
// "no space left on device" from the kernel, as on a full disk. Mounting
// needs root (CAP_SYS_ADMIN); where it is refused the test is skipped,
// saying why.
func SmallDisk(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("a full disk needs a small tmpfs, and mounting one failed (root with CAP_SYS_ADMIN can): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// ReadCase reads a case in its domain's JSON form from a file named
// DOMAIN.KEY.json: how tests keep the cases of a campaign's buckets.
func ReadCase(t testing.TB, path string) domain.Case {
	t.Helper()
	d, ok := fuzz.Lookup(strings.SplitN(filepath.Base(path), ".", 2)[0])
	if !ok {
		t.Fatalf("%s: unknown domain", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.ParseJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return domain.NewCase(d.Name, v)
}
