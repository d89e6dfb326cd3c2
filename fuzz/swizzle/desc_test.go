package swizzle

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// legacy is swizzle's hand-written codec and JSON form (legacy_test.go).
var legacy = domaintest.NewLegacy(legacyDecode, legacyEncode, legacyMarshalJSON, legacyParseJSON,
	`{}`, `{"b":3}`, `{"mode":"128B"}`, `{"mode":"64B","b":2,"m":4,"s":3}`, `{"mode":"64B","b":3}`, `{"mode":"reserved6","s":0}`,
	`{"mode":"cute","m":6,"s":6}`, `{"b":5}`, `{"m":-1}`, `{"k":-9223372036854775808,"x":4294967295}`, `{"x":4294967296}`,
	`{"k":1.5}`, `{"mode":"256B"}`)

func TestDescribedMatchesLegacy(t *testing.T) { suite.MatchesLegacy(t, legacy) }

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzSwizzle")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, legacy, 19) }
