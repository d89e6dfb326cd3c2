package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/umma"
)

func FuzzUMMA(f *testing.F) { fuzzDomain(f, umma.Domain) }
