package repro

import (
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/amdgpu"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// TestAMDGPUScriptAssemblesForTheCaseCPU: repro.sh runs llvm-mc for the
// processor the case names, the one commands.txt names too (the oracle
// says both; repro.sh once fell back to gfx942 for waitcntasm).
func TestAMDGPUScriptAssemblesForTheCaseCPU(t *testing.T) {
	name := oracles.Installed(oracles.AMDGPUMC, "19")
	orcs := discovered(t)
	if _, ok := toolchain.In(orcs, name); !ok {
		t.Skip("no LLVM 19 installation here (make oracles)")
	}
	var v waitcntasm.Value
	for _, s := range waitcntasm.Seeds() {
		if a := s.(waitcntasm.Value); a.CPU.String() != amdgpu.CPU {
			v = a
			break
		}
	}
	if v.CPU.String() == amdgpu.CPU {
		t.Fatal("every waitcntasm seed is for gfx942")
	}
	c := domain.NewCase(waitcntasm.Name, v)
	bd := plantedBundle(t, c, policy.Pair{A: oracles.SpecPTXISA, B: name, On: policy.OnVerdict}, []oracles.Verdict{
		{Oracle: oracles.SpecPTXISA, Version: "1", Case: c.ID, Domain: c.Domain, Kind: oracles.Reject, Rule: "r.a", Diagnostic: "illegal"},
		{Oracle: name, Version: "2", Case: c.ID, Domain: c.Domain, Kind: oracles.Accept},
	}, orcs)
	want := "-mcpu=" + v.CPU.String()
	script, cmds := read(t, bd.Script), read(t, bd.Dir+"/"+CommandsFile)
	if !strings.Contains(script, "step mc ") || !strings.Contains(script, want) {
		t.Errorf("repro.sh does not run llvm-mc %s:\n%s", want, script)
	}
	if !strings.Contains(cmds, want) {
		t.Errorf("commands.txt does not name %s:\n%s", want, cmds)
	}
}
