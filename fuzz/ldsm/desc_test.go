package ldsm

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

// TestGolden: the described codec and JSON form do what the hand-written
// ones did (testdata/golden.jsonl, written by them before they were
// deleted): the same canonical bytes, so the same case IDs.
func TestGolden(t *testing.T) { domaintest.Golden(t, Domain, "testdata/golden.jsonl") }

func TestOldCorpusKeepsIDs(t *testing.T) {
	domaintest.CorpusKeepsIDs(t, Domain, "../testdata/fuzz/FuzzLDSM")
}

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 16) }
