package tmadesc

import (
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// legacy is tmadesc's hand-written codec and JSON form (legacy_test.go).
var legacy = domaintest.NewLegacy(legacyDecode, legacyEncode, legacyMarshalJSON, legacyParseJSON,
	`{}`, `{"global_dim":[100,3,2]}`, `{"rank":7}`, `{"rank":0}`, `{"encode":"im2col","rank":5}`,
	`{"encode":"im2col_wide","wide_mode":"W128","pixel_box_lower":[-3],"pixel_box_upper":[2]}`,
	`{"rank":3,"global_strides":[16,32]}`, `{"global_dim":null,"tensor_map":18446744073709551615}`,
	`{"dtype":"16u6_align16b","interleave":"32B"}`, `{"box_dim":[1,2,3]}`, `{"encode":"im2col","box_dim":[1,1,1,1]}`,
	`{"pixel_box_lower":[0]}`, `{"channels_per_pixel":64}`, `{"global_dim":[1,2,3,4,5,6]}`, `{"rank":9}`,
	`{"global_dim":[-1]}`, `{"box_dim":[4294967296,1]}`, `{"tensor_map":"1"}`, `[]`, `{"ptx":"9.9"}`)

// TestDescribedMatchesLegacy: the described codec is version 0 of the
// hand-written one, and the JSON forms agree, on the hand-written cases of
// corpus/repro's and coordinator's testdata too.
func TestDescribedMatchesLegacy(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/repro/testdata/*/tmadesc.*.json")
	more, _ := filepath.Glob("../../coordinator/testdata/*/tmadesc.*.json")
	l := legacy
	l.JSON = append(l.JSON, domaintest.ReadFiles(t, append(files, more...))...)
	suite.MatchesLegacy(t, l)
}

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzTMADesc")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, legacy, 140) }
