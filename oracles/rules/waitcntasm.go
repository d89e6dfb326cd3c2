package rules

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
)

func init() { register(waitcntAsmPTXISA) }

// The waitcntasm rules' sources: AMD's and LLVM's, not the PTX ISA (the set
// keeps its name for uniformity).
const (
	srcAsmOps = "AMD Vega/RDNA1-3/RDNA4 ISA opcode tables; LLVM PR 77336 (gfx12: s_waitcnt deprecated, " +
		"s_waitcnt_vscnt removed, s_wait_* added); LLVM PR 145082 (gfx1250: no samplecnt, bvhcnt, expcnt waits)"
	srcAsmFields = "LLVM AMDGPU syntax pages gfx9_waitcnt, gfx10_waitcnt, gfx11_waitcnt, gfx12_waitcnt " +
		"(\"N must not exceed the largest VM_CNT value\"); RDNA4 ISA S_WAIT_* (SIMM16 low bits are the count); " +
		"LLVM AMDGPUBaseInfo counter widths"
	srcAsmRange = "LLVM AMDGPU syntax pages gfx9_waitcnt ... gfx12_waitcnt: the integer operand \"must be in the range 0..0xFFFF\""
)

func asmExpectFires(reason string) func(waitcntasm.Value) bool {
	return func(v waitcntasm.Value) bool { _, r, _ := v.Expect(); return r == reason }
}

func asmExpectDetail(v waitcntasm.Value) string { _, _, d := v.Expect(); return ": " + d }

// waitcntAsmPTXISA judges one wait instruction's text with legalfuzz's own
// encoder (waitcntasm.Value.Expect): the instruction must exist on the target,
// every threshold the text names must fit its field, an integer operand
// must be 16 bits; the accept value is the 32-bit word the text encodes to.
var waitcntAsmPTXISA = &Ladder[waitcntasm.Value]{Set: PTXISA, Domain: waitcntasm.Name,
	Value: func(v waitcntasm.Value) string { w, _, _ := v.Expect(); return fmt.Sprintf("0x%08x", w) },
	Checks: []Check[waitcntasm.Value]{
		{Rule: ptxRule(waitcntasm.Name, waitcntasm.NotOnTarget, "the instruction does not exist on this processor", srcAsmOps),
			Fires: asmExpectFires(waitcntasm.NotOnTarget), Detail: asmExpectDetail},
		{Rule: ptxRule(waitcntasm.Name, waitcntasm.FieldWidth, "the threshold does not fit its counter's field", srcAsmFields),
			Fires: asmExpectFires(waitcntasm.FieldWidth), Detail: asmExpectDetail},
		{Rule: ptxRule(waitcntasm.Name, waitcntasm.OperandRange, "the integer operand is outside 0..0xFFFF", srcAsmRange),
			Fires: asmExpectFires(waitcntasm.OperandRange), Detail: asmExpectDetail},
	},
}
