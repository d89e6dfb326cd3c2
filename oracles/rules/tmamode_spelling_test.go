package rules_test

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/lattice"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/tmamode_spelling.golden")

// TestTMAModeSpellingUnchanged checks, for every tmamode seed and lattice
// row, the PTX text oracles/ptx renders (by its hash) and the instruction
// spec/ptxisa's accept carries against testdata/tmamode_spelling.golden,
// written before the two spellings became one (issue 38): the merge
// changed no text either side gives.
func TestTMAModeSpellingUnchanged(t *testing.T) {
	vals := tmamode.Domain.Seeds()
	l, err := lattice.For(tmamode.Domain)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Len() {
		vals = append(vals, l.Row(i))
	}
	var b strings.Builder
	for _, v := range vals {
		c := domain.NewCase(tmamode.Name, v)
		text := "unspelled"
		if e, err := ptx.Render(c); err == nil {
			text = fmt.Sprintf("%x", sha256.Sum256([]byte(e.Text)))[:16]
		} else if ns := (*oracles.NoSpelling)(nil); !errors.As(err, &ns) {
			t.Fatalf("render %s: %v", c.ID, err)
		}
		j, err := rules.JudgeValue(rules.PTXISA, tmamode.Name, v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s accept=%t %s\n", c.ID, text, j.Accept, j.Value)
	}
	golden := filepath.Join("testdata", "tmamode_spelling.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestTMAModeSpellingUnchanged -update writes it)", err)
	}
	// By case: a lattice built another way has other rows, and the
	// values both hold must be spelled alike.
	before := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		id, _, _ := strings.Cut(line, " ")
		before[id] = line
	}
	same := 0
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		id, _, _ := strings.Cut(line, " ")
		w, ok := before[id]
		switch {
		case !ok:
		case w != line:
			t.Errorf("case %s: spelled %q, before %q", id, line, w)
		default:
			same++
		}
	}
	if seeds := len(tmamode.Domain.Seeds()); same < seeds {
		t.Errorf("%d of %d values found in the golden file; want every seed's (%d) at least", same, len(vals), seeds)
	}
}
