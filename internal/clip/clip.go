// Package clip bounds the text legalfuzz quotes: a tool's output, a
// diagnostic, an input value. A few KiB say what went wrong; a tool that
// prints megabytes, or a case holding a 15 MiB string, must not become an
// error line, a log line, a title or a stored record of that size.
package clip

import (
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"
)

// Max is how much of a text an error, a log line, a title or the store
// quotes.
const Max = 4 << 10

// Text is text cut to at most Max bytes, at a character boundary, ending
// with how much was cut: "... 36864 bytes more". Text within the bound is
// returned as it is, so a text clipped twice is clipped once.
func Text(text string) string { return To(text, Max) }

// To is Text with a bound of n bytes (at least 64).
func To(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := max(n-len(suffix), 0) // the suffix fits within n, whatever the count
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... %d bytes more", text[:cut], len(text)-cut)
}

// suffix is as long as the longest "... N bytes more" To writes.
const suffix = "... 18446744073709551615 bytes more"

// Lines is text with each of its lines cut as Text cuts it: an error that
// lists many short reasons stays whole, one that quotes a flood does not.
func Lines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Text(l)
	}
	return strings.Join(lines, "\n")
}

// LogAttr cuts a log record's text and error values (slog's ReplaceAttr):
// a log line quotes what a tool or a worker sent, bounded like the rest.
func LogAttr(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value; {
	case v.Kind() == slog.KindString && len(v.String()) > Max:
		a.Value = slog.StringValue(Text(v.String()))
	case v.Kind() == slog.KindAny:
		if err, ok := v.Any().(error); ok && len(err.Error()) > Max {
			a.Value = slog.StringValue(Lines(err.Error()))
		}
	}
	return a
}
