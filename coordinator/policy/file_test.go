package policy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadAddsToBuiltin(t *testing.T) {
	set, err := policy.Load(writePolicy(t, `{"policies": [
		{"domain": "mma", "judges": ["exec:mine"], "pairs": [{"a": "exec:mine", "b": "ptxas", "on": "verdict"}],
		 "expected": [{"oracles": ["exec:mine"], "rules": ["ptxisa.mma.target"], "why": "mine ignores targets"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, builtin := set.For("mma"), policy.PolicyFor("mma")
	if !slices.Contains(got.Judges, "exec:mine") || !slices.Contains(got.Judges, oracles.PTXAS) ||
		len(got.Pairs) != len(builtin.Pairs)+1 || len(got.Expected) != len(builtin.Expected)+1 {
		t.Fatalf("merged mma policy %+v", got)
	}
	if slices.Contains(policy.PolicyFor("mma").Judges, "exec:mine") {
		t.Fatal("loading a file changed the built-in table")
	}
	if !slices.Equal(set.For("ldsm").Judges, policy.PolicyFor("ldsm").Judges) {
		t.Fatal("a domain the file does not name changed")
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"not json", `{"policies": [`, "unexpected EOF"},
		{"unknown field", `{"policies": [{"domain": "mma", "judge": ["exec:x"]}]}`, `unknown field "judge"`},
		{"unknown domain", `{"policies": [{"domain": "nope"}]}`, `unknown domain "nope"`},
		{"unknown oracle", `{"policies": [{"domain": "mma", "judges": ["ptxas99"]}]}`, `unknown oracle "ptxas99"`},
		{"bad aspect", `{"policies": [{"domain": "mma", "pairs": [{"a": "exec:x", "b": "ptxas", "on": "mood"}]}]}`, `on must be`},
		{"expectation without rules", `{"policies": [{"domain": "mma", "expected": [{"oracles": ["exec:x"], "why": "w"}]}]}`, "needs the spec/ptxisa rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Load(writePolicy(t, tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "policy file") {
				t.Fatalf("err %v, want one naming the file and %q", err, tc.want)
			}
		})
	}
}
