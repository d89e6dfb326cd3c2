package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

func FuzzLDSM(f *testing.F) { fuzzDomain(f, ldsm.Domain) }
