package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/live"
)

// storeReadFlags are the flags of a command that only reads the store, which
// a running campaign may hold open: --db and --lock-wait.
type storeReadFlags struct {
	db       string
	lockWait time.Duration
}

// add registers --db and --lock-wait on cmd.
func (s *storeReadFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.db, "db", "legalfuzz-out/legalfuzz.db", "bbolt store to read")
	f.DurationVar(&s.lockWait, "lock-wait", 5*time.Second, "how long to wait while a campaign holds the store")
}

// open opens the store read-only. While a campaign holds it, it reads a
// snapshot the campaign serves (saying so in one line on w), else waits up
// to --lock-wait for the lock.
func (s *storeReadFlags) open(w io.Writer) (*store.Store, error) {
	return openForReading(w, s.db, s.lockWait)
}

// openForReading is live.Open, its note written to w, and the store's
// pages checked (store.Verify): a reader names a damaged store and store
// check, whatever part of it the reader needs.
func openForReading(w io.Writer, path string, wait time.Duration) (*store.Store, error) {
	db, note, err := live.Open(path, wait)
	if note != "" {
		fmt.Fprintln(w, "legalfuzz: "+note)
	}
	if err != nil {
		return nil, err
	}
	if err := db.Verify(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
