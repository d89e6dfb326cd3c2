package diag

import (
	"fmt"
	"unicode/utf8"
)

// MaxQuote is how much of a tool's output, a diagnostic or an input value
// an error, a log line, a title or the store quotes: a few KiB say what
// went wrong, and a tool that prints megabytes (or a case holding a 15 MiB
// string) must not become a line of that size, nor its memory.
const MaxQuote = 4 << 10

// Clip is text cut to MaxQuote bytes, at a character boundary, with how
// much was cut: "... 36864 bytes more". Text within the bound is returned
// as it is.
func Clip(text string) string { return ClipTo(text, MaxQuote) }

// ClipTo is Clip with a bound of n bytes.
func ClipTo(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... %d bytes more", text[:cut], len(text)-cut)
}
