package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/mma"
)

func FuzzMMA(f *testing.F) { fuzzDomain(f, mma.Domain) }
