package fuzz

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
)

// fuzzDomain is the body of every native fuzz target: decode the bytes, then
// check every invariant and judge with both rule sets. Seed values are added
// on top of testdata/fuzz/<target>/.
func fuzzDomain(f *testing.F, d domain.Domain) {
	addSeeds(f, d.Seeds())
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := d.Decode(data)
		if err != nil {
			return // a clear decode error is a valid answer for bytes that fit no value
		}
		if _, err := rulestest.CheckInvariants(d, v); err != nil {
			t.Fatal(err)
		}
	})
}

// addSeeds adds the canonical bytes of a domain's seeds to a fuzz
// target's corpus.
func addSeeds(f *testing.F, seeds []domain.Value) {
	for _, v := range seeds {
		f.Add(v.Encode())
	}
}

func FuzzKindWord(f *testing.F) { fuzzDomain(f, kindword.Domain) }

// TestAMDTargetNames: the AMD domains' cases name their processor, not
// the NVIDIA placeholder every value reports as its Target.
func TestAMDTargetNames(t *testing.T) {
	for _, name := range []string{"waitcnt", "waitcntasm"} {
		d, ok := Lookup(name)
		if !ok {
			t.Fatalf("no domain %s", name)
		}
		got := domain.TargetName(d.Seeds()[0])
		if !strings.HasPrefix(got, "gfx") {
			t.Errorf("%s: target %q, want an AMD processor", name, got)
		}
	}
	if got := domain.TargetName(Domains()[0].Seeds()[0]); !strings.HasPrefix(got, "sm_") {
		t.Errorf("%s: target %q, want an NVIDIA arch", Domains()[0].Name, got)
	}
}
