package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/swizzle"
)

func FuzzSwizzle(f *testing.F) { fuzzDomain(f, swizzle.Domain) }
