package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
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

// open opens the store read-only, waiting up to --lock-wait for a campaign
// that holds it.
func (s *storeReadFlags) open() (*store.Store, error) {
	return store.OpenStoreReadOnly(s.db, s.lockWait)
}
