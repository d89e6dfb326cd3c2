package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// fuzzDomain is the body of every native fuzz target: decode the bytes, then
// check every invariant and judge with both rule sets. Seed values are added
// on top of testdata/fuzz/<target>/.
func fuzzDomain(f *testing.F, d domain.Domain) {
	for _, v := range d.Seeds() {
		f.Add(v.Encode())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := d.Decode(data)
		if err != nil {
			return // a clear decode error is a valid answer for bytes that fit no value
		}
		if _, err := spec.CheckInvariants(d, v); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzKindWord(f *testing.F) { fuzzDomain(f, kindword.Domain) }
