package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

func FuzzWGMMA(f *testing.F) { fuzzDomain(f, wgmma.Domain) }
