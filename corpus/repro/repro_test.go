package repro

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/storetest"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// planted is a store holding one bucket per pair below, each made from two
// planted verdicts on a seed of the domain, so every renderer is reached
// without the tools installed.
type planted struct {
	s       *store.Store
	buckets map[string]store.Bucket // by pair
}

func plant(t *testing.T) planted {
	t.Helper()
	s := storetest.Open(t, "")
	p := planted{s: s, buckets: map[string]store.Bucket{}}
	for _, tc := range []struct {
		domain string
		pair   policy.Pair
	}{
		{"tmadesc", policy.Pair{A: oracles.SpecPTXISA, B: "cuda-driver", On: policy.OnVerdict}},
		{"mma", policy.Pair{A: "mlir@19", B: "ptxas", On: policy.OnVerdict}},
		{"tmamode", policy.Pair{A: "mlir@22", B: "ptxas", On: policy.OnVerdict}},
		{"mma", policy.Pair{A: "llc@19", B: "llc@22", On: policy.OnVerdict}},
		{"waitcnt", policy.Pair{A: oracles.SpecPTXISA, B: "amdgpu-mc@19", On: policy.OnValue}},
		{"schedule", policy.Pair{A: oracles.SpecPTXISA, B: "fenceproxy", On: policy.OnVerdict}},
	} {
		d, _ := fuzz.Lookup(tc.domain)
		c := domain.NewCase(d.Name, spellableSeed(d))
		vs := []oracles.Verdict{
			{Oracle: tc.pair.A, Version: "1", Case: c.ID, Domain: c.Domain, Kind: oracles.Accept, Rule: "r.a"},
			{Oracle: tc.pair.B, Version: "2", Case: c.ID, Domain: c.Domain, Kind: oracles.Reject, Diagnostic: "no\nsecond line"},
		}
		bs := storetest.Plant(t, s, c, policy.Policy{Domain: c.Domain, Pairs: []policy.Pair{tc.pair}}, vs)
		if len(bs) != 1 {
			t.Fatalf("plant %s %s: %d buckets", tc.domain, tc.pair, len(bs))
		}
		p.buckets[tc.pair.String()] = bs[0]
	}
	return p
}

// spellableSeed is the domain's first seed every tool can spell: mma's
// first seed is m8n8k4 .f16, the quad-pair form MLIR has no spelling for.
func spellableSeed(d domain.Domain) domain.Value {
	for _, v := range d.Seeds() {
		if m, ok := v.(mma.Value); !ok || m.ShapeName() != "m8n8k4" {
			return v
		}
	}
	return d.Seeds()[0]
}

// TestWriteMLIR22Spelling checks that an mlir@22 bucket's case.mlir is MLIR
// 22's rendering (a TMA load into an address-space-7 buffer), the module
// its repro.sh runs mlir-opt-22 on, not MLIR 19's.
func TestWriteMLIR22Spelling(t *testing.T) {
	p := plant(t)
	bd, err := Write(context.Background(), p.s, p.buckets["mlir@22~ptxas/verdict"].Key, t.TempDir(), discovered(t))
	if err != nil {
		t.Fatal(err)
	}
	if text := read(t, filepath.Join(bd.Dir, MLIRFile)); !strings.Contains(text, "!llvm.ptr<7>") {
		t.Errorf("%s is not MLIR 22's spelling:\n%s", MLIRFile, text)
	}
}

