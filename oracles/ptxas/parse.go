package ptxas

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// diagLine matches one ptxas message: "ptxas FILE, line N; error   : MSG"
// or, for messages about a whole entry, "ptxas error   : MSG".
var diagLine = regexp.MustCompile(`^ptxas (?:(.*), line (\d+); )?(error|fatal|warning|info)\s*: (.*)$`)

// entryRef finds an entry name quoted in a message ("Entry function
// 'case_0123abcd' uses too much shared data").
var entryRef = regexp.MustCompile(`'(case_[0-9a-f]+)'`)

// aborted is ptxas's closing line after any error: not a case's diagnostic.
const aborted = "Ptx assembly aborted due to errors"

// report is one ptxas run's output sorted by case.
type report struct {
	// errs holds each entry's error lines, normalized, in output order.
	errs map[int][]string
	// stray holds error and unknown lines that name no entry (header errors
	// included: checkHeader has ruled those out before any batch runs).
	stray []string
}

// message is one ptxas message.
type message struct {
	lineNo, severity, msg string
	// text is the message as a verdict keeps it: "error   : MSG", normalized.
	text string
}

// isError reports whether the message is an error about the input; the
// closing "aborted" line is not.
func (d message) isError() bool {
	return (d.severity == "error" || d.severity == "fatal") && d.msg != aborted
}

// parseLine reads one line of ptxas output; ok is false for a line that is
// not a ptxas message.
func parseLine(line string) (message, bool) {
	m := diagLine.FindStringSubmatch(strings.TrimRight(line, "\r "))
	if m == nil {
		return message{}, false
	}
	return message{lineNo: m[2], severity: m[3], msg: m[4], text: diag.Normalize(m[3] + "   : " + m[4])}, true
}

// parseOutput attributes ptxas's output to the entries of a module. Warnings
// and info lines are not rejections and are dropped.
func parseOutput(out string, table ptx.LineTable, names map[string]int) report {
	r := report{errs: map[int][]string{}}
	for _, line := range strings.Split(out, "\n") {
		d, ok := parseLine(line)
		switch {
		case !ok:
			if s := strings.TrimSpace(line); s != "" {
				r.stray = append(r.stray, diag.Normalize(s))
			}
		case !d.isError():
		default:
			if entry, ok := locate(d.lineNo, d.msg, table, names); ok {
				r.errs[entry] = append(r.errs[entry], d.text)
			} else {
				r.stray = append(r.stray, d.text)
			}
		}
	}
	return r
}

// locate finds the entry a message is about: by its line number through the
// line table, else by an entry name it quotes.
func locate(lineNo, msg string, table ptx.LineTable, names map[string]int) (int, bool) {
	if lineNo != "" {
		n, err := strconv.Atoi(lineNo)
		if err != nil {
			return 0, false
		}
		return table.Entry(n)
	}
	if m := entryRef.FindStringSubmatch(msg); m != nil {
		e, ok := names[m[1]]
		return e, ok
	}
	return 0, false
}
