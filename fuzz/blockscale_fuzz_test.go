package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
)

func FuzzBlockScale(f *testing.F) { fuzzDomain(f, blockscale.Domain) }
