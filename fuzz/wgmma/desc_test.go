package wgmma

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// legacy is wgmma's hand-written codec and JSON form (legacy_test.go).
var legacy = domaintest.NewLegacy(legacyDecode, legacyEncode, legacyMarshalJSON, legacyParseJSON,
	`{}`, `{"a_type":"s8"}`, `{"a_type":"b1","sparse":true}`, `{"a_type":"tf32","sparse":true,"sp_sel":2}`,
	`{"k":null,"m":null}`, `{"d_type":"f16","b_type":"e5m2","a_type":"e4m3"}`, `{"a_source":"register","scale_a":-1}`,
	`{"sp_sel":0}`, `{"sparse":false,"sp_sel":3}`, `{"m":"64"}`, `{"m":64.5}`, `{"trans_a":"yes"}`, `[]`, `{} {}`, `{"ptx":"9.9"}`)

// TestDescribedMatchesLegacy: the described codec is version 0 of the
// hand-written one, and the JSON forms agree, on the hand-written cases of
// corpus/repro's testdata too.
func TestDescribedMatchesLegacy(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/repro/testdata/*/wgmma.*.json")
	l := legacy
	l.JSON = append(l.JSON, domaintest.ReadFiles(t, files)...)
	suite.MatchesLegacy(t, l)
}

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzWGMMA")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, legacy, 22) }

// BenchmarkEncode compares the described encoder with the hand-written one:
// every case's ID hashes its canonical bytes.
func BenchmarkEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := make([]Value, 256)
	for i := range values {
		v, _ := Decode(domaintest.Input(rng, 22))
		values[i] = v.(Value)
	}
	for _, c := range []struct {
		name   string
		encode func(Value) []byte
	}{{"legacy", legacyEncode}, {"described", Value.Encode}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.encode(values[i%len(values)])
			}
		})
	}
}
