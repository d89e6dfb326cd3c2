package nvvmop

import (
	"context"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// judges discovers the judge of every installed LLVM installation with
// TableGen sources, skipping the test when there is none.
func judges(t *testing.T) []*Oracle {
	t.Helper()
	ctx := context.Background()
	found, _, err := toolchain.Discover(ctx, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Oracle
	for _, in := range found {
		o, st := Discover(ctx, in)
		if o == nil {
			t.Logf("%s: %s", st.Name, st.Reason)
			continue
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		t.Skip("no LLVM installation with mlir-opt, mlir-translate, llc and its NVVM TableGen sources (make oracles installs them for 22, 23 and trunk)")
	}
	if testing.Short() {
		out = out[len(out)-1:]
	}
	return out
}

// first is the op's first case on the oracle's installation.
// snapshotCase is the op's first case written from the embedded trunk
// surface, as the domain's seeds and decoder write cases.
func snapshotCase(t *testing.T, name string) domain.Case {
	t.Helper()
	for _, s := range nvvmop.Seeds() {
		if v := s.(nvvmop.Value); v.Op == name {
			return domain.NewCase(nvvmop.Name, v)
		}
	}
	t.Fatalf("no seed of %s", name)
	return domain.Case{}
}

func first(t *testing.T, o *Oracle, name string) domain.Case {
	t.Helper()
	s, err := surface.Read(context.Background(), o.Installation(), nvvm)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range s.Ops {
		if op.Name == name {
			v, err := nvvmop.First(op)
			if err != nil {
				t.Fatal(err)
			}
			return domain.NewCase(nvvmop.Name, v)
		}
	}
	t.Fatalf("LLVM %s defines no %s", o.Installation().Label, name)
	return domain.Case{}
}

// TestJudgeAsTheToolsDid: each op's first case, judged as the
// installations' own tools answered it by hand (22, 23 and trunk alike):
// nvvm.elect.sync verifies on sm_80 and llc cannot select it; the first
// nvvm.convert.f32x2.to.bf16x2 the verifier refuses (its rounding mode);
// nvvm.fence.proxy.acquire's size, which LLVM IR wants as an immediate,
// is the constant 128 (written as a function argument, mlir-translate's
// output failed the IR verifier: "immarg operand has non-immediate
// parameter"), so it translates; the op has no NVVMRequiresSM, and llc
// cannot select its first case (sm_80, PTX 7.0: the instruction needs
// sm_90 and PTX 8.3) and compiles it on sm_90 at PTX 8.3;
// nvvm.shfl.sync compiles, and llc refuses it on sm_90 at PTX 7.0 (the
// target itself); an op no installation defines is unsupported.
func TestJudgeAsTheToolsDid(t *testing.T) {
	for _, o := range judges(t) {
		t.Run(o.Installation().Label, func(t *testing.T) {
			cases := []struct {
				op         string
				kind       oracles.Kind
				rule, diag string
			}{
				{"nvvm.elect.sync", oracles.Error, "llc/pass-refused", "LLVM ERROR: Cannot select: intrinsic llvm.nvvm.elect.sync"},
				{"nvvm.convert.f32x2.to.bf16x2", oracles.Reject, "verify", "op Only RN, RZ, and RS rounding modes are supported"},
				{"nvvm.fence.proxy.acquire", oracles.Error, "llc/pass-refused", "LLVM ERROR: Cannot select: intrinsic llvm.nvvm.fence.proxy.tensormap_generic.acquire.cta"},
				{"nvvm.shfl.sync", oracles.Accept, "llc", ""},
			}
			var cs []domain.Case
			for _, tc := range cases {
				cs = append(cs, first(t, o, tc.op))
			}
			missing := nvvmop.Value{Op: "nvvm.no.such.op", Arch: cs[0].Value.Target()}
			cs = append(cs, domain.NewCase(nvvmop.Name, missing))
			oldPTX := cs[3].Value.(nvvmop.Value)
			oldPTX.Arch = target.MustParse("sm_90", "7.0")
			cs = append(cs, domain.NewCase(nvvmop.Name, oldPTX))
			acquire := cs[2].Value.(nvvmop.Value)
			acquire.Arch = target.MustParse("sm_90", "8.3")
			cs = append(cs, domain.NewCase(nvvmop.Name, acquire))
			// A case as the campaign writes it, from trunk's surface: LLVM 23
			// spells the shuffle kind #nvvm<shfl_kind bfly>, trunk
			// #nvvm.shfl_kind<bfly>, and neither parses the other's.
			shfl := snapshotCase(t, "nvvm.shfl.sync")
			cs = append(cs, shfl)
			vs, err := o.Judge(context.Background(), cs)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != len(cs) {
				t.Fatalf("%d verdicts for %d cases", len(vs), len(cs))
			}
			for i, tc := range cases {
				v := vs[i]
				if v.Kind != tc.kind || v.Rule != tc.rule || !strings.Contains(v.Diagnostic, tc.diag) || v.Case != cs[i].ID {
					t.Errorf("%s: %s %q %q, want %s %q with %q", tc.op, v.Kind, v.Rule, v.Diagnostic, tc.kind, tc.rule, tc.diag)
				}
			}
			if v := vs[len(cases)]; v.Kind != oracles.Unsupported || !strings.Contains(v.Diagnostic, "not an op of LLVM") {
				t.Errorf("nvvm.no.such.op: %s %q, want unsupported", v.Kind, v.Diagnostic)
			}
			// The verifier does not read the target's PTX ISA version; llc
			// refuses the pair itself, whatever the op: a rejection.
			if v := vs[len(cases)+1]; v.Kind != oracles.Reject || v.Rule != "llc" || !strings.Contains(v.Diagnostic, "does not support target 'sm_90'") {
				t.Errorf("nvvm.shfl.sync on sm_90 at PTX 7.0: %s %q %q, want a rejection by llc", v.Kind, v.Rule, v.Diagnostic)
			}
			if v := vs[len(cases)+2]; v.Kind != oracles.Accept || v.Rule != "llc" {
				t.Errorf("nvvm.fence.proxy.acquire on sm_90 at PTX 8.3: %s %q %q, want llc to compile it", v.Kind, v.Rule, v.Diagnostic)
			}
			if v := vs[len(cases)+3]; v.Kind != oracles.Accept || v.Rule != "llc" {
				t.Errorf("nvvm.shfl.sync in trunk's spelling %v: %s %q %q, want llc to compile it", shfl.Value.(nvvmop.Value).Attrs, v.Kind, v.Rule, v.Diagnostic)
			}
		})
	}
}

// TestReproductionWritesTheChain: a reproduction writes both MLIR files
// and the three commands, the op named in the filing's subject.
func TestReproductionWritesTheChain(t *testing.T) {
	v := nvvmop.Value{Op: "nvvm.barrier0", Arch: opsurfaceTarget(t)}
	rep := Reproducer{}.Reproduce(context.Background(), oracles.ReproRequest{Name: "nvvm-op@trunk", Case: domain.NewCase(nvvmop.Name, v)})
	if len(rep.Files) != 2 || rep.Input != VerifyFile || len(rep.Commands) != 4 {
		t.Fatalf("reproduction %+v", rep)
	}
	if !strings.Contains(rep.Files[0].Text, `#nvvm.target<chip = "sm_90", features = "+ptx78">`) {
		t.Errorf("%s:\n%s", VerifyFile, rep.Files[0].Text)
	}
	read := func(name string) string {
		for _, f := range rep.Files {
			if f.Name == name {
				return f.Text
			}
		}
		return ""
	}
	if got := (Reproducer{}).Filing().Subject(read, rep.Input, ""); got != "nvvm.barrier0" {
		t.Errorf("subject %q, want nvvm.barrier0", got)
	}
}

// opsurfaceTarget is sm_90 at its first PTX ISA version.
func opsurfaceTarget(t *testing.T) target.Target {
	t.Helper()
	v, err := nvvmop.First(opsurface.Op{Name: "nvvm.x", Targets: opsurface.Requirement{MinSM: 90}})
	if err != nil {
		t.Fatal(err)
	}
	return v.Arch
}
