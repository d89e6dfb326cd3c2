// Package toolchaintest gives tests the LLVM installations make oracles
// made, and copies of them with one tool replaced by a misbehaving one.
package toolchaintest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Release returns the installed release of an LLVM major version, or
// skips the test saying how to install it.
func Release(t testing.TB, major int) toolchain.Installation {
	t.Helper()
	in, err := toolchain.Release(context.Background(), major)
	if err != nil {
		t.Skipf("LLVM %d not installed: %v", major, err)
	}
	return in
}

// Trunk returns the installation of LLVM main make oracles made, or skips
// the test saying how to install it.
func Trunk(t testing.TB) toolchain.Installation {
	t.Helper()
	in, ok := toolchain.Find(context.Background(), toolchain.Options{}, toolchain.Trunk)
	if !ok {
		t.Skip("LLVM trunk not installed (make oracles)")
	}
	return in
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
