package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
)

func TestLoadFormatsAndProblems(t *testing.T) {
	dir := t.TempDir()
	seed := kindword.Seeds()[0]
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("native", EncodeGo(seed.Encode()))
	write("raw", seed.Encode()) // the same case in go-fuzz form: a duplicate
	write("case.json", []byte(`{"raw": 66, "target": "sm_100a"}`))
	write("bad.json", []byte(`{"raw": 66, "bogus": 1}`))
	write("corrupt", []byte("go test fuzz v1\nint(3)\n"))
	l := Load(kindword.Domain, []string{dir})
	if len(l.Cases) != 2 || l.Duplicates != 1 {
		t.Fatalf("cases %d duplicates %d, want 2 and 1", len(l.Cases), l.Duplicates)
	}
	if len(l.Problems) != 2 {
		t.Fatalf("problems %v, want 2", l.Problems)
	}
	for _, p := range l.Problems {
		if !strings.Contains(p.Error(), "bad.json") && !strings.Contains(p.Error(), "corrupt") {
			t.Errorf("problem %q names neither bad file", p)
		}
	}
}
