package rules

import (
	"strings"
	"testing"

	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
)

func wcProg(gpu wc.GPU, items ...wc.Item) wc.Value { return wc.MustBuild(gpu, items...) }

func wcRepeat(k wc.Kind, n int, more ...wc.Item) []wc.Item {
	items := make([]wc.Item, n)
	for i := range items {
		items[i] = wc.Op(k)
	}
	return append(items, more...)
}

var (
	wcOp   = wc.Op
	wcWait = wc.WaitOn
)

func TestWaitcntSeedRules(t *testing.T) {
	runLadderCases(t, waitcntSeed, []ladderCase[wc.Value]{
		{"one load, waited", wcProg(wc.GFX942, wcOp(wc.VMEMLoad), wcWait(0)), "", "", "s_waitcnt vmcnt(0);0x0f70"},
		{"the younger load waited first", wcProg(wc.GFX942, wcOp(wc.VMEMLoad), wcOp(wc.VMEMLoad), wcWait(1), wcWait(0)),
			"", "", "s_waitcnt vmcnt(0);0x0f70 | s_waitcnt vmcnt(1);0x0f71"},
		{"GDS serialized: the seed accepts", wcProg(wc.GFX942, wcOp(wc.GDS), wcWait(0)), "", "", "s_waitcnt lgkmcnt(0);0xc07f"},
		{"a younger load in flight", wcProg(wc.GFX942, wcOp(wc.VMEMLoad), wcOp(wc.VMEMLoad), wcWait(0)),
			"seed.waitcnt.1-counter-not-handle", "AMD S_WAITCNT is inherently counter-based, not a capability handle to a specific transfer: " +
				"the wait at item 2 names t0 (vmem_load) while t1 (vmem_load) stays in flight on vmcnt", ""},
		{"a younger SMEM in flight", wcProg(wc.GFX942, wcOp(wc.LDS), wcOp(wc.SMEM), wcWait(0)),
			"seed.waitcnt.1-counter-not-handle", "AMD S_WAITCNT is inherently counter-based, not a capability handle to a specific transfer: " +
				"the wait at item 2 names t0 (lds) while t1 (smem) stays in flight on lgkmcnt", ""},
		{"other counters do not count", wcProg(wc.GFX942, wcOp(wc.VMEMLoad), wcOp(wc.LDS), wcWait(0)), "", "", "s_waitcnt vmcnt(0);0x0f70"},
	})
}

func TestWaitcntPTXISARules(t *testing.T) {
	runLadderCases(t, waitcntPTXISA, []ladderCase[wc.Value]{
		{"in-order VMEM: vmcnt(N) is exact", wcProg(wc.GFX942, wcOp(wc.VMEMLoad), wcOp(wc.VMEMStore), wcOp(wc.VMEMLoad), wcWait(0)),
			"", "", "s_waitcnt vmcnt(2);0x0f72"},
		{"one LGKM kind", wcProg(wc.GFX90A, wcOp(wc.LDS), wcOp(wc.LDS), wcWait(0), wcWait(1)),
			"", "", "s_waitcnt lgkmcnt(1);0xc17f | s_waitcnt lgkmcnt(0);0xc07f"},
		{"exports on gfx908", wcProg(wc.GFX908, wcOp(wc.Export), wcOp(wc.Export), wcWait(0)), "", "", "s_waitcnt expcnt(1);0xcf1f"},
		{"lgkmcnt(15) fits", wcProg(wc.GFX942, wcRepeat(wc.LDS, 16, wcWait(0))...), "", "", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15);0xcf7f"},
		{"export on gfx942", wcProg(wc.GFX942, wcOp(wc.Export), wcWait(0)),
			"ptxisa.waitcnt.export-gpu", "export instructions do not exist on gfx90a and gfx942 (CDNA2, CDNA3): gfx942", ""},
		{"lgkmcnt(16) does not fit", wcProg(wc.GFX942, wcRepeat(wc.LDS, 17, wcWait(0))...),
			"ptxisa.waitcnt.field-width", "s_waitcnt threshold does not fit its field (vmcnt 0..63, expcnt 0..7, lgkmcnt 0..15): " +
				"wait 0 lowers to s_waitcnt lgkmcnt(16)", ""},
		{"expcnt(8) does not fit", wcProg(wc.GFX900, wcRepeat(wc.Export, 9, wcWait(0))...),
			"ptxisa.waitcnt.field-width", "s_waitcnt threshold does not fit its field (vmcnt 0..63, expcnt 0..7, lgkmcnt 0..15): " +
				"wait 0 lowers to s_waitcnt expcnt(8)", ""},
		{"mixed LDS+SMEM with lgkmcnt(1)", wcProg(wc.GFX942, wcOp(wc.LDS), wcOp(wc.SMEM), wcWait(0)),
			"ptxisa.waitcnt.unsound", "s_waitcnt may return before a token it waits for has completed: the wait at item 2 lowers to " +
				"s_waitcnt lgkmcnt(1); t0 (lds) may be outstanding with lgkmcnt=1: only t0 outstanding on lgkmcnt, every other " +
				"operation complete; the largest sound is s_waitcnt lgkmcnt(0)", ""},
		{"GDS without expcnt", wcProg(wc.GFX942, wcOp(wc.GDS), wcWait(0)),
			"ptxisa.waitcnt.unsound", "s_waitcnt may return before a token it waits for has completed: the wait at item 1 lowers to " +
				"s_waitcnt lgkmcnt(0); t0 (gds) may be outstanding with expcnt=1: only t0 outstanding on expcnt, every other " +
				"operation complete; the largest sound is s_waitcnt expcnt(0) lgkmcnt(0)", ""},
	})
}

// TestWaitcntSelfCheck runs the exact checks on the seeds and shows they
// catch a wrong closed form: a program whose brute-force answer differs.
func TestWaitcntSelfCheck(t *testing.T) {
	for _, v := range wc.Seeds() {
		if err := SelfCheck(wc.Name, v); err != nil {
			t.Errorf("%v: %v", v, err)
		}
	}
	v := wcProg(wc.GFX942, wcOp(wc.LDS), wcOp(wc.SMEM), wcWait(0))
	if err := model.New(v).CheckClosedForm([]wc.Waitcnt{{63, 7, 1}}, 12, 1<<10); err != nil {
		t.Fatalf("consistent model reported: %v", err)
	}
	if err := (wc.Waitcnt{3, 7, 0}).CheckEncoding(); err != nil {
		t.Fatal(err)
	}
	if err := (wc.Waitcnt{64, 7, 0}).CheckEncoding(); err != nil {
		t.Fatalf("an out-of-range threshold is the field-width rule's, not a self-check failure: %v", err)
	}
}

func TestWaitcntRulesRegistered(t *testing.T) {
	var ids []string
	for _, r := range Rules() {
		if r.Domain == wc.Name {
			ids = append(ids, r.ID)
			if r.Source == "" || r.Message == "" {
				t.Errorf("%s lacks a source or message", r.ID)
			}
		}
	}
	if got := strings.Join(ids, " "); got != "ptxisa.waitcnt.export-gpu ptxisa.waitcnt.field-width ptxisa.waitcnt.unsound seed.waitcnt.1-counter-not-handle" {
		t.Fatalf("rules %s", got)
	}
}
