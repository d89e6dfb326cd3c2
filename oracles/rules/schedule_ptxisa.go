package rules

import (
	"fmt"

	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/model"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
)

func init() {
	register(scheduleSeed, schedulePTXISA)
	registerSelfCheck(sc.Name, model.CheckPermutation)
}

const (
	schedPTXMbarrier = "PTX ISA 9.7.13.15 (mbarrier); ptx-facts: mbarrier"
	schedPTXProxy    = "PTX ISA 8.6 (proxies), 9.7.13.4 (fence.proxy.async, fence.proxy.tensormap::generic); ptx-facts: proxies and fences"
)

func schedRule(name, msg, source, doubt string) *Rule {
	r := ptxRule(sc.Name, name, msg, source)
	r.Doubtful = doubt
	return r
}

// modelCheck is a ptxisa check that fires when the model's verdict on v is
// rule (the first finding in model.VerdictOrder decides).
func schedModelCheck(rule, msg, source, doubt string) Check[sc.Value] {
	return Check[sc.Value]{
		Rule:   schedRule(rule, msg, source, doubt),
		Fires:  func(v sc.Value) bool { return model.Cached(v).Find(rule) != nil },
		Detail: func(v sc.Value) string { return model.Cached(v).Diagnostic(rule) },
	}
}

// schedulePTXISA judges a schedule with the model: the first finding in
// model.VerdictOrder decides; an exploration cut by the bound with nothing
// found is "bound-exceeded", never accepted. On accept the value is the
// number of states explored.
var schedulePTXISA = &Ladder[sc.Value]{Set: PTXISA, Domain: sc.Name,
	Value: func(v sc.Value) string { return fmt.Sprintf("ok: %d states", model.Cached(v).States) },
	Checks: []Check[sc.Value]{
		targetPTXCheck[sc.Value](sc.Name),
		{Rule: schedRule("target", "an op of the schedule is not available on the target", "PTX ISA target notes of each instruction", ""),
			Fires:  func(v sc.Value) bool { return schedUnavailableOp(v) != "" },
			Detail: func(v sc.Value) string { return ": " + schedUnavailableOp(v) }},
		schedModelCheck(model.OperandSpace, "operand in the wrong memory (shared vs tensor memory)",
			"PTX ISA 9.7.9.27 (bulk tensor copies to shared memory), 9.7.16 (tcgen05 accumulators in tensor memory)", ""),
		schedModelCheck(model.UBUninit, "mbarrier used while not initialized", schedPTXMbarrier+" (undefined behaviour: uninitialized use)", ""),
		schedModelCheck(model.UBReinit, "mbarrier initialized again without mbarrier.inval", schedPTXMbarrier+" (undefined behaviour: re-init without inval)", ""),
		schedModelCheck(model.UBInitCount, "mbarrier expected arrival count outside 1..2^20-1", schedPTXMbarrier+" (expected arrivals 1..2^20-1)", ""),
		schedModelCheck(model.UBNoComplete, "mbarrier.arrive.noComplete completed the phase", schedPTXMbarrier+" (undefined behaviour: .noComplete that completes the phase)", ""),
		schedModelCheck(model.UBTxRange, "mbarrier tx-count outside -(2^20-1)..2^20-1", schedPTXMbarrier+" (tx-count range; negative is legal)", ""),
		schedModelCheck(model.UBPending, "arrival count exceeds the phase's pending arrivals", schedPTXMbarrier,
			"the PTX ISA does not say what an arrival beyond the pending count does; the model calls it undefined"),
		schedModelCheck(model.UBUnobserved, "arrival in a phase whose predecessor no try_wait observed complete",
			schedPTXMbarrier+" (at least one successful test_wait/try_wait per phase before arriving in the next)",
			"read as: no arrive-on in phase k+1 before a successful wait observed phase k; the PTX text can also be read per thread"),
		schedModelCheck(model.UBWgmmaFence, "wgmma.mma_async without a preceding wgmma.fence", "PTX ISA 9.7.15.6 (wgmma.fence before the first wgmma.mma_async)", ""),
		schedModelCheck(model.Race, "data race: conflicting accesses not ordered by an mbarrier, bar.sync or an observed async completion",
			"PTX ISA 8 (memory consistency model); 9.7.9 (cp.async.bulk async-groups: no ordering within a group); ptx-facts: proxies", ""),
		schedModelCheck(model.ProxyHazard, "cross-proxy access without the proxy fence", schedPTXProxy, ""),
		schedModelCheck(model.Deadlock, "deadlock: a role waits for a phase, bar.sync or arrival that never comes",
			schedPTXMbarrier+" (a phase completes when pending arrivals == 0 and tx-count == 0)", ""),
		{Rule: schedRule(model.BoundExceeded, "model bound exceeded: no verdict within max_states", "legalfuzz schedule model (explicit-state, bounded by max_states)", ""),
			Fires:  func(v sc.Value) bool { return !model.Cached(v).Complete },
			Detail: func(v sc.Value) string { return fmt.Sprintf(" (%d states)", v.StateBound()) }},
	},
}