func TestWriteRendersEachTool(t *testing.T) {
	p := plant(t)
	orcs := discovered(t)
	for pair, want := range map[string][]string{
		"spec/ptxisa~cuda-driver/verdict": {DriverFile, "cuTensorMapEncode"},
		"mlir@19~ptxas/verdict":           {MLIRFile, PTXFile, "installation 19 (LLVM 19.", "mlir-opt --split-input-file", "ptxas -arch=sm_"},
		"mlir@22~ptxas/verdict":           {MLIRFile, PTXFile, "installation 22 (LLVM 22.", "mlir-opt --split-input-file", "llc -march=nvptx64"},
		"llc@19~llc@22/verdict":           {"case.llc@19.ll", "case.llc@22.ll", "llc of LLVM 19.", "llc -march=nvptx64"},
		"spec/ptxisa~amdgpu-mc@19/value":  {AsmFile, "llvm-mc -arch=amdgcn -mcpu=gfx942"},
		"spec/ptxisa~fenceproxy/verdict":  {"fenceproxy runs in process"},
	} {
		t.Run(pair, func(t *testing.T) {
			b := p.buckets[pair]
			bd, err := Write(context.Background(), p.s, b.Key, t.TempDir(), orcs)
			if err != nil {
				t.Fatal(err)
			}
			cmds := read(t, filepath.Join(bd.Dir, CommandsFile))
			t.Logf("%s:\n%s", bd.Dir, cmds)
			for _, w := range want {
				if strings.HasPrefix(w, "case.") {
					if strings.Contains(w, "llc") && len(orcs) < 2 {
						if !strings.Contains(cmds, w+" not written") {
							t.Errorf("no note that %s was not written:\n%s", w, cmds)
						}
						continue
					}
					if _, err := os.Stat(filepath.Join(bd.Dir, w)); err != nil {
						t.Errorf("%s not written: %v", w, err)
					}
					continue
				}
				if strings.HasPrefix(w, "llc-") && len(orcs) < 2 {
					continue
				}
				if !strings.Contains(cmds, w) {
					t.Errorf("commands.txt lacks %q:\n%s", w, cmds)
				}
			}
			if exp := read(t, filepath.Join(bd.Dir, ExpectedFile)); !strings.Contains(exp, "verdict: accept\nrule: r.a\n") {
				t.Errorf("expected.txt:\n%s", exp)
			}
			if obs := read(t, filepath.Join(bd.Dir, ObservedFile)); !strings.Contains(obs, "diagnostic:\n  no\n  second line\n") {
				t.Errorf("observed.txt:\n%s", obs)
			}
			if v := read(t, filepath.Join(bd.Dir, VersionsFile)); !strings.Contains(v, b.Signature.Pair.A+" 1\n") {
				t.Errorf("versions.txt:\n%s", v)
			}
			d, _ := fuzz.Lookup(b.Signature.Domain)
			v, err := d.ParseJSON([]byte(read(t, filepath.Join(bd.Dir, CaseFile))))
			if err != nil || domain.NewCase(d.Name, v).ID != b.Example {
				t.Errorf("case.json does not parse back to the example case: %v", err)
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// minimized is a store whose one bucket has a minimized case.
type minimized struct {
	regress.Store
	b store.Bucket
}

func (m minimized) Buckets() ([]store.Bucket, error) { return []store.Bucket{m.b}, nil }

// TestWritePicksMinimizedCase checks that a bucket's minimized case is
// bundled when the pair judged it, and the example otherwise.
func TestWritePicksMinimizedCase(t *testing.T) {
	p := plant(t)
	b := p.buckets["mlir@19~ptxas/verdict"]
	d, _ := fuzz.Lookup("mma")
	small := domain.NewCase(d.Name, d.Seeds()[2]) // not the example, spellableSeed's [1]
	if _, err := p.s.AddCases("", []store.CaseRecord{{ID: small.ID, Domain: d.Name, Data: small.Value.Encode()}}); err != nil {
		t.Fatal(err)
	}
	b.Minimized = small.ID
	s := minimized{p.s, b}
	bd, err := Write(context.Background(), s, b.Key, t.TempDir(), nil)
	if err != nil || bd.Minimized || bd.Case.ID != b.Example {
		t.Fatalf("no pair verdicts on the minimized case: bundled %s (minimized %v), %v; want the example", bd.Case.ID, bd.Minimized, err)
	}
	_, err = p.s.CommitVerdicts(store.Commit{Verdicts: []oracles.Verdict{
		{Oracle: "mlir@19", Case: small.ID, Domain: d.Name, Kind: oracles.Accept},
		{Oracle: "ptxas", Case: small.ID, Domain: d.Name, Kind: oracles.Reject, Diagnostic: "no"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	bd, err = Write(context.Background(), s, b.Key[:6], t.TempDir(), nil)
	if err != nil || !bd.Minimized || bd.Case.ID != small.ID {
		t.Fatalf("bundled %s (minimized %v), %v; want the minimized case %s", bd.Case.ID, bd.Minimized, err, small.ID)
	}
	if _, err := Write(context.Background(), p.s, "zzzz", t.TempDir(), nil); !errors.Is(err, regress.ErrNoBucket) {
		t.Fatalf("unknown bucket: %v", err)
	}
	if _, err := Write(context.Background(), p.s, "", t.TempDir(), nil); err == nil {
		t.Fatal("empty bucket ID accepted")
	}
}

// TestWriteTwoMLIREntryPoints: a bucket of mlir-nvvm@trunk accepting what
// mlir@trunk refuses replays the nvvm module. Both entry points wrote
// case.mlir, the nvgpu one first, and repro.sh replayed the op that
// refused ("does not reproduce: the verifier refused the case").
func TestWriteTwoMLIREntryPoints(t *testing.T) {
	c := storetest.ReadCase(t, filepath.Join("testdata", "cases", "wgmma.nvvm-on-sm120.json"))
	pair := policy.Pair{A: "mlir@trunk", B: "mlir-nvvm@trunk", On: policy.OnAnswer}
	vs := []oracles.Verdict{
		{Oracle: "spec/ptxisa", Kind: oracles.Reject, Rule: "ptxisa.wgmma.target"},
		{Oracle: "mlir@trunk", Kind: oracles.Reject, Rule: "verify", Diagnostic: "'nvgpu.warpgroup.mma.init.accumulator' op has type 'vector<64x24xi32>'"},
		{Oracle: "mlir-nvvm@trunk", Kind: oracles.Accept, Rule: "llc", Diagnostic: "ptxas: 12.4.131 reads PTX ISA up to 8.4, not 8.7; lowering stopped at llc"},
	}
	for i := range vs {
		vs[i].Case, vs[i].Domain = c.ID, c.Domain
	}
	orcs := discovered(t)
	bd := plantedBundle(t, c, pair, vs, orcs)
	if bd.Observed.Oracle != "mlir-nvvm@trunk" {
		t.Fatalf("observed %s, want mlir-nvvm@trunk", bd.Observed.Oracle)
	}
	if _, ok := toolchain.In(orcs, "mlir@trunk"); !ok {
		t.Skip("no trunk installation (make oracles)")
	}
	if m := read(t, filepath.Join(bd.Dir, MLIRFile)); !strings.Contains(m, "nvvm.wgmma.mma_async") {
		t.Errorf("%s is not the nvvm module:\n%s", MLIRFile, m)
	}
	if m := read(t, filepath.Join(bd.Dir, "case.mlir@trunk.mlir")); !strings.Contains(m, "nvgpu.warpgroup.mma") {
		t.Errorf("the nvgpu module is not beside it:\n%s", m)
	}
	if rc, out := runScript(t, bd); rc != ExitReproduces {
		t.Errorf("repro.sh: exit %d, want %d:\n%s", rc, ExitReproduces, out)
	}
}
