package tool

import "strings"

// ShellQuote quotes s for sh when it holds anything but plain characters:
// the one quoting of the scripts this repository writes (ptxfile's checks,
// corpus/repro's reproducers, the oracles' replays).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, shellPlain) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellPlain are the characters sh takes literally outside quotes.
const shellPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+:,@%"
