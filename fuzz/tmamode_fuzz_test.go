package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

func FuzzTMAMode(f *testing.F) { fuzzDomain(f, tmamode.Domain) }
