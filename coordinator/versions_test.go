package coordinator

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/testoracle"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
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

// TestReplayVersionsSaysWhatHappened replays three buckets of a 60 s
// campaign (docs/triage-audit.md) on the real MLIR 19, 22 and trunk, each
// planted from the release whose verdict made it: a verifier crash that
// MLIR 19 does not have (its verifier lets the rank-0 TMA load through and
// the lowering refuses it: a regression in 22), an mlir-translate crash on
// a domain MLIR 19 cannot spell, and a verifier gap that 19 and 22 close
// (their verifier refuses the fp8 mma.sync) and trunk opened.
func TestReplayVersionsSaysWhatHappened(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the MLIR lowering of three releases")
	}
	ctx := context.Background()
	byLabel := map[string]oracles.Oracle{}
	for _, in := range []toolchain.Installation{toolchaintest.Release(t, 19), toolchaintest.Release(t, 22), toolchaintest.Trunk(t)} {
		o, st := mlir.Discover(ctx, in)
		if o == nil || o.Lower == nil {
			t.Skipf("%s with its lowering: %s", st.Name, st.Reason)
		}
		byLabel[in.Label] = o
	}
	for _, tc := range []struct {
		file, from, want string
		regression       bool
	}{
		{"tmadesc.a3a4c6957b3385f9.json", "22", "19: decided later, 22: reproduces, trunk: reproduces", true},
		{"blockscale.7d930d48269be513.json", "22", "19: cannot judge, 22: reproduces, trunk: reproduces", false},
		{"mma.074942886c103f77.json", "trunk", "19: fixed, 22: fixed, trunk: reproduces", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := storetest.ReadCase(t, filepath.Join("testdata", "replay", tc.file))
			orcs := []oracles.Oracle{spec.New(spec.PTXISA), byLabel["19"], byLabel["22"], byLabel["trunk"]}
			s := storetest.Open(t, "")
			from := byLabel[tc.from]
			pair := policy.Pair{A: oracles.SpecPTXISA, B: from.Name(), On: policy.OnVerdict}
			bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{pair}},
				storetest.Judge(t, []oracles.Oracle{orcs[0], from}, c))
			if len(bs) != 1 {
				t.Fatalf("planting: %d buckets", len(bs))
			}
			b, err := ReplayVersions(ctx, s, oracles.Local{Oracles: orcs}, bs[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := b.FoundIn(); got != tc.want || b.Regression() != tc.regression || !b.NewestReproduces() {
				t.Errorf("%s: found in %q (regression %t, newest reproduces %t), want %q (%t, true)",
					b.Title, got, b.Regression(), b.NewestReproduces(), tc.want, tc.regression)
			}
		})
	}
}

// TestOutcome: what a version that does not show the bucket did, for the
// shapes the MLIR releases give (stages and kinds as the mlir oracle
// writes them).
func TestOutcome(t *testing.T) {
	sig := func(kind oracles.Kind, stage string, spec oracles.Kind) policy.Signature {
		return policy.Signature{Domain: "wgmma", Tool: "mlir@trunk", Kind: kind, Stage: stage, SpecKind: spec, Rule: "ptxisa.wgmma.k"}
	}
	v := func(kind oracles.Kind, rule string) oracles.Verdict {
		return oracles.Verdict{Oracle: "mlir@19", Kind: kind, Rule: rule}
	}
	translateCrash := sig(oracles.Error, "translate", oracles.Reject)
	exit0 := sig(oracles.Error, "pass:convert-nvvm-to-llvm/exit-0", oracles.Accept)
	tooStrict := sig(oracles.Reject, "pass:convert-nvgpu-to-nvvm", oracles.Accept)
	gap := sig(oracles.Error, "llc/refused", oracles.Reject)
	for _, tc := range []struct {
		name  string
		sig   policy.Signature
		v     oracles.Verdict
		right bool
		want  string
	}{
		{"no verdict: the release has no spelling", translateCrash, oracles.Verdict{}, false, store.CannotJudge},
		{"unsupported", translateCrash, v(oracles.Unsupported, "render"), false, store.CannotJudge},
		{"the verifier refuses before the crashing translation", translateCrash, v(oracles.Reject, "verify"), true, store.StopsEarlier},
		{"translation refuses in words", translateCrash, v(oracles.Reject, "translate"), true, store.Fixed},
		{"a verifier crash instead", translateCrash, v(oracles.Error, "verify"), false, store.StopsEarlier},
		{"the pass fails as it should", exit0, v(oracles.Reject, "pass:convert-nvvm-to-llvm"), false, store.Fixed},
		{"another pass crashes", exit0, v(oracles.Error, "lowering"), false, store.Differs},
		{"the case compiles", exit0, v(oracles.Accept, "ptxas"), true, store.Fixed},
		{"the verifier refuses the legal case first", tooStrict, v(oracles.Reject, "verify"), false, store.StopsEarlier},
		{"llc refuses the lowering's output", tooStrict, v(oracles.Error, "llc/refused"), false, store.DecidedLater},
		{"the verifier closes the gap", gap, v(oracles.Reject, "verify"), true, store.Fixed},
		{"the lowering refuses", gap, v(oracles.Reject, "pass:convert-nvgpu-to-nvvm"), true, store.Fixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcome(tc.sig, tc.v, tc.right); got != tc.want {
				t.Errorf("outcome = %q, want %q", got, tc.want)
			}
		})
	}
}
