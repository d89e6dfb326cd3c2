package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
)

func FuzzTMADesc(f *testing.F) { fuzzDomain(f, tmadesc.Domain) }
