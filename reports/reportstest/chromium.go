// Package reportstest opens reports in a real headless Chromium for tests:
// the DOM the browser built, not the bytes the template wrote.
package reportstest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromiumFlags run Chromium headless on a machine with no network, no
// display and no sandbox support (containers, CI runners as root).
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync"}

// Chromium returns the browser binary: $LEGALFUZZ_CHROMIUM, else the
// first of Debian's and other distributions' names on PATH; it skips the
// test when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("LEGALFUZZ_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed: run scripts/install-chromium.sh (as root) or set LEGALFUZZ_CHROMIUM to a Chromium binary")
	return ""
}

// DumpDOM loads the page in headless Chromium and returns the DOM it
// built (--dump-dom). It skips the test when there is no Chromium.
func DumpDOM(t testing.TB, page string) string {
	t.Helper()
	bin := Chromium(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return stdout.String()
}

// Between returns the part of s from the first start to the next end.
func Between(t testing.TB, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("DOM lacks %q", start)
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		t.Fatalf("DOM: %q is never closed by %q", start, end)
	}
	return s[i : i+j]
}
