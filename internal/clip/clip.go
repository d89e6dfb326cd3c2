// Package clip bounds the text legalfuzz quotes: a tool's output, a
// diagnostic, an input value. A few KiB say what went wrong; a tool that
// prints megabytes, or a case holding a 15 MiB string, must not become an
// error line, a log line, a title or a stored record of that size.
package clip

import (
	"fmt"
	"unicode/utf8"
)

// Max is how much of a text an error, a log line, a title or the store
// quotes.
const Max = 4 << 10

// Text is text cut to Max bytes, at a character boundary, with how much
// was cut: "... 36864 bytes more". Text within the bound is returned as it
// is.
func Text(text string) string { return To(text, Max) }

// To is Text with a bound of n bytes.
func To(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... %d bytes more", text[:cut], len(text)-cut)
}