// opGate is the first target and PTX ISA version of an op.
type schedOpGate struct {
	sm  int
	ptx target.PTX
	// arch: "" any target from sm, "90a" sm_90a only, "tcgen05" the tcgen05
	// targets, "a" arch-specific targets from sm.
	arch string
}

var schedOpGates = map[sc.Code]schedOpGate{
	sc.Ldmatrix: {75, 65, ""}, sc.Stmatrix: {90, 78, ""},
	sc.CpAsync: {80, 70, ""}, sc.CpAsyncCommit: {80, 70, ""}, sc.CpAsyncWait: {80, 70, ""},
	sc.TMALoad: {90, 80, ""}, sc.TMAStore: {90, 80, ""}, sc.BulkCommit: {90, 80, ""}, sc.BulkWait: {90, 80, ""},
	sc.WgmmaFence: {90, 80, "90a"}, sc.Wgmma: {90, 80, "90a"}, sc.WgmmaCommit: {90, 80, "90a"}, sc.WgmmaWait: {90, 80, "90a"},
	sc.Tcgen05MMA: {100, 86, "tcgen05"}, sc.Tcgen05Commit: {100, 86, "tcgen05"}, sc.Tcgen05Ld: {100, 86, "tcgen05"},
	sc.MbarInit: {80, 70, ""}, sc.MbarArrive: {80, 70, ""}, sc.MbarInval: {80, 70, ""},
	sc.MbarArriveExpectTx: {90, 80, ""}, sc.MbarExpectTx: {90, 80, ""}, sc.MbarTryWait: {90, 78, ""},
	sc.FenceProxyAsync: {90, 80, ""}, sc.FenceTensormapRelease: {90, 83, ""}, sc.FenceTensormapAcquire: {90, 83, ""},
	sc.TensormapReplace: {90, 83, "a"},
}

// schedGate is the availability of what op o stands for. An opaque call
// whose effect is an async-proxy read does a cp.async.bulk with its commit
// and wait (as oracles/ptx renders the callee's body): a call site needs
// what those need. An arrive with a count other than 1 and without
// .noComplete spells the count operand, which that form gained with
// sm_90 and PTX ISA 7.8.
func schedGate(o sc.Op) (schedOpGate, bool) {
	switch {
	case o.Code == sc.Call && o.Effect() == sc.EffectAsync:
		return schedOpGates[sc.BulkWait], true
	case o.Code == sc.MbarArrive && o.N != 1 && !o.NoComplete():
		return schedOpGate{90, 78, ""}, true
	}
	g, ok := schedOpGates[o.Code]
	return g, ok
}

// unavailableOp names the first op the target cannot hold, or "".
func schedUnavailableOp(v sc.Value) string {
	t := v.Tgt
	for r, role := range v.RoleList() {
		for pc, o := range role.Program() {
			g, ok := schedGate(o)
			if !ok {
				continue
			}
			bad := t.Arch.SM < g.sm || t.PTX < g.ptx
			switch g.arch {
			case "90a":
				bad = t.Arch.String() != "sm_90a" || t.PTX < g.ptx
			case "tcgen05":
				bad = !tcgen05Target(t)
			case "a":
				bad = bad || !t.Arch.ArchSpecific()
			}
			if bad {
				return fmt.Sprintf("role %d op %d %s needs sm_%d%s and PTX ISA %s, target %s", r, pc, o.Code, g.sm, schedGateSuffix(g), g.ptx, t)
			}
		}
	}
	return ""
}

func schedGateSuffix(g schedOpGate) string {
	switch g.arch {
	case "90a", "a", "tcgen05":
		return "a"
	}
	return ""
}
