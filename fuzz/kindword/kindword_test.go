package kindword

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain/domaintest"
)

var suite = domaintest.Suite{Domain: Domain, SeedEnv: "KINDWORD_SEED", Seed: 0x9d, Stream: 1, N: 20000, MaxLen: 16,
	Full: Value{Kind: 1, CTAGroup: 2, WS: true, ScaleInputAcc: true, ScaleInputD: 9, CollectorA: 1, Tgt: Seeds()[0].Target()}}

func TestDomain(t *testing.T) { suite.Run(t) }

func BenchmarkDecode(b *testing.B) { domaintest.BenchDecode(b, Domain, 10) }
