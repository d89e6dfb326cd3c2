package exec

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Spec
		err      string
	}{
		{name: "plain", in: "mycheck=/path/to/verifier --flag",
			want: Spec{Name: "mycheck", Argv: []string{"/path/to/verifier", "--flag"}}},
		{name: "spaces trimmed", in: " mycheck =  verifier   a\tb ",
			want: Spec{Name: "mycheck", Argv: []string{"verifier", "a", "b"}}},
		{name: "single quotes", in: `v='/opt/my tools/check' '$HOME' ''`,
			want: Spec{Name: "v", Argv: []string{"/opt/my tools/check", "$HOME", ""}}},
		{name: "double quotes", in: `v=check "a \"b\" \\ c" x"y"z`,
			want: Spec{Name: "v", Argv: []string{"check", `a "b" \ c`, "xyz"}}},
		{name: "backslash", in: `v=check a\ b c\\d`,
			want: Spec{Name: "v", Argv: []string{"check", "a b", `c\d`}}},
		{name: "equals in command", in: "v=check --mode=strict",
			want: Spec{Name: "v", Argv: []string{"check", "--mode=strict"}}},
		{name: "no shell", in: "v=check; rm -rf / | tee",
			want: Spec{Name: "v", Argv: []string{"check;", "rm", "-rf", "/", "|", "tee"}}},
		{name: "no equals", in: "mycheck /path/to/verifier", err: "want NAME=COMMAND"},
		{name: "empty name", in: "=/path/to/verifier", err: "empty name"},
		{name: "blank name", in: "  =/path/to/verifier", err: "empty name"},
		{name: "bad name", in: "my.check=/bin/true", err: "use only letters"},
		{name: "empty command", in: "mycheck=", err: "empty command"},
		{name: "blank command", in: "mycheck=  \t", err: "empty command"},
		{name: "unterminated", in: "mycheck=check 'oops", err: "unterminated quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSpec(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseSpec(%q) = %+v, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tc.in, err)
			}
			if got.Name != tc.want.Name || !slices.Equal(got.Argv, tc.want.Argv) {
				t.Fatalf("ParseSpec(%q) = %q %q, want %q %q", tc.in, got.Name, got.Argv, tc.want.Name, tc.want.Argv)
			}
			if got.OracleName() != "exec:"+tc.want.Name {
				t.Errorf("OracleName() = %q", got.OracleName())
			}
		})
	}
}
