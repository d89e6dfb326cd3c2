package rules

import (
	"fmt"

	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
)

// The waitcnt domain's "ptxisa" set keeps the set's name for uniformity; its
// sources are AMD's, not the PTX ISA.
const (
	srcCDNA3Export = "AMD CDNA3 ISA (no EXP instructions on CDNA); llvm-mc 19 -mcpu=gfx942/gfx90a: \"instruction not supported on this GPU\""
	srcWaitcntBits = "AMD CDNA3 ISA S_WAITCNT SIMM16 (vmcnt [3:0]+[15:14], expcnt [6:4], lgkmcnt [11:8]); " +
		"LLVM AMDGPU gfx940 waitcnt operand; ptx-facts \"AMD gfx942 s_waitcnt\""
	srcCounterOrder = "AMD CDNA3 ISA data dependency resolution; LLVM SIInsertWaitcnts (counterOutOfOrder, event types); " +
		"ptx-facts \"AMD gfx942 s_waitcnt\": LGKM kinds and SMEM return out of order"
)

func waitcntRule(name, msg, source string) *Rule { return ptxRule(wc.Name, name, msg, source) }

// waitcntPTXISA judges the lowering under test's s_waitcnts with the gfx9
// counter model: the program must exist on its GPU, every threshold must fit
// its field, and every wait must be sound.
var waitcntPTXISA = &Ladder[wc.Value]{Set: PTXISA, Domain: wc.Name,
	Value: loweredValue,
	Checks: []Check[wc.Value]{
		{Rule: waitcntRule("export-gpu", "export instructions do not exist on gfx90a and gfx942 (CDNA2, CDNA3)", srcCDNA3Export),
			Fires:  func(v wc.Value) bool { return !v.GPU.HasExport() && waitcntHasKind(v, wc.Export) },
			Detail: func(v wc.Value) string { return ": " + v.GPU.String() }},
		{Rule: waitcntRule("field-width", "s_waitcnt threshold does not fit its field (vmcnt 0..63, expcnt 0..7, lgkmcnt 0..15)", srcWaitcntBits),
			Fires:  func(v wc.Value) bool { _, ok := waitcntTooWide(v); return ok },
			Detail: func(v wc.Value) string { d, _ := waitcntTooWide(v); return ": " + d }},
		{Rule: waitcntRule("unsound", "s_waitcnt may return before a token it waits for has completed", srcCounterOrder),
			Fires:  func(v wc.Value) bool { _, ok := waitcntUnsound(v); return ok },
			Detail: func(v wc.Value) string { d, _ := waitcntUnsound(v); return ": " + d }},
	},
}

func waitcntHasKind(v wc.Value, k wc.Kind) bool {
	for _, op := range v.Ops() {
		if op == k {
			return true
		}
	}
	return false
}

// waitcntTooWide finds the first lowered s_waitcnt with a threshold outside its field.
func waitcntTooWide(v wc.Value) (string, bool) {
	for k, w := range lower.Lower(v) {
		if !w.InRange() {
			return fmt.Sprintf("wait %d lowers to %v", k, w), true
		}
	}
	return "", false
}

// waitcntUnsound finds the first wait the model shows unsound, with its witness.
func waitcntUnsound(v wc.Value) (string, bool) {
	res, err := model.New(v).Check(lower.Lower(v))
	if err != nil {
		return err.Error(), true // one s_waitcnt per wait is our invariant; Check never fails on it
	}
	for _, w := range res.Waits {
		if !w.Sound() {
			return fmt.Sprintf("the wait at item %d lowers to %v; %s; the largest sound is %v",
				w.Item, w.Emitted, w.Misses[0].Describe(), w.Best), true
		}
	}
	return "", false
}
