package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
)

func FuzzNVVMOp(f *testing.F) { fuzzDomain(f, nvvmop.Domain) }
