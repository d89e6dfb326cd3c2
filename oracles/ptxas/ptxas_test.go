package ptxas

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// realPTXAS finds ptxas 12.4 or skips the test.
func realPTXAS(t testing.TB) *Oracle {
	t.Helper()
	o, st := Discover(context.Background())
	if o == nil {
		t.Skipf("ptxas 12.4 not found (%s); run %s", st.Reason, st.Install)
	}
	return o
}

// judge judges cases and checks the one-verdict-per-case contract.
func judge(t *testing.T, o *Oracle, cases []domain.Case) []oracles.Verdict {
	t.Helper()
	return batchtest.Judge(t, o, cases)
}

func seedCases(t testing.TB, name string) []domain.Case {
	t.Helper()
	d, ok := fuzz.Lookup(name)
	if !ok {
		t.Fatalf("no domain %q", name)
	}
	var cases []domain.Case
	for _, v := range d.Seeds() {
		cases = append(cases, domain.NewCase(name, v))
	}
	return cases
}

var (
	sm80   = target.MustParse("sm_80", "7.1")
	sm90a  = target.MustParse("sm_90a", "")
	sm100a = target.MustParse("sm_100a", "")
)

// knownAnswers were observed by running ptxas 12.4 by hand on the rendered
// PTX. kindword and blockscale have no accepting case: ptxas 12.4 knows
// neither tcgen05 nor the block-scaled mma.sync (sm_120a, PTX 8.7).
var knownAnswers = []struct {
	name, domain string
	v            domain.Value
	want         oracles.Kind
	diag         string
}{
	{"tcgen05 on sm_90a", kindword.Name, kindword.Value{Kind: kindword.F16, CTAGroup: 1, Tgt: sm90a},
		oracles.Reject, "Not a name of any known instruction: 'tcgen05.mma'"},
	{"ldmatrix x4", ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.B16, sm90a), oracles.Accept, ""},
	{"ldmatrix u16", ldsm.Name, ldsm.New(ldsm.Load, ldsm.M8N8, 4, false, ldsm.U16, sm90a),
		oracles.Reject, "Unexpected instruction types specified for 'ldmatrix'"},
	{"stmatrix on sm_80", ldsm.Name, ldsm.New(ldsm.Store, ldsm.M8N8, 1, false, ldsm.B16, target.MustParse("sm_80", "7.8")),
		oracles.Reject, "Feature 'stmatrix' requires .target sm_90 or higher"},
	{"tma tile 5d", tmamode.Name, tmamode.Value{Mode: tmamode.Tile, Rank: 5, Tgt: sm90a}, oracles.Accept, ""},
	{"tma multicast", tmamode.Name, tmamode.Value{Mode: tmamode.Tile, Rank: 2, Multicast: true, Tgt: sm90a}, oracles.Accept, ""},
	{"tma im2col 2d", tmamode.Name, tmamode.Value{Mode: tmamode.Im2col, Rank: 2, Tgt: sm90a},
		oracles.Reject, "Modifier '.2d' cannot be combined with modifier '.im2col'"},
	{"tma cache hint load", tmamode.Name, tmamode.Value{Mode: tmamode.Im2col, Rank: 3, Multicast: true, CacheHint: true, Tgt: sm90a},
		oracles.Accept, ""},
	{"tma cache hint store", tmamode.Name, tmamode.Value{Direction: tmamode.Store, Dst: tmamode.Global, Rank: 2, CacheHint: true, Tgt: sm90a},
		oracles.Accept, ""},
	{"tma cache hint prefetch", tmamode.Name, tmamode.Value{Direction: tmamode.Prefetch, Dst: tmamode.L2, Rank: 1, CacheHint: true, Tgt: sm90a},
		oracles.Accept, ""},
	{"tma store to shared", tmamode.Name, tmamode.Value{Mode: tmamode.Tile, Rank: 2, Dst: tmamode.Global, Tgt: sm90a},
		oracles.Reject, "State space incorrect for instruction 'cp.async.bulk.tensor'"},
	{"wgmma f16", wgmma.Name, wgmmaForm(wgmma.F16, 128, 1), oracles.Accept, ""},
	{"wgmma sparse f16", wgmma.Name, wgmmaSparse(wgmma.F16, target.MustParse("sm_90a", "8.4")), oracles.Accept, ""},
	{"wgmma sparse f16, PTX 8.0", wgmma.Name, wgmmaSparse(wgmma.F16, sm90a),
		oracles.Reject, "Feature 'Sparse WGMMA with floating point types' requires PTX ISA .version 8.2 or later"},
	{"wgmma scale 2", wgmma.Name, wgmmaForm(wgmma.F16, 128, 2),
		oracles.Reject, "unexpected value '2', expected to be -1 or 1"},
	{"mma m16n8k16", mma.Name, mmaForm(16, 8, 16), oracles.Accept, ""},
	{"mma m16n8k7", mma.Name, mmaForm(16, 8, 7), oracles.Reject, "Unknown modifier '.m16n8k7'"},
	{"cp.async 16", cpasync.Name, cpForm(cpasync.F32, 4), oracles.Accept, ""},
	{"cp.async 64", cpasync.Name, cpForm(cpasync.F32, 16),
		oracles.Reject, "unexpected value '64', expected to be 4 or 8 or 16"},
	{"block scale on sm_90a", blockscale.Name,
		blockscale.Value{K: 32, AType: blockscale.E4M3, BType: blockscale.E4M3, ScaleVecSize: 32, Tgt: sm90a},
		oracles.Reject, "Unknown modifier '.kind::mxf8f6f4'"},
	{"wgmma descriptor", matdesc.Name, matdesc.FromRaw(matdesc.WGMMA, 0x4000004000010040, true, sm90a), oracles.Accept, ""},
	{"wgmma descriptor, PTX 7.8", matdesc.Name,
		matdesc.FromRaw(matdesc.WGMMA, 0x4000004000010040, true, target.MustParse("sm_90a", "7.8")),
		oracles.Reject, "PTX .version 7.8 does not support .target sm_90a"},
	{"tcgen05 descriptor on sm_90a", matdesc.Name, matdesc.FromRaw(matdesc.TCGen05, 0x4000404000010100, true, sm90a),
		oracles.Reject, "Not a name of any known instruction: 'tcgen05.mma'"},
	{"sm_100a", ldsm.Name, ldsm.New(ldsm.Load, ldsm.M16N16, 1, true, ldsm.B8, sm100a),
		oracles.Unsupported, "does not know target sm_100a"},
	{"PTX 8.6", tmamode.Name, tmamode.Value{Mode: tmamode.Tile, Rank: 2, Dst: tmamode.SharedCTA, Tgt: target.MustParse("sm_90a", "8.6")},
		oracles.Unsupported, "knows PTX ISA up to 8.4, not 8.6"},
	{"tcgen05 on sm_100a", kindword.Name, kindword.Value{Kind: kindword.F16, CTAGroup: 1, Tgt: sm100a},
		oracles.Unsupported, "does not know target sm_100a"},
	{"no spelling", kindword.Name, kindword.Value{Kind: kindword.Reserved6, CTAGroup: 1, Tgt: sm90a},
		oracles.Unsupported, "no PTX spelling for reserved mma kind 6"},
}

