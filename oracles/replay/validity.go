package replay

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// RunsClean reports whether the tool reads the text and exits 0 printing
// no error (mlir-opt can print one and exit 0).
func RunsClean(ctx context.Context, bin, name string, lines []string) bool {
	out, rc, ok := runOn(ctx, bin, name, lines)
	return ok && rc == 0 && !errorLine.MatchString(out)
}

// errorLine is an error as LLVM's tools print it: repro.sh's clean.
var errorLine = regexp.MustCompile(`(?im)(^|: )(error|fatal)( |:)`)

// runOn runs bin on the text written to a scratch file named name, output
// to /dev/null, and returns what it printed and its exit status; ok is
// false when it could not run.
func runOn(ctx context.Context, bin, name string, lines []string) (string, int, bool) {
	dir, err := os.MkdirTemp("", "legalfuzz-reduce-")
	if err != nil {
		return "", 0, false
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name)
	if os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644) != nil {
		return "", 0, false
	}
	out, err := exec.CommandContext(ctx, bin, path, "-o", os.DevNull).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0, true
	case errors.As(err, &ee):
		return string(out), ee.ExitCode(), true
	}
	return "", 0, false
}
