package fuzz

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
)

var (
	update      = flag.Bool("update", false, "write the domains' seed values into testdata/fuzz/")
	extraCorpus = flag.String("corpus", "", "also replay the corpus under this folder (FuzzX/ subfolders, e.g. the fuzz cache) and print rule coverage")
)

// TestSeedCorpusUpToDate checks that every seed value is in the checked-in
// corpus; run with -update to write the missing ones.
func TestSeedCorpusUpToDate(t *testing.T) {
	for _, d := range Domains() {
		t.Run(d.Name, func(t *testing.T) {
			dir := filepath.Join("testdata", "fuzz", d.FuzzTarget)
			for _, v := range d.Seeds() {
				name := "seed-" + domain.ID(d.Name, v.Encode())
				if *update {
					if _, err := corpus.WriteGo(dir, name, v.Encode()); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("seed %s missing from %s; run go test ./fuzz -run TestSeedCorpusUpToDate -update", name, dir)
				}
			}
		})
	}
}

// replay judges every corpus file of d under root and records rule coverage.
func replay(t *testing.T, d domain.Domain, root string, cov rulestest.Coverage) int {
	t.Helper()
	inputs, err := corpus.ReadGoDir(filepath.Join(root, d.FuzzTarget))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if in.Err != nil {
			t.Errorf("corpus file: %v", in.Err)
			continue
		}
		v, err := d.Decode(in.Data)
		if err != nil {
			continue
		}
		judgments, err := rulestest.CheckInvariants(d, v)
		if err != nil {
			t.Errorf("%s: %v", in.Path, err)
			continue
		}
		for _, j := range judgments {
			cov.Record(j)
		}
	}
	return len(inputs)
}

// TestRuleCoverage replays the checked-in corpus and requires every rule of
// both sets to have fired on some case and passed on another, so each rule
// is shown able to fail and able to hold.
func TestRuleCoverage(t *testing.T) {
	cov := rulestest.Coverage{}
	for _, d := range Domains() {
		if replay(t, d, filepath.Join("testdata", "fuzz"), cov) == 0 {
			t.Errorf("%s: empty seed corpus", d.Name)
		}
		if *extraCorpus != "" {
			replay(t, d, *extraCorpus, cov)
		}
	}
	for _, r := range rules.Rules() {
		n := cov[r.ID]
		if n == nil || n.Fired == 0 {
			t.Errorf("rule %s never fired on the corpus", r.ID)
		}
		if n == nil || n.Passed == 0 {
			t.Errorf("rule %s never passed on the corpus", r.ID)
		}
	}
	if testing.Verbose() || *extraCorpus != "" {
		var b strings.Builder
		if err := cov.Write(&b); err != nil {
			t.Fatal(err)
		}
		t.Logf("rule coverage:\n%s", b.String())
	}
}
