package clip

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	long := strings.Repeat("x", 40<<10)
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "abc", 64, "abc"},
		{"cut", strings.Repeat("a", 100), 64, strings.Repeat("a", 29) + "... 71 bytes more"},
		{"rune boundary", strings.Repeat("a", 28) + "é" + strings.Repeat("b", 40), 64, strings.Repeat("a", 28) + "... 42 bytes more"},
		{"40 KiB", long, Max, long[:Max-len(suffix)] + "... 36899 bytes more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := To(tc.in, tc.n)
			if got != tc.want {
				t.Errorf("To(%.40q, %d) = %.80q, want %.80q", tc.in, tc.n, got, tc.want)
			}
			if len(got) > tc.n || To(got, tc.n) != got {
				t.Errorf("To(%.40q, %d): %d bytes, clipped again %.80q; want within the bound and unchanged", tc.in, tc.n, len(got), To(got, tc.n))
			}
		})
	}
}

func TestLinesAndLogs(t *testing.T) {
	long := strings.Repeat("y", 3*Max)
	if got := Lines("short\n" + long); !strings.HasPrefix(got, "short\n") || len(got) > len("short\n")+Max {
		t.Errorf("Lines: %d bytes, want the short line whole and the long one within %d", len(got), Max)
	}
	var out strings.Builder
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: LogAttr}))
	log.Warn(long, "diag", long, "err", errors.New(long))
	if n := strings.Count(out.String(), " bytes more"); n != 3 || out.Len() > 4*Max {
		t.Errorf("log line of %d bytes, %d cuts; want the message and both values cut", out.Len(), n)
	}
}
