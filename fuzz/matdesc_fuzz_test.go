package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
)

func FuzzMatDesc(f *testing.F) { fuzzDomain(f, matdesc.Domain) }
