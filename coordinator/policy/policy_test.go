package policy

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

func verdict(oracle string, kind oracles.Kind, rule, value string) oracles.Verdict {
	return oracles.Verdict{Oracle: oracle, Kind: kind, Rule: rule, Value: value}
}

func TestEvaluate(t *testing.T) {
	p := Policy{Domain: "d", Judges: []string{"ptxas"}, Pairs: []Pair{{oracles.SpecPTXISA, "mlir", OnValue}, {oracles.SpecPTXISA, "passes", OnCrash}},
		Expected: []Expectation{{Oracles: []string{"ptxas"}, Rules: []string{"ptxisa.d.align"}, Why: "runtime address"}}}
	for _, tc := range []struct {
		name         string
		verdicts     []oracles.Verdict
		wantN        int
		wantFindings int
	}{
		{"agree", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.r", ""), verdict("ptxas", oracles.Reject, "", "")}, 0, 0},
		{"disagree", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.r", ""), verdict("ptxas", oracles.Accept, "", "")}, 1, 1},
		{"unsupported skipped", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.r", ""), verdict("ptxas", oracles.Unsupported, "", "")}, 0, 0},
		{"tool error is a finding", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", ""), verdict("ptxas", oracles.Error, "", "")}, 1, 1},
		{"expected", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.align", ""), verdict("ptxas", oracles.Accept, "", "")}, 1, 0},
		{"expected does not cover a crash", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.align", ""), verdict("ptxas", oracles.Error, "", "")}, 1, 1},
		{"value differs", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", "0x1"), verdict("mlir", oracles.Accept, "", "0x2")}, 1, 1},
		{"value agrees", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", "0x1"), verdict("mlir", oracles.Accept, "", "0x1")}, 0, 0},
		{"gpu result differs from the prediction", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", ""), verdict("ptxas", oracles.Result, "", "byte 12: got 0x3f want 0x00")}, 1, 1},
		{"a pass judge's refusal says nothing", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", ""), verdict("passes", oracles.Reject, "pass:cse", "")}, 0, 0},
		{"a pass judge's accept says nothing", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.r", ""), verdict("passes", oracles.Accept, "", "")}, 0, 0},
		{"a pass judge's crash is a finding", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.d.r", ""), verdict("passes", oracles.Error, "pass:cse", "")}, 1, 1},
		{"absent oracle skipped", []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.d", "")}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := p.Evaluate(domain.Case{ID: "c", Domain: "d"}, tc.verdicts)
			findings := 0
			for _, d := range ds {
				if d.Finding() {
					findings++
				}
			}
			if len(ds) != tc.wantN || findings != tc.wantFindings {
				t.Fatalf("got %d disagreements (%d findings): %+v; want %d (%d)", len(ds), findings, ds, tc.wantN, tc.wantFindings)
			}
		})
	}
}

// TestPoliciesNameRealThings guards the policy table against typos: every
// oracle and domain it names must exist.
func TestPoliciesNameRealThings(t *testing.T) {
	for _, name := range Oracles() {
		if _, ok := oracles.Lookup(name); !ok || strings.HasPrefix(name, oracles.ExecPrefix) {
			t.Errorf("policy names unknown oracle %q", name)
		}
	}
	for _, p := range policies {
		if _, ok := fuzz.Lookup(p.Domain); !ok {
			t.Errorf("policy for unknown domain %q", p.Domain)
		}
	}
}

// TestExpectationsNameRealRules guards the expectations against typos: every
// rule they name must exist in spec/ptxisa.
func TestExpectationsNameRealRules(t *testing.T) {
	known := map[string]bool{}
	for _, r := range rules.Rules() {
		known[r.ID] = true
	}
	for _, p := range policies {
		for _, e := range p.Expected {
			for _, r := range e.Rules {
				if !known[r] {
					t.Errorf("policy %s expects unknown rule %q", p.Domain, r)
				}
			}
		}
	}
}

// TestBuiltinExpectationsNameRulesAndWhy: an expectation without rules
// silences a tool's every disagreement on the domain, the bugs with them.
func TestBuiltinExpectationsNameRulesAndWhy(t *testing.T) {
	for _, p := range Builtin() {
		for _, e := range p.Expected {
			if len(e.Rules) == 0 || e.Why == "" {
				t.Errorf("%s: expectation for %v vs %s has no rules or no why: %+v", p.Domain, e.Oracles, e.Side(), e)
			}
			if (e.Condition == "") != (e.When == nil) {
				t.Errorf("%s: expectation for %v: a condition needs both its words and its predicate", p.Domain, e.Oracles)
			}
		}
	}
}

// TestConditionalExpectation: the wgmma expectation holds for an M and K
// that split into instructions, not for a K that does not, nor for a case
// whose value is unknown.
func TestConditionalExpectation(t *testing.T) {
	p := PolicyFor("wgmma")
	base := wgmma.Seeds()[0].(wgmma.Value)
	splits, ragged := base, base
	splits.K, ragged.K = 2*base.K, base.K+base.K/2
	spec := verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.wgmma.k", "")
	mlir := verdict(oracles.MLIR, oracles.Accept, "ptxas", "")
	for _, tc := range []struct {
		name    string
		c       domain.Case
		finding bool
	}{
		{"K twice the instruction's", domain.NewCase("wgmma", splits), false},
		{"K one and a half times the instruction's", domain.NewCase("wgmma", ragged), true},
		{"value unknown", domain.Case{ID: "c", Domain: "wgmma"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := p.Evaluate(tc.c, []oracles.Verdict{spec, mlir})
			if len(ds) != 1 || ds[0].Finding() != tc.finding {
				t.Fatalf("disagreements %+v, want one with finding = %v", ds, tc.finding)
			}
		})
	}
}

// TestAccountableRule: a tool failing on a case whose first broken rule it
// never sees (MLIR 22 names no tensor map, so not its interleave) is charged
// with the first broken rule it does see; a tool that sees the rule, a case
// that breaks only rules the tool cannot see, or a case whose value is
// unknown keeps the ladder's rule.
func TestAccountableRule(t *testing.T) {
	const gather4 = `{"direction":"load","mode":"tile::gather4","rank":2,"dst":"shared::cluster","box_dim1":1,"interleave":"16B"`
	early, err := tmamode.ParseJSON([]byte(gather4 + `,"target":"sm_90a","ptx":"8.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	inTime, err := tmamode.ParseJSON([]byte(gather4 + `,"target":"sm_100a","ptx":"8.6"}`))
	if err != nil {
		t.Fatal(err)
	}
	const interleave = "ptxisa.tmamode.gather-scatter-interleave"
	for _, v := range []domain.Value{early, inTime} {
		if j, err := rules.JudgeValue(rules.PTXISA, "tmamode", v); err != nil || j.Accept || j.Rule.ID != interleave {
			t.Fatalf("premise: spec/ptxisa should reject %v with %s first, got %+v (%v)", v, interleave, j, err)
		}
	}
	ref := verdict(oracles.SpecPTXISA, oracles.Reject, interleave, "")
	refused := func(oracle string) oracles.Verdict {
		return oracles.Verdict{Oracle: oracle, Version: "mlir-opt 22.1.8 +lowering", Kind: oracles.Error, Rule: "llc/refused",
			Diagnostic: "llc: LLVM ERROR: Cannot select: intrinsic llvm.nvvm.cp.async.bulk.tensor.g2s.tile.gather4.2d"}
	}
	for _, tc := range []struct {
		name string
		c    domain.Case
		tool string
		want string
	}{
		{"mlir22 does not see the interleave", domain.NewCase("tmamode", early), "mlir@22", "ptxisa.tmamode.new-modes-ptx"},
		{"ptxas is not listed as blind to it", domain.NewCase("tmamode", early), oracles.PTXAS, interleave},
		{"no other rule broken", domain.NewCase("tmamode", inTime), "mlir@22", interleave},
		{"value unknown", domain.Case{ID: "c", Domain: "tmamode"}, "mlir@22", interleave},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := PolicyFor("tmamode").Evaluate(tc.c, []oracles.Verdict{ref, refused(tc.tool)})
			// Judged by the pair alone, as a replay or a minimization step
			// judges it, the disagreement keys the same.
			alone := PolicyFor("tmamode").On(Pair{oracles.SpecPTXISA, tc.tool, OnVerdict}).Evaluate(tc.c, []oracles.Verdict{ref, refused(tc.tool)})
			if len(alone) != 1 || alone[0].SpecRule != tc.want {
				t.Errorf("the pair alone: %+v, want rule %q", alone, tc.want)
			}
			if len(ds) == 0 {
				t.Fatal("no disagreement")
			}
			for _, d := range ds {
				if d.SpecRule != tc.want || SignatureOf(d).Rule != tc.want {
					t.Errorf("pair %s: rule %q, signature %q, want %q", d.Pair, d.SpecRule, SignatureOf(d).Rule, tc.want)
				}
			}
		})
	}
}

// TestHandshakeExpectation: fenceproxy accepting a schedule spec/ptxisa
// finds racy is expected when the pass completed a TMA store's handshake
// (that cures a store still in flight), and a finding otherwise.
func TestHandshakeExpectation(t *testing.T) {
	examples := map[string]sc.Value{}
	for _, ex := range sc.Examples() {
		examples[ex.Name] = ex.V
	}
	ref := verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.schedule.race", "")
	pass := verdict(oracles.FenceProxy, oracles.Accept, "fenceproxy.ok", "")
	for _, tc := range []struct {
		example string
		finding bool
	}{
		{"store-rewritten-in-flight", false},
		{"pipeline-slot-reused-early", true},
	} {
		v, ok := examples[tc.example]
		if !ok {
			t.Fatalf("no schedule example %q", tc.example)
		}
		ds := PolicyFor("schedule").Evaluate(domain.NewCase("schedule", v), []oracles.Verdict{ref, pass})
		if len(ds) != 1 || ds[0].Finding() != tc.finding {
			t.Errorf("%s: disagreements %+v, want one with finding = %v", tc.example, ds, tc.finding)
		}
	}
}

// TestBlindGPUJudges replays disagreements of the first H200 run
// (docs/gpu-runs.md): a GPU judge that cannot see the rule is expected to
// differ, one that can (the driver on the interleave/swizzle coupling, the
// hardware faulting on an accepted map) stays a finding.
func TestBlindGPUJudges(t *testing.T) {
	for _, tc := range []struct {
		name, domain, rule string
		tool               oracles.Verdict
		finding            bool
	}{
		{"encoder blind to the shared address", "tmadesc", "ptxisa.tmadesc.smem-align", verdict(oracles.CUDADriver, oracles.Accept, "", ""), false},
		{"encoder does not check its host pointer", "tmadesc", "ptxisa.tmadesc.tensormap-align", verdict(oracles.CUDADriver, oracles.Accept, "", ""), false},
		{"encoder laxer than its documentation", "tmadesc", "ptxisa.tmadesc.interleave-32b-swizzle", verdict(oracles.CUDADriver, oracles.Accept, "", ""), true},
		{"kernel has its own PTX version", "tmadesc", "ptxisa.tmadesc.target-ptx-version", verdict(oracles.GPU, oracles.Accept, "", ""), false},
		{"hardware agrees with a rule the encoder is blind to", "tmadesc", "ptxisa.tmadesc.smem-align", verdict(oracles.GPU, oracles.Reject, "", ""), false},
		{"encoding drops the alignment bits", "matdesc", "ptxisa.matdesc.alignment", verdict(oracles.GPU, oracles.Accept, "", ""), false},
		{"hardware ignores reserved bits", "matdesc", "ptxisa.matdesc.reserved", verdict(oracles.GPU, oracles.Accept, "", ""), true},
		{"tcgen05 descriptor opaque to ptxas 13", "matdesc", "ptxisa.matdesc.fixed-46-48", verdict(oracles.PTXAS13, oracles.Accept, "", ""), false},
		{"halo in a register", "tmamode", "ptxisa.tmamode.w-halo", verdict(oracles.PTXAS13, oracles.Accept, "", ""), false},
		{"scale fragment bits unspelled", "blockscale", "ptxisa.blockscale.scale-fragment-bits", verdict(oracles.CUDAJIT, oracles.Accept, "", ""), false},
		{"ldsm kernel's own PTX version", "ldsm", "ptxisa.ldsm.target-ptx-version", verdict(oracles.GPU, oracles.Accept, "", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := []oracles.Verdict{verdict(oracles.SpecPTXISA, oracles.Reject, tc.rule, ""), tc.tool}
			ds := PolicyFor(tc.domain).Evaluate(domain.Case{ID: "c", Domain: tc.domain}, vs)
			findings := 0
			for _, d := range ds {
				if d.Finding() {
					findings++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.finding]; findings != want {
				t.Fatalf("%d findings in %+v, want %d", findings, ds, want)
			}
		})
	}
}

// TestEntryPointsWithinInstallation checks that MLIR's nvgpu and nvvm
// spellings of a case are compared within each installation: mlir@22
// against mlir-nvvm@22, never against mlir-nvvm@trunk, whose verdict says
// where a bug was fixed, not that two entry points disagree.
func TestEntryPointsWithinInstallation(t *testing.T) {
	p := Policy{Domain: "mma", Pairs: []Pair{entryPoints}}
	vs := []oracles.Verdict{
		verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.mma", ""),
		verdict("mlir@22", oracles.Reject, "verify", ""),
		verdict("mlir-nvvm@22", oracles.Accept, "ptxas", ""),
		verdict("mlir@trunk", oracles.Accept, "ptxas", ""),
		verdict("mlir-nvvm@trunk", oracles.Reject, "verify", ""),
	}
	ds := p.Evaluate(domain.Case{ID: "c", Domain: "mma"}, vs)
	var got []string
	for _, d := range ds {
		got = append(got, d.Pair.A+"~"+d.Pair.B)
	}
	if strings.Join(got, " ") != "mlir@22~mlir-nvvm@22 mlir@trunk~mlir-nvvm@trunk" {
		t.Fatalf("pairs compared: %v", got)
	}
}

// TestEntryPointsFailAlike checks that two entry points failing on one
// case are no disagreement of theirs: each failure is its own finding
// against spec/ptxisa.
func TestEntryPointsFailAlike(t *testing.T) {
	p := Policy{Domain: "mma", Pairs: []Pair{entryPoints}}
	for _, tc := range []struct {
		name string
		a, b oracles.Kind
		want int
	}{
		{"both fail", oracles.Error, oracles.Error, 0},
		{"one fails", oracles.Error, oracles.Accept, 0},
		{"accept against reject", oracles.Accept, oracles.Reject, 1},
		{"both accept", oracles.Accept, oracles.Accept, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := p.Evaluate(domain.Case{ID: "c", Domain: "mma"}, []oracles.Verdict{
				verdict("mlir@23", tc.a, "", ""), verdict("mlir-nvvm@23", tc.b, "", "")})
			if len(ds) != tc.want {
				t.Fatalf("got %d disagreements, want %d: %+v", len(ds), tc.want, ds)
			}
		})
	}
}
