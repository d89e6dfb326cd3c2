package policy

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  Signature
		want Class
	}{
		{"crash", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error}, Crash},
		{"error at exit status 0", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "pass:convert-nvgpu-to-nvvm/exit-0", Rule: "ptxisa.mma", SpecKind: oracles.Accept}, ExitZeroError},
		{"PTX lacks the work", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "ptx/dropped", Rule: "ptxisa.wgmma.k", SpecKind: oracles.Reject}, Miscompile},
		{"own output refused, illegal case", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "ptxas/refused", Rule: "ptxisa.wgmma.target", SpecKind: oracles.Reject}, TooPermissive},
		{"own output refused, legal case", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "llc/refused", Rule: "ptxisa.wgmma", SpecKind: oracles.Accept}, Miscompile},
		{"left unconverted, stored without spec kind", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "pass:convert-nvgpu-to-nvvm/unconverted", Rule: "ptxisa.mma.type"}, TooPermissive},
		{"left unconverted, legal case", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "pass:convert-nvgpu-to-nvvm/unconverted", Rule: "ptxisa.mma", SpecKind: oracles.Accept}, TooPermissive},
		{"own pass refused, legal case", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "pass:convert-nvgpu-to-nvvm/pass-refused", Rule: "ptxisa.mma", SpecKind: oracles.Accept,
			Diag: "'nvvm.mma.sync' op ctype does not match dtype"}, TooPermissive},
		{"own pass refused, illegal case", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "pass:convert-nvgpu-to-nvvm/pass-refused", Rule: "ptxisa.wgmma.target", SpecKind: oracles.Reject}, TooPermissive},
		{"refused, legal by the rule set", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "ptxas/refused", Rule: "ptxisa.mma"}, Miscompile},
		{"ptxas crashed on MLIR's output", Signature{Domain: "mma", Tool: oracles.MLIR, Kind: oracles.Error,
			Stage: "ptxas", Rule: "ptxisa.mma.type", SpecKind: oracles.Reject}, Crash},
		{"another value", Signature{Domain: "matdesc", Tool: oracles.MLIR, Kind: oracles.Accept, On: OnValue}, Miscompile},
		{"another value, legal case", Signature{Domain: "waitcntasm", Tool: "amdgpu-mc@22", Kind: oracles.Accept, On: OnValue,
			Rule: "ptxisa.waitcntasm", SpecKind: oracles.Accept}, Miscompile},
		{"accepts on a value pair what spec rejects", Signature{Domain: "waitcntasm", Tool: oracles.AMDGPUMC, Kind: oracles.Accept, On: OnValue,
			Rule: "ptxisa.waitcntasm.operand-range", SpecKind: oracles.Reject}, TooPermissive},
		{"accepts what spec rejects", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Accept, Rule: "ptxisa.wgmma.k", On: OnVerdict}, TooPermissive},
		{"rejects what spec accepts", Signature{Domain: "tmadesc", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: the tensormap descriptor must have last dimension of N bytes but it is N bytes"}, TooStrict},
		{"MLIR's own not supported yet", Signature{Domain: "tmadesc", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: Interleave options are not supported yet."}, Limitation},
		{"MLIR's own for the time being", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: 'nvgpu.warpgroup.mma' op supports non-transpose A (Row Major) and transpose B (Column Major) for the time being"}, Limitation},
		{"MLIR's own hit a limitation", Signature{Domain: "wgmma", Tool: oracles.MLIR, Kind: oracles.Reject, On: OnVerdict,
			Diag: "error: 'nvgpu.warpgroup.mma' op hit a limitation: 'fN' += 'fNENMNFN' * 'fNENMNFN', it is not supported yet"}, Limitation},
		{"fence inserter under test", Signature{Domain: "schedule", Tool: oracles.FenceProxy, Kind: oracles.Reject}, SeedEvidence},
		{"waitcnt lowering under test", Signature{Domain: "waitcnt", Tool: oracles.AMDGPUMC, Kind: oracles.Accept, On: OnValue}, SeedEvidence},
		{"two tools, spec silent", Signature{Domain: "mma", Tool: "llc@19" + "~" + "llc@22", Kind: oracles.Reject}, Disputed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassOf(tc.sig); got != tc.want {
				t.Errorf("ClassOf = %s, want %s", got, tc.want)
			}
		})
	}
	if Crash.Rank() >= TooStrict.Rank() || !Crash.Bug() || Limitation.Bug() || SeedEvidence.Bug() {
		t.Error("crashes must rank first and fail a nightly; limitations and seed evidence must not fail it")
	}
}

// TestMLIRFaultsAreFindings: when MLIR's verifier let a case through and a
// later tool refused MLIR's own output, that is MLIR's bucket whatever
// spec/ptxisa and ptxas say, even on a rule an expectation names for MLIR
// (ptxisa.ldsm.register-count is expected of mlir against both).
func TestMLIRFaultsAreFindings(t *testing.T) {
	p := PolicyFor("ldsm")
	for _, tc := range []struct {
		name     string
		spec     oracles.Verdict
		mlir     oracles.Verdict
		ptxas    oracles.Verdict
		want     Class
		findings int
	}{
		{"refused, illegal case", verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.ldsm.register-count", ""),
			verdict(oracles.MLIR, oracles.Error, "ptxas/refused", ""), verdict(oracles.PTXAS, oracles.Reject, "", ""), TooPermissive, 2},
		{"refused, legal case", verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.ldsm", ""),
			verdict(oracles.MLIR, oracles.Error, "llc/refused", ""), verdict(oracles.PTXAS, oracles.Accept, "", ""), Miscompile, 2},
		{"dropped", verdict(oracles.SpecPTXISA, oracles.Accept, "ptxisa.ldsm", ""),
			verdict(oracles.MLIR, oracles.Error, "ptx/dropped", ""), verdict(oracles.PTXAS, oracles.Accept, "", ""), Miscompile, 2},
		{"the same refusal in MLIR's own words is agreement", verdict(oracles.SpecPTXISA, oracles.Reject, "ptxisa.ldsm.register-count", ""),
			verdict(oracles.MLIR, oracles.Reject, "verify", ""), verdict(oracles.PTXAS, oracles.Reject, "", ""), "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := p.Evaluate(domain.Case{ID: "c", Domain: "ldsm"}, []oracles.Verdict{tc.spec, tc.mlir, tc.ptxas})
			keys := map[string]bool{}
			n := 0
			for _, d := range ds {
				if !d.Finding() {
					continue
				}
				n++
				s := SignatureOf(d)
				keys[s.Key()] = true
				if s.Tool != oracles.MLIR || s.Stage != tc.mlir.Rule || ClassOf(s) != tc.want {
					t.Errorf("%v: signature %s at %q class %s, want mlir at %q class %s", d.Pair, s.Tool, s.Stage, ClassOf(s), tc.mlir.Rule, tc.want)
				}
			}
			if n != tc.findings || (n > 0 && len(keys) != 1) {
				t.Errorf("got %d findings in %d buckets, want %d in one", n, len(keys), tc.findings)
			}
		})
	}
}

// TestFaultKeys: a tool's crash or error at exit 0 is one bucket whatever
// rule spec/ptxisa decided its cases with; refused output of a case
// spec/ptxisa rejects is the verifier's gap for that rule, whichever later
// stage refused in whatever words; verdicts keep the rule.
func TestFaultKeys(t *testing.T) {
	sig := func(kind oracles.Kind, stage, rule string, spec oracles.Kind) Signature {
		return Signature{Domain: "mma", Tool: oracles.MLIR, Kind: kind, Stage: stage, Rule: rule, SpecKind: spec, Diag: "d", On: OnVerdict}
	}
	for _, tc := range []struct {
		name string
		a, b Signature
		same bool
	}{
		{"exit-0 under two rules", sig(oracles.Error, "pass:p/exit-0", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Error, "pass:p/exit-0", "ptxisa.mma", oracles.Accept), true},
		{"crash under two rules", sig(oracles.Error, "verify", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Error, "verify", "ptxisa.mma.type", oracles.Reject), true},
		{"refused under two rejecting rules", sig(oracles.Error, "ptxas/refused", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Error, "ptxas/refused", "ptxisa.mma.type", oracles.Reject), false},
		{"one gap refused by ptxas and by llc", sig(oracles.Error, "ptxas/refused", "ptxisa.mma.shape", oracles.Reject), func() Signature {
			s := sig(oracles.Error, "llc/refused", "ptxisa.mma.shape", oracles.Reject)
			s.Tool, s.Diag = "mlir@22", "Cannot select: intrinsic %llvm.nvvm.mma.m8n8k4"
			return s
		}(), true},
		{"one gap left unconverted", sig(oracles.Error, "pass:p/unconverted", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Error, "ptxas/refused", "ptxisa.mma.shape", oracles.Reject), true},
		{"a pass refusing an illegal case is the rule's gap", sig(oracles.Error, "pass:p/pass-refused", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Accept, "", "ptxisa.mma.shape", oracles.Reject), true},
		{"a pass refusing legal cases: one bucket per words", sig(oracles.Error, "pass:p/pass-refused", "ptxisa.mma", oracles.Accept), func() Signature {
			s := sig(oracles.Error, "pass:p/pass-refused", "ptxisa.mma", oracles.Accept)
			s.Diag = "other words"
			return s
		}(), false},
		{"a pass refusing legal cases under two rule sets' names", sig(oracles.Error, "pass:p/pass-refused", "ptxisa.mma", oracles.Accept), sig(oracles.Error, "pass:p/pass-refused", "", oracles.Accept), true},
		{"an accept and a refusal of one rule are one gap", sig(oracles.Accept, "", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Error, "ptxas/refused", "ptxisa.mma.shape", oracles.Reject), true},
		{"an accept's note is not the bug", sig(oracles.Accept, "", "ptxisa.mma.shape", oracles.Reject), func() Signature {
			s := sig(oracles.Accept, "", "ptxisa.mma.shape", oracles.Reject)
			s.Diag = "ptxas: N.N.N reads PTX ISA up to N.N, not N.N; lowering stopped at llc"
			return s
		}(), true},
		{"refused legal cases keep their words", sig(oracles.Error, "ptxas/refused", "ptxisa.mma", oracles.Accept), func() Signature {
			s := sig(oracles.Error, "ptxas/refused", "ptxisa.mma", oracles.Accept)
			s.Diag = "other"
			return s
		}(), false},
		{"refused, legal vs illegal", sig(oracles.Error, "ptxas/refused", "ptxisa.mma", oracles.Accept), sig(oracles.Error, "ptxas/refused", "ptxisa.mma.type", oracles.Reject), false},
		{"rejects under two rules", sig(oracles.Reject, "verify", "ptxisa.mma.shape", oracles.Reject), sig(oracles.Reject, "verify", "ptxisa.mma.type", oracles.Reject), false},
		{"mlir and mlir22", sig(oracles.Reject, "verify", "ptxisa.mma", oracles.Accept), func() Signature {
			s := sig(oracles.Reject, "verify", "ptxisa.mma", oracles.Accept)
			s.Tool = "mlir@22"
			return s
		}(), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Key() == tc.b.Key(); got != tc.same {
				t.Errorf("same key: %t, want %t", got, tc.same)
			}
		})
	}
}
