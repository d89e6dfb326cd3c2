//go:build !linux

package exec

// endMarked is a no-op where there is no /proc to find a verifier's
// escaped descendants by: its process group is still killed.
func endMarked(string) int { return 0 }
