package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
)

func FuzzCPAsync(f *testing.F) { fuzzDomain(f, cpasync.Domain) }
