package rules

import nv "github.com/legalfuzz/legalfuzz/fuzz/nvvmop"

func init() { register(nvvmopPTXISA) }

// nvvmopPTXISA judges what the PTX ISA says of a single NVVM op's case
// without knowing the op: only that its PTX ISA version can name its
// target. What each op requires is its installation's to say (its
// NVVMRequiresSM traits, the intrinsics llc selects), so the domain's
// findings are the judges' own failures (coordinator/policy: a crash, or
// what the verifier accepts and the backend cannot compile), not verdicts
// that differ from this ladder's.
var nvvmopPTXISA = &Ladder[nv.Value]{Set: PTXISA, Domain: nv.Name,
	Checks: []Check[nv.Value]{targetPTXCheck[nv.Value](nv.Name)},
}
