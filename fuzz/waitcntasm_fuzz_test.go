package fuzz

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
)

func FuzzWaitcntAsm(f *testing.F) { fuzzDomain(f, waitcntasm.Domain) }
