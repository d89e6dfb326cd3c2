package repro

import (
	"os"
	"path/filepath"
)

// ScriptFile is the bundle's runnable reproducer.
const ScriptFile = "repro.sh"

// The exit statuses of repro.sh, those of `git bisect run`: so a bundle
// can bisect a tool's history as it is.
const (
	// ExitFixed: every step ran and the bug did not show.
	ExitFixed = 0
	// ExitReproduces: the deviating tool did what the bucket says.
	ExitReproduces = 1
	// ExitCannotTell: a tool is missing here, or a step before the one
	// under test failed for another reason.
	ExitCannotTell = 125
)

// writeScript writes repro.sh, executable.
func (w *writer) script(text string) {
	w.file(ScriptFile, text)
	if w.err == nil {
		w.err = os.Chmod(filepath.Join(w.dir, ScriptFile), 0o755)
	}
}
