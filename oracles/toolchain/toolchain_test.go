package toolchain_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestParseVersion reads the version lines LLVM tools print: Debian's, a
// release's and a build of main's.
func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		out     string
		version string
		major   int
		ok      bool
	}{
		{"Debian LLVM version 19.1.7\n  Optimized build.\n", "19.1.7", 19, true},
		{"LLVM (http://llvm.org/):\n  LLVM version 22.1.8\n", "22.1.8", 22, true},
		{"LLVM (http://llvm.org/):\n  LLVM version 24.0.0git\n  Optimized build.\n", "24.0.0git", 24, true},
		{"mlir-opt: Unknown command line argument '--version'", "", 0, false},
	} {
		v, major, ok := toolchain.ParseVersion(tc.out)
		if v != tc.version || major != tc.major || ok != tc.ok {
			t.Errorf("%q: %q %d %t, want %q %d %t", tc.out, v, major, ok, tc.version, tc.major, tc.ok)
		}
	}
}

// fakeBuild writes a folder of LLVM tools that print version and do
// nothing else: a user's build, as far as discovery can tell.
func fakeBuild(t *testing.T, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "build")
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"llc", "mlir-opt", "llvm-mc"} {
		body := "#!/bin/sh\necho 'LLVM (http://llvm.org/):'\necho '  LLVM version " + version + "'\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestNamedInstallations: a user's build is found by its folder (or its
// bin/), labelled by its version unless named; two of one label, a
// folder without LLVM tools and a bad label are the user's errors.
func TestNamedInstallations(t *testing.T) {
	ctx := context.Background()
	build := fakeBuild(t, "24.0.0git")
	found, _, err := toolchain.Discover(ctx, toolchain.Options{Named: []string{build, "mine=" + filepath.Join(build, "bin")}})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]toolchain.Installation{}
	for _, in := range found {
		labels[in.Label] = in
	}
	for _, label := range []string{"24git", "mine"} {
		in, ok := labels[label]
		if !ok || !in.Named || in.Version != "24.0.0git" || in.Major != 24 || !in.Main() || in.Dir != filepath.Join(build, "bin") {
			t.Errorf("installation %s: %+v (found %v)", label, in, found)
		}
	}
	if last := found[len(found)-1]; !last.Main() {
		t.Errorf("installations not oldest first: %v", found)
	}
	for _, bad := range [][]string{{build, build}, {t.TempDir()}, {"no/such=" + build}} {
		if _, _, err := toolchain.Discover(ctx, toolchain.Options{Named: bad}); err == nil {
			t.Errorf("--toolchain %v: no error", bad)
		}
	}
}

// TestToolchainsFile reads a nightly's toolchains file: one installation
// a line, comments and blank lines skipped.
func TestToolchainsFile(t *testing.T) {
	build := fakeBuild(t, "23.1.4")
	file := filepath.Join(t.TempDir(), "toolchains")
	text := "# my builds\n\nrel23=" + build + "  # a release build\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	found, _, err := toolchain.Discover(context.Background(), toolchain.Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	var got *toolchain.Installation
	for i := range found {
		if found[i].Label == "rel23" {
			got = &found[i]
		}
	}
	if got == nil || got.Main() || got.Major != 23 || !got.Named {
		t.Fatalf("rel23 not found as a release: %v", found)
	}
	if _, _, err := toolchain.Discover(context.Background(), toolchain.Options{File: file + ".missing"}); err == nil {
		t.Error("a missing toolchains file gave no error")
	}
}

// TestJudging: by default a campaign judges with the newest release,
// every build of main and every installation the user named.
func TestJudging(t *testing.T) {
	ins := []toolchain.Installation{
		{Label: "19", Major: 19, Version: "19.1.7"},
		{Label: "22", Major: 22, Version: "22.1.8"},
		{Label: "old", Major: 18, Version: "18.1.0", Named: true},
		{Label: "23", Major: 23, Version: "23.1.4"},
		{Label: "trunk", Major: 24, Version: "24.0.0", Snapshot: "2026-10-25 7e3c57157096"},
	}
	var got []string
	for _, in := range toolchain.Judging(ins) {
		got = append(got, in.Label)
	}
	if strings.Join(got, ",") != "old,23,trunk" {
		t.Errorf("judging with %v, want old, 23 and trunk", got)
	}
	got = nil
	for _, in := range toolchain.Sampling(ins) {
		got = append(got, in.Label)
	}
	if strings.Join(got, ",") != "23" {
		t.Errorf("sampling with %v, want 23 (the newest release beside trunk)", got)
	}
	if got := toolchain.Sampling(ins[:4]); len(got) != 0 {
		t.Errorf("without a build of main, sampling with %v; want every release judging in full", got)
	}
}

// TestInstalledReleaseRuns: the installations make oracles made read
// their version from their own tools, and Locate refuses a tool of
// another version put in their place.
func TestInstalledReleaseRuns(t *testing.T) {
	in := toolchaintest.Release(t, 19)
	if in.Label != "19" || in.Major != 19 || !strings.HasPrefix(in.Version, "19.") || in.Main() || in.Source == "" {
		t.Fatalf("installation %+v", in)
	}
	llc, err := in.Locate(context.Background(), "llc")
	if err != nil || llc.Version != in.Version {
		t.Fatalf("llc: %+v, %v", llc, err)
	}
	other := fakeBuild(t, "99.0.0")
	swapped := toolchaintest.WithTool(t, in, "llc", filepath.Join(other, "bin", "llc"))
	if _, err := swapped.Locate(context.Background(), "llc"); err == nil || !strings.Contains(err.Error(), "not the installation's") {
		t.Errorf("llc of LLVM 99 in LLVM 19's place: %v", err)
	}
}
