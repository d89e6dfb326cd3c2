package rules

import (
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func TestNVVMOpPTXISARules(t *testing.T) {
	v := nvvmop.Value{Op: "nvvm.barrier0", Arch: target.MustParse("sm_90", "")}
	old := v
	old.Arch = target.MustParse("sm_90", "7.0")
	runLadderCases(t, nvvmopPTXISA, []ladderCase[nvvmop.Value]{
		{"sm_90 at its first PTX ISA version", v, "", "", ""},
		{"sm_90 at PTX ISA 7.0", old, "ptxisa.nvvmop.target-ptx-version", "PTX ISA version does not know the .target: sm_90 (PTX 7.0)", ""},
	})
}