func wgmmaForm(a wgmma.Type, n uint16, scaleA int8) wgmma.Value {
	k := wgmma.NaturalK(a, false)
	return wgmma.Value{Rank: 2, M: 64, N: n, K: k, BK: k, AType: a, BType: a, DType: wgmma.AccF32,
		ResultType: wgmma.AccF32, ScaleD: true, ScaleA: scaleA, ScaleB: 1, Tgt: sm90a}
}

func wgmmaSparse(a wgmma.Type, t target.Target) wgmma.Value {
	v := wgmmaForm(a, 64, 1)
	v.Sparse, v.K, v.BK, v.Tgt = true, 2*v.K, 2*v.K, t
	return v
}

func mmaForm(m, n, k uint16) mma.Value {
	return mma.Value{ShapeRank: 3, Shape: [mma.MaxShapeRank]uint16{m, n, k}, BLayout: mma.Col,
		AType: mma.F16, BType: mma.F16, CType: mma.F32, DType: mma.F32, Tgt: sm80}
}

func cpForm(e cpasync.ElemType, n uint8) cpasync.Value {
	return cpasync.Value{Elem: e, SrcElem: e, DstElements: n, DstStride: 1, SrcStride: 1,
		DstAddr: 0x100, SrcAddr: 0x7f0000001000, Tgt: target.MustParse("sm_80", "")}
}

// TestKnownAnswers judges the known cases in one batch, then each alone.
func TestKnownAnswers(t *testing.T) {
	o := realPTXAS(t)
	cases := make([]domain.Case, len(knownAnswers))
	for i, ka := range knownAnswers {
		cases[i] = domain.NewCase(ka.domain, ka.v)
	}
	for _, batch := range []int{0, 1} {
		o.BatchSize = batch
		for i, v := range judge(t, o, cases) {
			ka := knownAnswers[i]
			if v.Kind != ka.want || !strings.Contains(v.Diagnostic, ka.diag) || v.Version != "12.4.131" ||
				strings.Contains(v.Diagnostic, "aborted") || strings.Contains(v.Diagnostic, "case_") {
				t.Errorf("batch size %d, %s: %s %q (version %s), want %s containing %q",
					batch, ka.name, v.Kind, v.Diagnostic, v.Version, ka.want, ka.diag)
			}
		}
	}
}

