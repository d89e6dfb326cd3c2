package coordinator

import (
	"context"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
)

// rejectedSeed is the first mma seed spec/ptxisa rejects.
func rejectedSeed(t *testing.T) domain.Case {
	t.Helper()
	d, _ := fuzz.Lookup("mma")
	ref := spec.New(spec.PTXISA)
	for _, v := range d.Seeds() {
		c := domain.NewCase(d.Name, v)
		vs, err := ref.Judge(context.Background(), []domain.Case{c})
		if err != nil {
			t.Fatal(err)
		}
		if vs[0].Kind == oracles.Reject {
			return c
		}
	}
	t.Fatal("no mma seed is rejected by spec/ptxisa")
	return domain.Case{}
}

// TestReplayVersions: llc 19 accepts what spec/ptxisa rejects; the bucket
// is replayed on llc19 and llc22 (the "llc" family) and says which
// reproduce; a family member not installed (none here) is left out, and
// one that does not judge the case's domain cannot judge it (no verdict is
// no fix).
func TestReplayVersions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		llc22   oracles.Kind
		domains []string // llc22's; nil judges every domain
		want    string
		flagged bool
	}{
		{"fixed in 22", oracles.Reject, nil, "19: reproduces, 22: fixed", false},
		{"22 reproduces", oracles.Accept, nil, "19: reproduces, 22: reproduces", true},
		{"22 cannot judge", oracles.Unsupported, nil, "19: reproduces, 22: cannot judge", true},
		{"22 does not judge the domain", oracles.Reject, []string{"kindword"}, "19: reproduces, 22: cannot judge", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := storetest.Open(t, "")
			c := rejectedSeed(t)
			llc19 := testoracle.New(testoracle.Config{Name: "llc@19", Kind: oracles.Accept})
			llc22 := testoracle.New(testoracle.Config{Name: "llc@22", Kind: tc.llc22, Domains: tc.domains})
			orcs := []oracles.Oracle{spec.New(spec.PTXISA), llc19, llc22}
			pair := policy.Pair{A: oracles.SpecPTXISA, B: "llc@19", On: policy.OnVerdict}
			bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}}, storetest.Judge(t, orcs[:2], c))
			if len(bs) != 1 {
				t.Fatalf("planting: %d buckets", len(bs))
			}
			b, err := ReplayVersions(context.Background(), s, oracles.Local{Oracles: orcs}, bs[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := b.FoundIn(); got != tc.want || b.NewestReproduces() != tc.flagged {
				t.Errorf("found in %q (newest reproduces %t), want %q (%t)", got, b.NewestReproduces(), tc.want, tc.flagged)
			}
			stored, err := s.Buckets()
			if err != nil || len(stored) != 1 || stored[0].FoundIn() != tc.want {
				t.Errorf("stored buckets %+v (%v)", stored, err)
			}
		})
	}
}
