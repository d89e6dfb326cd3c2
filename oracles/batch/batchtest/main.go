// Package batchtest is the conformance suite every batching oracle runs in a
// few lines (see Run), with the fake tools it needs and a TestMain helper
// that keeps tests away from the user's probe cache.
package batchtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/batch"
)

// Main runs a test binary's tests with the probe cache in a temporary
// directory, so that neither real nor fake tools read or leave answers in
// the user's cache; use it as TestMain's body: os.Exit(batchtest.Main(m)).
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "legalfuzz-probes-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "batchtest:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv(batch.CacheDirEnv, dir); err != nil {
		fmt.Fprintln(os.Stderr, "batchtest:", err)
		return 2
	}
	return m.Run()
}
