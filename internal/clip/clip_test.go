package clip

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		n              int
	}{
		{"short", "abc", "abc", 3},
		{"cut", "abcdef", "abc... 3 bytes more", 3},
		{"rune boundary", "aé", "a... 2 bytes more", 2}, // é is two bytes: never half of it
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := To(tc.in, tc.n); got != tc.want {
				t.Errorf("To(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
	long := strings.Repeat("x", 40<<10)
	if got := Text(long); len(got) > Max+64 || !strings.HasSuffix(got, "... 36864 bytes more") {
		t.Errorf("Clip of 40 KiB: %d bytes ending %q", len(got), got[len(got)-30:])
	}
}
