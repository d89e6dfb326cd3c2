package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Schema is the store format this build writes (3: nights' tallies, and
// settled cases dropped unless something needs them, see settle.go; 4:
// verdicts name their tool version in the versions bucket, which a build
// of schema 3 would read as no version; 5: bucket keys from titles that
// keep type words, one bucket per root cause, see rekeyOld). A store records its schema in the
// meta bucket; a store from before the record (schema 1 without the key)
// is migrated on open, a newer one is refused.
const Schema = 5

var (
	bucketMeta = []byte("meta")
	keySchema  = []byte("schema")
)

// ErrCorrupt marks a store whose file is damaged: bbolt's own checks failed
// or a record does not decode. `legalfuzz store check` says where, and
// `legalfuzz store salvage` copies what can still be read.
var ErrCorrupt = errors.New("store is corrupt")

// errRecord marks a record that does not decode: the store's transactions
// (view, update) turn it into ErrCorrupt naming the file.
var errRecord = errors.New("corrupt")

// ErrNotStore marks a file that is not a legalfuzz store: another program's
// bbolt file, an empty file, anything else.
var ErrNotStore = errors.New("not a legalfuzz store")

// ErrLocked marks a store another process holds open for writing (a
// running campaign) past the wait: reads go through live.Open, which reads
// a snapshot the campaign serves instead.
var ErrLocked = errors.New("still locked")

// ErrWrite marks a transaction the store could not write to its file (a
// full disk, an I/O error): nothing of it was kept, and what was committed
// before is intact. Store.WriteErr keeps the first such error.
var ErrWrite = errors.New("cannot write the store")

// Store is the campaign database: cases, verdicts, finding buckets,
// campaigns and dead letters, in one bbolt file.
type Store struct {
	db   *bolt.DB
	path string
	// writeErr is the first ErrWrite of any transaction.
	writeErr atomic.Pointer[error]
}

// WriteErr returns the first error that kept a transaction from being
// written to the file (ErrWrite), or nil. A caller that cannot tell which
// of its writes failed (a campaign, many loops writing) stops on it.
func (s *Store) WriteErr() error {
	if p := s.writeErr.Load(); p != nil {
		return *p
	}
	return nil
}

// OpenStore opens the store at path for writing, creating it when no file is
// there. An existing file must be a legalfuzz store of this schema or an
// older one (migrated); anything else is refused untouched. A second process
// opening the same file waits up to timeout for the lock, then fails.
func OpenStore(path string, timeout time.Duration) (*Store, error) {
	err := regularNonEmpty(path)
	fresh := errors.Is(err, os.ErrNotExist)
	if err != nil && !fresh {
		return nil, err
	}
	if !fresh { // a read-only look first: a damaged file must fault there, not while bbolt holds it for writing
		probe, err := open(path, &bolt.Options{Timeout: timeout, ReadOnly: true})
		if err != nil {
			return nil, err
		}
		probe.Close()
	}
	s, err := open(path, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	if err := s.update(func(tx *bolt.Tx) error { return initSchema(tx, fresh) }); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	warnIfLarge(path)
	return s, nil
}

// OpenExisting opens an existing store for writing, as commands that change
// a store a campaign made do (minimize, triage suppress): a misspelled path
// is an error, not a new empty store.
func OpenExisting(path string, timeout time.Duration) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return OpenStore(path, timeout)
}

// OpenStoreReadOnly opens an existing store for reading only, as reports and
// triage do: it never creates or changes the file and takes a shared lock,
// so it can run beside other readers. While a campaign holds the file it
// waits up to timeout, then fails.
func OpenStoreReadOnly(path string, timeout time.Duration) (*Store, error) {
	if err := regularNonEmpty(path); err != nil {
		return nil, err
	}
	s, err := open(path, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	if err := s.view(func(tx *bolt.Tx) error { return checkSchema(tx) }); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// regularNonEmpty refuses a missing path, devices, FIFOs and empty files
// before bbolt sees them: bbolt would block on a FIFO and silently format an
// empty file.
func regularNonEmpty(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("open store %s: %w: not a regular file", path, ErrNotStore)
	}
	if st.Size() == 0 {
		return fmt.Errorf("open store %s: %w: the file is empty (remove it to start a new store)", path, ErrNotStore)
	}
	return nil
}

// OpenDamaged opens a store read-only for `store check` and `store salvage`
// only: it skips the truncation check, so reads can reach damaged pages;
// they fail with ErrCorrupt rather than crash.
func OpenDamaged(path string, timeout time.Duration) (*Store, error) {
	if err := regularNonEmpty(path); err != nil {
		return nil, err
	}
	return openFile(path, &bolt.Options{Timeout: timeout, ReadOnly: true})
}

// open opens the bbolt file and refuses a truncated one.
func open(path string, opts *bolt.Options) (*Store, error) {
	s, err := openFile(path, opts)
	if err != nil {
		return nil, err
	}
	if err := s.view(s.checkSize); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openFile opens the bbolt file, turning a damaged one into ErrCorrupt.
func openFile(path string, opts *bolt.Options) (s *Store, err error) {
	mode := os.FileMode(0o644)
	if opts.ReadOnly {
		mode = 0o444
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // bbolt reads the freelist while opening
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, corrupt(path, r)
		}
	}()
	db, err := bolt.Open(path, mode, opts)
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("open store %s: %w after %s (is a campaign running on it?)", path, ErrLocked, opts.Timeout)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch):
		return nil, fmt.Errorf("open store %s: %w: %v", path, ErrNotStore, err)
	case errors.Is(err, bolt.ErrChecksum):
		return nil, corrupt(path, err)
	case err != nil:
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// checkSize refuses a truncated file before anything reads it: its pages
// would be read past the end of the mapping, a fault no recover catches.
func (s *Store) checkSize(tx *bolt.Tx) error {
	st, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	if need := tx.Size(); st.Size() < need {
		return corrupt(s.path, fmt.Sprintf("the file is truncated: %d bytes, its pages need %d", st.Size(), need))
	}
	return nil
}

// initSchema creates a fresh store's buckets, or checks an existing one's
// schema and migrates an older one (its buckets, and its oracles' old
// names: renameOracles).
func initSchema(tx *bolt.Tx, fresh bool) error {
	if !fresh {
		if err := checkSchema(tx); err != nil {
			return err
		}
	}
	for _, b := range append(allBuckets, bucketMeta) {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	if err := renameOracles(tx, fresh); err != nil {
		return err
	}
	if was := storedSchema(tx); !fresh && was < 5 {
		if err := rekeyOld(tx); err != nil {
			return fmt.Errorf("re-key the buckets of schema %d: %w", was, err)
		}
	}
	return tx.Bucket(bucketMeta).Put(keySchema, fmt.Appendf(nil, "%d", Schema))
}

// storedSchema is the schema the store records, 1 before the record.
func storedSchema(tx *bolt.Tx) int {
	v := 1
	if meta := tx.Bucket(bucketMeta); meta != nil {
		fmt.Sscanf(string(meta.Get(keySchema)), "%d", &v)
	}
	return v
}

// checkSchema accepts a legalfuzz store of this schema or an older one; the
// buckets an older one lacks are created when it is opened for writing.
func checkSchema(tx *bolt.Tx) error {
	for _, b := range coreBuckets {
		if tx.Bucket(b) == nil {
			return fmt.Errorf("%w: no %q bucket", ErrNotStore, b)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return nil // schema 1: the release before the meta bucket
	}
	var v int
	if _, err := fmt.Sscanf(string(meta.Get(keySchema)), "%d", &v); err != nil {
		return fmt.Errorf("%w: unreadable schema %q", ErrCorrupt, meta.Get(keySchema))
	}
	if v > Schema {
		return fmt.Errorf("schema %d is newer than this legalfuzz reads (%d): upgrade legalfuzz", v, Schema)
	}
	return nil
}

// view and update run a transaction, turning a bbolt panic on a damaged page
// into ErrCorrupt: a corrupt file is a clear error, never a crash.
func (s *Store) view(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a damaged mapping faults
	defer s.recoverCorrupt(&err)
	return s.named(s.db.View(fn))
}

// named is err, or, for a record that does not decode, the store's damage
// named with what to do (corrupt).
func (s *Store) named(err error) error {
	if errors.Is(err, errRecord) && !errors.Is(err, ErrCorrupt) {
		return corrupt(s.path, err)
	}
	return err
}

// An error of update that is not fn's own is the file's: ErrWrite.
func (s *Store) update(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.recoverCorrupt(&err)
	var fnErr error
	err = s.named(s.db.Update(func(tx *bolt.Tx) error { fnErr = fn(tx); return fnErr }))
	if err != nil && fnErr == nil {
		err = fmt.Errorf("%w %s: %w", ErrWrite, s.path, err)
		first := err
		s.writeErr.CompareAndSwap(nil, &first)
	}
	return err
}

func (s *Store) recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = corrupt(s.path, r)
	}
}

// corrupt says a store is damaged and what to do about it.
func corrupt(path string, what any) error {
	return fmt.Errorf("%w: %s: %v; run legalfuzz store check --db %s (or store salvage)", ErrCorrupt, path, what, path)
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Snapshot writes a consistent copy of the whole file to w as of one read
// transaction, while writers go on: how a reader gets a store a campaign
// holds open (see live).
func (s *Store) Snapshot(w io.Writer) (int64, error) {
	var n int64
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}
