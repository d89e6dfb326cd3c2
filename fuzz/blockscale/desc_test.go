package blockscale

import (
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// legacy is blockscale's hand-written codec and JSON form (legacy_test.go).
var legacy = domaintest.NewLegacy(legacyDecode, legacyEncode, legacyMarshalJSON, legacyParseJSON,
	`{}`, `{"k":64}`, `{"kind":"mxf4"}`, `{"kind":"mxf4nvf4","sf_type":"ue4m3"}`, `{"k":64,"sf_type":"ue4m3"}`,
	`{"kind":"f8f6f4","k":64,"a_type":"f16"}`, `{"scale_vector_size":16,"scale_fragment_bits":0}`, `{"k":256}`,
	`{"kind":"mxf9"}`, `{"a_type":1}`, `{"target":"sm_100a"}`, `{"k":-1}`)

func TestDescribedMatchesLegacy(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/repro/testdata/*/blockscale.*.json")
	l := legacy
	l.JSON = append(l.JSON, domaintest.ReadFiles(t, files)...)
	suite.MatchesLegacy(t, l)
}

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzBlockScale")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, legacy, 10) }