// TestKnownAnswersCoverDomains: every rendered domain has a rejecting case
// and, where ptxas 12.4 can accept anything of it, an accepting one.
func TestKnownAnswersCoverDomains(t *testing.T) {
	noAccept := []string{kindword.Name, blockscale.Name}
	for _, d := range ptx.Domains() {
		kinds := map[oracles.Kind]bool{}
		for _, ka := range knownAnswers {
			if ka.domain == d {
				kinds[ka.want] = true
			}
		}
		if !kinds[oracles.Reject] || (!kinds[oracles.Accept] && !slices.Contains(noAccept, d)) {
			t.Errorf("domain %s: known answers %v, want an accept and a reject", d, kinds)
		}
	}
}

// legalSeedExceptions are seeds that spec/ptxisa accepts on a target ptxas
// 12.4 judges but ptxas rejects, each with the reason; none so far.
var legalSeedExceptions = map[string]string{}

// TestLegalSeedsAssemble: every seed the PTX ISA rules accept, on a target
// and PTX version ptxas 12.4 knows, assembles. A rejection here is a
// renderer bug unless listed in legalSeedExceptions.
func TestLegalSeedsAssemble(t *testing.T) {
	o := realPTXAS(t)
	for _, name := range ptx.Domains() {
		t.Run(name, func(t *testing.T) {
			var legal []domain.Case
			for _, c := range seedCases(t, name) {
				j, err := rules.JudgeValue(rules.PTXISA, name, c.Value)
				if err != nil {
					t.Fatal(err)
				}
				if j.Accept && o.unsupported(c.Value.Target()) == nil {
					legal = append(legal, c)
				}
			}
			for i, v := range judge(t, o, legal) {
				reason, listed := legalSeedExceptions[legal[i].ID]
				switch {
				case v.Kind != oracles.Accept && !listed:
					t.Errorf("legal seed %v: %s %q", legal[i].Value, v.Kind, v.Diagnostic)
				case v.Kind == oracles.Accept && listed:
					t.Errorf("seed %v is accepted now; drop its exception %q", legal[i].Value, reason)
				}
			}
			t.Logf("%d legal seeds on targets ptxas 12.4 knows", len(legal))
		})
	}
}

// TestOptLevelSameVerdicts: -O0 (the default) and ptxas's own -O3 give the
// same verdicts on every seed.
func TestOptLevelSameVerdicts(t *testing.T) {
	o := realPTXAS(t)
	var cases []domain.Case
	for _, name := range ptx.Domains() {
		cases = append(cases, seedCases(t, name)...)
	}
	o0 := judge(t, o, cases)
	o.Args = []string{}
	o3 := judge(t, o, cases)
	for i := range cases {
		if o0[i].Kind != o3[i].Kind || o0[i].Diagnostic != o3[i].Diagnostic {
			t.Errorf("%s %v: -O0 %s %q, -O3 %s %q", cases[i].Domain, cases[i].Value,
				o0[i].Kind, o0[i].Diagnostic, o3[i].Kind, o3[i].Diagnostic)
		}
	}
}

func TestDiscoverStatus(t *testing.T) {
	o := realPTXAS(t)
	_, st := Discover(context.Background())
	if !st.Available || st.Version != "12.4.131" || st.Path == "" || o.Version() != st.Version {
		t.Fatalf("status %+v", st)
	}
	if !slices.Equal(st.Domains, ptx.Domains()) || !slices.Contains(st.Targets, "sm_90a") || slices.Contains(st.Targets, "sm_100a") {
		t.Fatalf("status domains %v targets %v", st.Domains, st.Targets)
	}
	if !o.Judges(ldsm.Name) || o.Judges("swizzle") {
		t.Fatal("Judges disagrees with the renderers")
	}
}

func TestDiscoverMissing(t *testing.T) {
	t.Setenv("LEGALFUZZ_PTXAS13", "/nonexistent/ptxas")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("LEGALFUZZ_ORACLES_DIR", t.TempDir())
	t.Chdir(t.TempDir())
	o, st := DiscoverConfig(context.Background(), PTXAS13)
	if o != nil || st.Available || st.Reason == "" || st.Install == "" || st.Name != "ptxas13" {
		t.Fatalf("oracle %v status %+v, want a missing ptxas13 with a reason", o, st)
	}
}

// ptxas13 is found by its version: here ptxas 12.4 (if installed) is
// skipped with its version in the reason.
func TestDiscoverPTXAS13(t *testing.T) {
	o, st := DiscoverPTXAS13(context.Background())
	if o != nil {
		t.Logf("ptxas13 found: %s %s", st.Version, st.Path)
		if !strings.HasPrefix(st.Version, "13.") {
			t.Fatalf("ptxas13 version %q", st.Version)
		}
		return
	}
	if st.Available || st.Reason == "" || st.Name != "ptxas13" {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(st.Reason, "/usr/local/cuda/bin/ptxas") && !strings.Contains(st.Reason, "not usable") {
		t.Errorf("the reason %q does not say where it looked", st.Reason)
	}
	t.Logf("ptxas13: %s", st.Reason)
}
