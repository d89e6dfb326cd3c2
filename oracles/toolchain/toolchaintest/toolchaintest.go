// Package toolchaintest gives tests the LLVM installations make oracles
// made, and copies of them with one tool replaced by a misbehaving one.
package toolchaintest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Release returns the installed release of an LLVM major version, or
// skips the test saying how to install it.
func Release(t testing.TB, major int) toolchain.Installation {
	t.Helper()
	r := found(fmt.Sprint(major), func() (toolchain.Installation, error) {
		return toolchain.Release(context.Background(), major)
	})
	if r.err != nil {
		t.Skipf("LLVM %d not installed: %v", major, r.err)
	}
	return r.in
}

// Trunk returns the installation of LLVM main make oracles made, or skips
// the test saying how to install it.
func Trunk(t testing.TB) toolchain.Installation {
	t.Helper()
	r := found(toolchain.Trunk, func() (toolchain.Installation, error) {
		in, ok := toolchain.Find(context.Background(), toolchain.Options{}, toolchain.Trunk)
		if !ok {
			return in, errors.New("not found")
		}
		return in, nil
	})
	if r.err != nil {
		t.Skip("LLVM trunk not installed (make oracles)")
	}
	return r.in
}

// lookup is the answer of one search for an installation.
type lookup struct {
	in  toolchain.Installation
	err error
}

// lookups are the installations found so far, by label: each search
// probes every installation's tools, and the tests of a package ask for
// the same few dozens of times.
var (
	lookupsMu sync.Mutex
	lookups   = map[string]lookup{}
)

// found returns the answer for label, searching with find the first time.
func found(label string, find func() (toolchain.Installation, error)) lookup {
	lookupsMu.Lock()
	defer lookupsMu.Unlock()
	r, ok := lookups[label]
	if !ok {
		r.in, r.err = find()
		lookups[label] = r
	}
	return r
}

// WithTool returns a copy of the installation, in a folder of the test's,
// whose tool of that name is the program at path (a fake that runs the
// real tool for --version); the other tools are the installation's.
func WithTool(t testing.TB, in toolchain.Installation, name, path string) toolchain.Installation {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(in.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		target := filepath.Join(in.Dir, e.Name())
		if e.Name() == name {
			target = path
		}
		if err := os.Symlink(target, filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
		if err := os.Symlink(path, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	in.Dir = dir
	return in
}
