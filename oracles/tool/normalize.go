package tool

import "regexp"

// normalizers turn the parts of a diagnostic that vary between runs, files
// and cases into placeholders, so one bug gives one stable message.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?:[A-Za-z]:)?(?:/[\w.+-]+)+/?`), "FILE"},              // absolute paths
	{regexp.MustCompile(`\b[\w.-]+\.(?:ptx|mlir|ll|s|cubin|o|json)\b`), "FILE"}, // file names
	{regexp.MustCompile(`FILE:\d+:\d+`), "FILE:LINE:COL"},                       // file:line:col
	{regexp.MustCompile(`FILE:\d+\b`), "FILE:LINE"},                             // file:line
	{regexp.MustCompile(`offset :\d+:\d+`), "offset :LINE:COL"},                 // mlir split offsets
	{regexp.MustCompile(`<stdin>:\d+:\d+`), "<stdin>:LINE:COL"},                 // tools reading stdin
	{regexp.MustCompile(`\bline \d+\b`), "line LINE"},                           // ptxas "line 11"
	{regexp.MustCompile(`%[\w.$]+`), "%V"},                                      // SSA values, PTX registers
	{regexp.MustCompile(`@[\w.$]+`), "@SYM"},                                    // symbols
	{regexp.MustCompile(`\^[\w.$]+`), "^BB"},                                    // MLIR block names
	{regexp.MustCompile(`\b0x[0-9a-fA-F]+\b`), "HEX"},                           // addresses, constants
	{regexp.MustCompile(`\bk_\w+\b|\bcase_[0-9a-f]+\b`), "ENTRY"},               // our entry names
}

// Normalize rewrites a tool diagnostic into its stable form: paths → FILE,
// line and column numbers → LINE/COL, SSA names and registers → %V, symbols →
// @SYM, hex numbers → HEX. Decimal numbers stay: in legality diagnostics
// they usually are the point ("cp-size must be 16").
func Normalize(diag string) string {
	for _, n := range normalizers {
		diag = n.re.ReplaceAllString(diag, n.with)
	}
	return diag
}
