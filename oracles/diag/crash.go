package diag

import (
	"regexp"
	"slices"
	"strings"
)

// The frames of an LLVM tool's stack dump (mlir-opt, llc, llvm-mc print
// the same): what a crash's bucket is keyed by and its issue quotes.

// stackFrame matches a symbolized frame of an LLVM stack dump.
var stackFrame = regexp.MustCompile(`(?m)^\s*#\d+ 0x[0-9a-f]+ ([^(\s][^(]*\(.*?\)) \(`)

// CrashFrames lists the functions an LLVM stack dump in out names, from
// the innermost, without the signal handling that printed it: what an
// upstream crash report quotes. A dump printed without a symbolizer
// (Debian's LLVM 22 root has none on PATH) still names exported
// functions, "name + offset": the same frames, so one crash of 19 and 22
// reads alike. Nil when out holds no dump.
func CrashFrames(out string) []string {
	var frames []string
	for _, m := range stackFrame.FindAllStringSubmatch(out, -1) {
		frames = append(frames, m[1])
	}
	if len(frames) == 0 {
		for _, m := range unsymbolizedFrame.FindAllStringSubmatch(out, -1) {
			if !strings.HasPrefix(m[1], "libc.so") { // gsignal, abort: how it died, not where
				frames = append(frames, unsymbolizedOffset.ReplaceAllString(m[2], ""))
			}
		}
	}
	return slices.DeleteFunc(frames, func(f string) bool {
		return strings.Contains(f, "llvm::sys::") || strings.Contains(f, "SignalHandler")
	})
}

// unsymbolizedOffset is the " + 78" after a function an unsymbolized frame names.
var unsymbolizedOffset = regexp.MustCompile(` \+ \d+$`)

// unsymbolizedFrame matches a frame of a stack dump printed without
// symbolization that names its function (an exported symbol):
// "4  mlir-opt-19  0x000055fe9f3c6ab4 mlir::...::verify() + 84".
var unsymbolizedFrame = regexp.MustCompile(`(?m)^\s*\d+\s+(\S+)\s+0x[0-9a-f]+ (.+ \+ \d+)$`)

// CrashSite keys a crash by the named frames of its unsymbolized stack
// dump (module, function and offset, which address randomization leaves
// alone); "" when the dump names none.
func CrashSite(out string) string {
	var b strings.Builder
	for _, m := range unsymbolizedFrame.FindAllStringSubmatch(out, -1) {
		b.WriteString(m[1] + " " + m[2] + "\n")
	}
	return b.String()
}
