package ptxas

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/diag"
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
	file, lineNo, severity, msg string
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
	return message{file: m[1], lineNo: m[2], severity: m[3], msg: m[4], text: diag.Normalize(m[3] + "   : " + m[4])}, true
}

// parseOutput attributes ptxas's output to the entries of a batch, by the
// file and line each message names. Warnings and info lines are not
// rejections and are dropped.
func parseOutput(out string, b Batch) report {
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
			if pos, ok := b.locate(d); ok {
				r.errs[pos] = append(r.errs[pos], d.text)
			} else {
				r.stray = append(r.stray, d.text)
			}
		}
	}
	return r
}

// locate finds the run position of the entry a message is about: by its
// file and line through the file's line table, else by an entry name it
// quotes.
func (b Batch) locate(d message) (int, bool) {
	if d.lineNo != "" {
		n, err := strconv.Atoi(d.lineNo)
		if err != nil {
			return 0, false
		}
		f, ok := b.file(d.file)
		if !ok {
			return 0, false
		}
		e, ok := f.Lines.Entry(n)
		if !ok {
			return 0, false
		}
		return f.items[e], true
	}
	if m := entryRef.FindStringSubmatch(d.msg); m != nil {
		pos, ok := b.names[m[1]]
		return pos, ok
	}
	return 0, false
}

// file finds the module a message's file name (a path) refers to.
func (b Batch) file(name string) (File, bool) {
	base := filepath.Base(name)
	for _, f := range b.Files {
		if f.Name == base {
			return f, true
		}
	}
	return File{}, false
}
