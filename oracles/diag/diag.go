// Package diag turns what a tool printed into stable text, at two levels.
// Normalize is what a verdict's diagnostic holds: the same bug gives the
// same text across runs, batch positions, temporary files and case names,
// but the numbers that are the point of a legality message ("cp-size must
// be 16") stay. Title is the dedup key of a bucket: one line, every number
// gone, so one check failing for different shapes or targets is one bucket.
// The rules are checked against real output of every tool in testdata/.
package diag

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// rule replaces what re matches by with.
type rule struct {
	re   *regexp.Regexp
	with string
}

// normalizers turn the parts of a diagnostic that vary between runs, files
// and cases into placeholders. Order matters: paths before file:line, and
// intrinsic names are freed of their sigil before %V and @SYM take the rest.
var normalizers = []rule{
	// LLVM 19 lowers some inline-asm constraints (f16 wgmma accumulators)
	// from uninitialized bytes: the byte differs run to run.
	{regexp.MustCompile(`for constraint '[^']*'`), "for constraint 'C'"},
	{regexp.MustCompile(`(^|[^\w.])(?:[A-Za-z]:)?(?:/[\w.+-]+)+/?`), "${1}FILE"}, // absolute paths, not "a/b" inside a word
	{regexp.MustCompile(`\b[\w.-]+\.(?:ptx|mlir|ll|s|cubin|o|json)\b`), "FILE"},  // file names
	{regexp.MustCompile(`FILE:\d+:\d+`), "FILE:LINE:COL"},                        // file:line:col
	{regexp.MustCompile(`FILE:\d+\b`), "FILE:LINE"},                              // file:line, mlir "within split at"
	{regexp.MustCompile(`offset :\d+:\d+`), "offset :LINE:COL"},                  // mlir split offsets
	{regexp.MustCompile(`<stdin>:\d+:\d+`), "<stdin>:LINE:COL"},                  // tools reading stdin
	{regexp.MustCompile(`\bline \d+\b`), "line LINE"},                            // ptxas "line 11"
	// The intrinsic is the point of llc's messages: "%llvm.nvvm.x" keeps
	// its name instead of becoming %V.
	{regexp.MustCompile(`[%@](llvm\.[\w.]+)`), "$1"},
	{regexp.MustCompile(`%[\w.$]+`), "%V"},                        // SSA values, PTX registers
	{regexp.MustCompile(`@[\w.$]+`), "@SYM"},                      // symbols
	{regexp.MustCompile(`\^[\w.$]+`), "^BB"},                      // MLIR block names
	{regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`), "HEX"},             // addresses, constants
	{regexp.MustCompile(`\bk_\w+\b|\bcase_[0-9a-f]+\b`), "ENTRY"}, // our entry names
	{regexp.MustCompile(`\bt\d+\b`), "tN"},                        // llc SelectionDAG node names
}

// Normalize rewrites a tool diagnostic into its stable form: paths → FILE,
// line and column numbers → LINE/COL, SSA names and registers → %V, symbols →
// @SYM (intrinsics keep their llvm.* name), block names → ^BB, hex numbers →
// HEX, our kernel names → ENTRY, DAG nodes → tN, and bytes that are not
// printable text → '?'. Decimal numbers stay: in legality diagnostics they
// usually are the point.
func Normalize(text string) string {
	text = printable(text)
	for _, n := range normalizers {
		text = n.re.ReplaceAllString(text, n.with)
	}
	return text
}

// printable replaces invalid UTF-8 and control characters (but newlines and
// tabs) by '?': tools print such bytes from uninitialized memory, and they
// differ run to run.
func printable(text string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || (r < ' ' && r != '\n' && r != '\t') {
			return '?'
		}
		return r
	}, text)
}

// location matches the position prefixes tools put before a message, in
// their normalized form: mlir's split files, file:line:col (mlir-opt 22
// also in split mode), stdin, and ptxas's "ptxas FILE, line N;".
var location = regexp.MustCompile(`(?m)^(?:within split at FILE:LINE offset :LINE:COL: |FILE:LINE:COL: |FILE:LINE: |<stdin>:LINE:COL: |ptxas FILE, line LINE; )`)

// FirstLine is the first line of a tool's output, surrounding space
// trimmed: the one line a failure's summary (an Error verdict, a version
// mismatch, a disagreement's key) shows of it.
func FirstLine(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		return text[:i]
	}
	return text
}

// StripLocations removes the position prefixes from the lines of a
// normalized diagnostic: where a message was printed is not what it says.
func StripLocations(normalized string) string {
	return location.ReplaceAllString(normalized, "")
}
