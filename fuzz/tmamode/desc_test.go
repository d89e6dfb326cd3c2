package tmamode

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// legacy is tmamode's hand-written codec and JSON form (legacy_test.go).
var legacy = domaintest.NewLegacy(legacyDecode, legacyEncode, legacyMarshalJSON, legacyParseJSON,
	`{}`, `{"direction":"store"}`, `{"direction":"prefetch","dst":"shared::cta"}`, `{"rank":8}`, `{"cta_group":3}`,
	`{"box_dim1":4294967295,"w_halo":65535,"w_offset":1}`, `{"box_dim1":-1}`, `{"w_halo":65536}`, `{"mode":"im2col::w"}`,
	`{"interleave":"32B","multicast":true,"target":"sm_100a","ptx":"8.6"}`, `{"dst":"nowhere"}`)

func TestDescribedMatchesLegacy(t *testing.T) { suite.MatchesLegacy(t, legacy) }

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzTMAMode")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, legacy, 16) }
