// Package policy says which oracles must agree on each domain, and on what:
// the agreement policies, the expectations of what an oracle cannot see,
// the disagreements they yield and their signatures. It is pure: no tool
// runs and nothing is stored here, so a policy is tested on verdicts alone.
package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	sc "github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule/fenceproxy"
	wasm "github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Aspect is what two oracles must agree on.
type Aspect string

const (
	// OnVerdict: accept vs reject.
	OnVerdict Aspect = "verdict"
	// OnValue: both accept and compute the same value (e.g. a descriptor).
	OnValue Aspect = "value"
	// OnAnswer: both answer (accept or reject) alike. A side that fails
	// is judged against spec/ptxisa alone, where its failure already is a
	// finding: two entry points of one tool that fail alike are one bug,
	// not a disagreement between them.
	OnAnswer Aspect = "answer"
	// OnCrash: neither crashes nor hangs. What the second oracle accepts or
	// refuses says nothing about the case (a pass judge runs passes the
	// case never asked for); only its failures are findings.
	OnCrash Aspect = "crash"
)

// Pair is two oracles that must agree on a domain.
type Pair struct {
	A  string `json:"a"`
	B  string `json:"b"`
	On Aspect `json:"on"`
}

// Expectation marks a disagreement as expected: not a finding, but counted.
// An oracle is named by its name or, for LLVM installations, its base
// ("llc" for every llc@LABEL; oracles.Matches).
type Expectation struct {
	// Oracles are the tools that may disagree with Against.
	Oracles []string `json:"oracles"`
	// Since and Before bound the major release of the tools the
	// expectation holds for (Since included, Before not); zero bounds
	// nothing. A behaviour that came or went with a release is data here,
	// not an oracle's name.
	Since  int `json:"since,omitempty"`
	Before int `json:"before,omitempty"`
	// Against is the other side; empty means spec/ptxisa.
	Against string `json:"against,omitempty"`
	// Rules are the spec/ptxisa rules (IDs) that decided the case; none means
	// any. They select cases even when neither side is spec/ptxisa.
	Rules []string `json:"rules,omitempty"`
	Why   string   `json:"why"`
	// Condition says in words when the expectation holds, and When decides
	// it on the case's value; a nil When holds always. A case whose value is
	// not known (only its verdicts are) never meets a condition: what the
	// condition excludes is a finding, so in doubt it is one.
	Condition string                  `json:"condition,omitempty"`
	When      func(domain.Value) bool `json:"-"`
}

// Side is the side the expectation's oracles may disagree with.
func (e Expectation) Side() string {
	if e.Against == "" {
		return oracles.SpecPTXISA
	}
	return e.Against
}

// covers reports whether e explains a disagreement between a and b on a case
// spec/ptxisa decided with specRule, whose value is v (nil if unknown).
func (e Expectation) covers(a, b oracles.Verdict, specRule string, v domain.Value) bool {
	if failed(a) || failed(b) {
		return false // a crash is never expected
	}
	pairOK := (e.names(b) && oracles.Matches(e.Side(), a.Oracle)) || (e.names(a) && oracles.Matches(e.Side(), b.Oracle))
	return pairOK && (len(e.Rules) == 0 || slices.Contains(e.Rules, specRule)) && e.holds(v)
}

// names reports whether the verdict is one of the expectation's tools, of
// a release it holds for.
func (e Expectation) names(v oracles.Verdict) bool {
	if !matchesAny(e.Oracles, v.Oracle) {
		return false
	}
	major := oracles.Major(v.Version)
	return (e.Since == 0 || major >= e.Since) && (e.Before == 0 || major < e.Before)
}

// matchesAny reports whether any of the policy's names names the oracle.
func matchesAny(names []string, oracle string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return oracles.Matches(n, oracle) })
}

// holds reports whether the expectation's condition holds for v.
func (e Expectation) holds(v domain.Value) bool {
	if e.When == nil {
		return true
	}
	return v != nil && e.When(v)
}

// Policy is a domain's agreement policy.
type Policy struct {
	Domain string `json:"domain"`
	// Judges are the tools whose verdicts must match spec/ptxisa's.
	Judges []string `json:"judges,omitempty"`
	// Pairs are further oracle pairs that must agree with each other.
	Pairs    []Pair        `json:"pairs,omitempty"`
	Expected []Expectation `json:"expected,omitempty"`
	// UnderTest names the seed algorithm whose output the domain's tools
	// judge; empty when the tools judge the case itself. Its findings are
	// seed evidence (ClassOf), not tool bugs.
	UnderTest string `json:"under_test,omitempty"`
}

// seedNote says why spec/seed never makes a finding on its own.
const seedNote = "spec/seed disagreeing with spec/ptxisa or a tool is evidence about a seed claim, reported in the claims matrix, not a finding"

// policies is the one place that says which oracles must agree on what.
var policies = []Policy{
	{Domain: "kindword", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.LLC, oracles.MLIR, oracles.CUDAJIT},
		Pairs: []Pair{sassPair, {oracles.PTXAS13, oracles.LLC, OnVerdict}}},
	{Domain: "tmadesc", Judges: []string{oracles.MLIR, oracles.CUDADriver, oracles.GPU},
		Expected: []Expectation{{Oracles: mlirs, Rules: tmaRuntimeRules,
			Why: "nvgpu.tma.create.descriptor passes the global address, dimensions and strides, and the kernel the tensor map's and the shared box's addresses, as run-time values: MLIR's !nvgpu.tensormap.descriptor type holds only the box shape, element type and enums"},
			{Oracles: []string{oracles.CUDADriver}, Rules: []string{"ptxisa.tmadesc.smem-align", "ptxisa.tmadesc.target-ptx-version"},
				Why: "the encoder is given neither the shared-memory destination nor the PTX the kernel is written in"},
			{Oracles: []string{oracles.CUDADriver}, Rules: []string{"ptxisa.tmadesc.tensormap-align"},
				Why: "the encoders do not check the documented 64-byte alignment of the host memory they write the map into (seen on driver 580, docs/gpu-runs.md); harmless, the map is copied before use"},
			{Oracles: []string{oracles.GPU}, Rules: []string{"ptxisa.tmadesc.target-ptx-version", "ptxisa.tmadesc.tensormap-align"},
				Why: "the gpu oracle's kernel has its own target and PTX version and copies each map to an aligned place of its own"}}},
	{Domain: "tmamode", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.LLC, oracles.CUDAJIT},
		Pairs: []Pair{sassPair, {oracles.MLIR, oracles.PTXAS, OnVerdict}},
		Expected: []Expectation{{Oracles: []string{oracles.LLC},
			Rules: []string{"ptxisa.tmamode.w-halo", "ptxisa.tmamode.w-offset"},
			Why:   "wHalo and wOffset are i16 register operands of the intrinsic; llc cannot bound them"},
			{Oracles: []string{oracles.PTXAS13, oracles.CUDAJIT},
				Rules: []string{"ptxisa.tmamode.w-halo", "ptxisa.tmamode.w-offset", "ptxisa.tmamode.gather-scatter-box", "ptxisa.tmamode.gather-scatter-interleave"},
				Why:   "the PTX rendering passes wHalo and wOffset in .b16 registers, and the box and interleave are the tensor map's: nothing in the instruction text for ptxas to bound"},
			{Oracles: []string{oracles.MLIR}, Since: 22,
				Rules: []string{"ptxisa.tmamode.w-halo", "ptxisa.tmamode.w-offset", "ptxisa.tmamode.gather-scatter-box", "ptxisa.tmamode.gather-scatter-interleave"},
				Why: "MLIR's TMA ops (22 and later) take wHalo and wOffset as i16 SSA operands (the im2col list), which neither the verifier nor llc bounds, " +
					"and name no tensor map but a pointer to one: its box and interleave are the driver's"}}},
	{Domain: "matdesc", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.CUDAJIT, oracles.GPU},
		Pairs: []Pair{sassPair, {oracles.SpecPTXISA, oracles.MLIR, OnValue}},
		Expected: []Expectation{{Oracles: []string{oracles.PTXAS, oracles.PTXAS13, oracles.CUDAJIT},
			Rules: []string{"ptxisa.matdesc.alignment", "ptxisa.matdesc.base-offset-no-swizzle", "ptxisa.matdesc.field-range", "ptxisa.matdesc.reserved", "ptxisa.matdesc.uniform"},
			Why:   "the descriptor reaches ptxas as an opaque 64-bit operand; its fields' meaning is checked, if at all, by the hardware"},
			{Oracles: []string{oracles.PTXAS13, oracles.CUDAJIT},
				Rules: []string{"ptxisa.matdesc.fixed-46-48", "ptxisa.matdesc.fixed-53-60", "ptxisa.matdesc.lbo-mode-target", "ptxisa.matdesc.swizzle-invalid"},
				Why:   "a tcgen05 descriptor reaches ptxas as an opaque 64-bit operand too"},
			{Oracles: []string{oracles.GPU},
				Rules: []string{"ptxisa.matdesc.alignment", "ptxisa.matdesc.field-range", "ptxisa.matdesc.target-ptx-version", "ptxisa.matdesc.wgmma-target"},
				Why:   "the descriptor's encoding ((x & 0x3FFFF) >> 4) drops the bits these rules test, and the gpu oracle's kernel has its own target and PTX version"}}},
	{Domain: "umma"},
	{Domain: "swizzle"},
	{Domain: "ldsm", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.MLIRNVVM, oracles.LLC, oracles.CUDAJIT, oracles.GPU},
		Pairs: []Pair{sassPair, {oracles.LLC, oracles.LLC, OnVerdict}, {oracles.MLIR, oracles.PTXAS, OnVerdict}, entryPoints},
		Expected: append(llcRaisesVersion("ldsm"), Expectation{Oracles: []string{oracles.GPU}, Rules: []string{"ptxisa.ldsm.target-ptx-version"},
			Why: "the gpu oracle's kernel has its own target and PTX version"}, Expectation{Oracles: toolsPTX,
			Rules: []string{"ptxisa.ldsm.alignment", "ptxisa.ldsm.fragment-cosize", "ptxisa.ldsm.register-count", "ptxisa.ldsm.result-shape"},
			Why:   "the shared address is a runtime value and the register fragment's layout a compiler-IR property; neither is in the instruction text"},
			Expectation{Oracles: mlirs, Rules: []string{"ptxisa.ldsm.alignment", "ptxisa.ldsm.register-count", "ptxisa.ldsm.type-spelling"},
				Why: "nvgpu.ldmatrix spells neither the shared address (a runtime value), the register count (derived from numTiles) nor an element type (always .b16)"},
			Expectation{Oracles: []string{oracles.MLIRNVVM}, Rules: []string{"ptxisa.ldsm.alignment", "ptxisa.ldsm.register-count", "ptxisa.ldsm.type-spelling"},
				Why: "nvvm.ldmatrix and nvvm.stmatrix take the shared address as a pointer value (a runtime value), derive the register count from num, and have only PTX's .b element types, as which the seed's unsigned spellings are written"},
			Expectation{Oracles: bothMLIRs, Against: oracles.PTXAS, Rules: []string{"ptxisa.ldsm.register-count", "ptxisa.ldsm.type-spelling", "ptxisa.ldsm.result-shape"},
				Why: "the PTX rendering spells the register count and element type the case names where MLIR derives them (and spells the seed's unsigned sizes as .b); MLIR checks the result type, which ptxas never sees"})},
	{Domain: "blockscale", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.LLC, oracles.MLIR, oracles.CUDAJIT},
		Pairs: []Pair{sassPair},
		Expected: []Expectation{{Oracles: []string{oracles.PTXAS13, oracles.CUDAJIT}, Rules: []string{"ptxisa.blockscale.scale-fragment-bits"},
			Why: "the scale fragment's width is the seed's bookkeeping, with no PTX spelling"}}},
	{Domain: "wgmma", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.MLIRNVVM, oracles.CUDAJIT},
		Pairs: []Pair{sassPair, entryPoints},
		Expected: []Expectation{{Oracles: mlirs, Rules: []string{"ptxisa.wgmma.m", "ptxisa.wgmma.k"},
			Condition: "M is a multiple of 64 and K of the instruction's K", When: wgmmaTileSplits,
			Why: "nvgpu.warpgroup.mma is a tile-level op that MLIR splits into m64nNkK instructions, so other M and K are its to accept when they split evenly; a K or M that does not is work the lowering drops"},
			{Oracles: []string{oracles.MLIRNVVM}, Against: oracles.MLIR, Rules: []string{"ptxisa.wgmma.m", "ptxisa.wgmma.k"},
				Condition: "M is a multiple of 64 and K of the instruction's K", When: wgmmaTileSplits,
				Why: "nvvm.wgmma.mma_async is one instruction, nvgpu.warpgroup.mma a tile of them: a tile that splits evenly is nvgpu's to accept and nvvm's to refuse"}}},
	{Domain: "mma", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.MLIRNVVM, oracles.LLC, oracles.CUDAJIT},
		Pairs:    []Pair{sassPair, {oracles.LLC, oracles.LLC, OnVerdict}, {oracles.MLIR, oracles.PTXAS, OnVerdict}, entryPoints},
		Expected: llcRaisesVersion("mma")},
	{Domain: "schedule", Judges: []string{oracles.FenceProxy, oracles.PTXAS, oracles.PTXAS13, oracles.CUDAJIT},
		Pairs: []Pair{sassPair},
		Expected: []Expectation{{Oracles: []string{oracles.FenceProxy}, Rules: []string{"ptxisa.schedule.proxy-hazard"},
			Why: "InjectFenceProxy inserts the fences the schedule lacked: that is its job"},
			{Oracles: []string{oracles.FenceProxy}, Rules: []string{"ptxisa.schedule.target", "ptxisa.schedule.target-ptx-version"},
				Why: "the pass takes its input's target as given: an input holding an op the target lacks is no evidence about the pass, even when the pass drops that op as redundant and its output is legal"},
			{Oracles: []string{oracles.FenceProxy}, Rules: []string{"ptxisa.schedule.bound-exceeded"},
				Why: "spec/ptxisa's model ran out of states on the input, so it has no verdict for the pass's output to contradict"},
			{Oracles: []string{oracles.FenceProxy}, Rules: []string{"ptxisa.schedule.race"},
				Condition: "the pass gave a TMA store the commit/wait handshake it lacked", When: handshakeAdded,
				Why: "InjectFenceProxy also completes every TMA store with its commit and wait_group.read (seed 002): a buffer written again while its store is in flight is the race that handshake cures"},
			{Oracles: toolsPTX, Rules: scheduleSemantics,
				Why: "deadlocks, races, proxy hazards and mbarrier misuse are properties of the interleavings, not of the instruction text ptxas sees"}}},
	// waitcnt: spec/ptxisa judges the lowering under test; when it finds the
	// lowered thresholds unsound while llvm-mc happily assembles them, that
	// disagreement is the finding (an unsound lowering that encodes fine).
	{Domain: "waitcnt", Pairs: []Pair{{oracles.SpecPTXISA, oracles.AMDGPUMC, OnValue}},
		UnderTest: "the seed's waitcnt lowering (fuzz/waitcnt/lower); llvm-mc only encodes the thresholds it chose"},
	// waitcntasm: llvm-mc must accept what legalfuzz's encoder accepts and
	// encode it to the same word, and its round trip (disassemble, assemble
	// again) must come back to that word; a round trip that does not makes
	// the tool's value differ (see oracles/amdgpu/judgeasm.go).
	{Domain: "waitcntasm", Pairs: []Pair{{oracles.SpecPTXISA, oracles.AMDGPUMC, OnValue}},
		Expected: []Expectation{{Oracles: mcs, Rules: []string{"ptxisa.waitcntasm.field-width"},
			Condition: "the instruction has one counter (s_waitcnt_vscnt, s_wait_*)", When: waitcntOneCounter,
			Why: "llvm-mc takes the operand of the one-counter waits as a plain 16-bit immediate, on purpose: LLVM's own MC tests " +
				"encode s_wait_loadcnt 0x1234 as [0x34,0x12,0xc0,0xbf] (test/MC/AMDGPU/gfx12_asm_sopp.s); the counter helpers " +
				"of s_waitcnt, which do check their fields, stay a finding"}}},
	{Domain: "cpasync", Judges: []string{oracles.PTXAS, oracles.PTXAS13, oracles.MLIR, oracles.MLIRNVVM, oracles.LLC, oracles.CUDAJIT},
		Pairs: []Pair{sassPair, {oracles.LLC, oracles.LLC, OnVerdict}, {oracles.MLIR, oracles.PTXAS, OnVerdict}, entryPoints},
		Expected: append(llcRaisesVersion("cpasync"),
			Expectation{Oracles: toolsPTX, Rules: []string{"ptxisa.cpasync.dst-align", "ptxisa.cpasync.src-align", "ptxisa.cpasync.unit-stride"},
				Why: "addresses and memref strides are runtime values, not part of the instruction text"},
			Expectation{Oracles: bothMLIRs, Rules: []string{"ptxisa.cpasync.dst-align", "ptxisa.cpasync.src-align", "ptxisa.cpasync.src-size"},
				Why: "addresses and srcElements (nvvm's cpSize) are runtime values in MLIR too"},
			Expectation{Oracles: bothMLIRs, Against: oracles.PTXAS, Rules: []string{"ptxisa.cpasync.unit-stride", "ptxisa.cpasync.src-size"},
				Why: "MLIR's verifier sees memref strides that PTX never spells, and passes srcElements at run time where the PTX rendering spells an immediate"},
			Expectation{Oracles: []string{oracles.LLC}, Rules: []string{"ptxisa.cpasync.src-size"},
				Why: "src-size is a register operand of the intrinsic; llc cannot bound it"})},
	// nvvmop: the PTX ISA says nothing of a single NVVM op beyond its
	// target (what each op requires is its installation's to say), so its
	// judges are watched for their own failures: a crash or a hang is a
	// finding, and so is what mlir-opt's verifier accepts for the case's
	// target and the same installation's mlir-translate or llc then
	// refuses (llc's "Cannot select: intrinsic ...": the verifier lets
	// through what its backend cannot compile; the judge's Error verdict,
	// rule translate/pass-refused or llc/pass-refused, too permissive). A
	// verifier's refusal is its answer, compared with nothing.
	{Domain: "nvvmop", Pairs: []Pair{{oracles.SpecPTXISA, oracles.NVVMOp, OnCrash}}},
}

// The pass judges watch every domain their installation's mlir oracle
// judges, on OnCrash; every domain llc judges expects its sm_110 renaming.
func init() {
	for i, p := range policies {
		if slices.Contains(p.Judges, oracles.MLIR) {
			policies[i].Pairs = append(policies[i].Pairs, Pair{oracles.SpecPTXISA, oracles.MLIRPasses, OnCrash})
		}
		if slices.Contains(p.Judges, oracles.LLC) {
			policies[i].Expected = append(policies[i].Expected, llcRenamesSM110(p.Domain)...)
		}
	}
}

// llcRenamesSM110 expects llc from LLVM 24 to accept an sm_110 target
// below PTX ISA 9.0, which the PTX ISA does not have: it writes .target
// sm_101, the name PTX 8.6 to 8.8 gave the same GPU (llvm#218968, August
// 2026, on purpose; llc 22 and 23 refuse). Seen as a trunk bucket,
// 41e0042f8bd6f1fd (cpasync on sm_110a at PTX 8.8).
func llcRenamesSM110(domainName string) []Expectation {
	e := Expectation{Oracles: []string{oracles.LLC}, Since: 24, Rules: []string{"ptxisa." + domainName + ".target-ptx-version"},
		Condition: "the target is an sm_110 and the PTX ISA version below 9.0", When: sm110BelowPTX90,
		Why: "llc after 23 writes .target sm_101* for sm_110* below PTX ISA 9.0, the name those versions have for the same GPU (llvm#218968)"}
	vsOlder := e
	vsOlder.Against = oracles.LLC
	return []Expectation{e, vsOlder}
}

// sm110BelowPTX90 reports whether a case targets an sm_110 below PTX 9.0.
func sm110BelowPTX90(v domain.Value) bool {
	t := v.Target()
	return t.Arch.SM == 110 && t.PTX < 90
}

// sassPair compares the sass oracle with ptxas: sass mirrors ptxas's accept
// or reject (it asks ptxas the same question) and adds only what the round
// trip through nvdisasm and cuobjdump found, as Error or Timeout verdicts.
// Against spec/ptxisa it would report every ptxas disagreement twice.
var sassPair = Pair{oracles.PTXAS, oracles.SASS, OnVerdict}

// llcRaisesVersion expects llc before LLVM 20 to accept a PTX version too
// old for the target, against spec/ptxisa and against a newer llc: it
// raises .version instead of refusing ("llc-19 -mcpu=sm_86 -mattr=+ptx60"
// writes ".version 7.1"), which LLVM 20 turned into an error ("LLVM ERROR:
// PTX version 6.0 does not support target 'sm_86'"). Intended before,
// changed on purpose.
func llcRaisesVersion(domainName string) []Expectation {
	e := Expectation{Oracles: []string{oracles.LLC}, Before: 20, Rules: []string{"ptxisa." + domainName + ".target-ptx-version"},
		Why: "llc before LLVM 20 raises a .version too old for the target instead of refusing it; later llc refuses"}
	vsNewer := e
	vsNewer.Against = oracles.LLC
	return []Expectation{e, vsNewer}
}

// tmaRuntimeRules are the tensor-map rules about values MLIR receives at
// run time: the global tensor's address, dimensions and strides (operands
// of nvgpu.tma.create.descriptor, a call into the runtime), the tensor
// map's address and the shared destination's address (kernel operands).
var tmaRuntimeRules = []string{"ptxisa.tmadesc.global-align", "ptxisa.tmadesc.global-align-32", "ptxisa.tmadesc.global-dim",
	"ptxisa.tmadesc.global-dim-packed", "ptxisa.tmadesc.strides", "ptxisa.tmadesc.strides-32", "ptxisa.tmadesc.swizzle-global-align",
	"ptxisa.tmadesc.tensormap-align", "ptxisa.tmadesc.smem-align"}

// wgmmaTileSplits reports whether a wgmma value's M and K split evenly into
// wgmma.mma_async instructions (M 64, K one 32-byte row of A).
func wgmmaTileSplits(dv domain.Value) bool {
	v, ok := dv.(wg.Value)
	k := wg.NaturalK(v.AType, v.Sparse)
	return ok && v.M > 0 && v.M%64 == 0 && k > 0 && v.K > 0 && v.K%k == 0
}

// scheduleSemantics are the schedule model's rules about what runs, not
// about how it is spelled.
var scheduleSemantics = []string{"ptxisa.schedule.deadlock", "ptxisa.schedule.race", "ptxisa.schedule.proxy-hazard",
	"ptxisa.schedule.operand-space", "ptxisa.schedule.bound-exceeded", "ptxisa.schedule.ub.init-count",
	"ptxisa.schedule.ub.nocomplete", "ptxisa.schedule.ub.pending-underflow", "ptxisa.schedule.ub.phase-unobserved",
	"ptxisa.schedule.ub.reinit", "ptxisa.schedule.ub.tx-range", "ptxisa.schedule.ub.uninit", "ptxisa.schedule.ub.wgmma-fence"}

// waitcntOneCounter reports whether a waitcntasm value's instruction has
// one counter, whose operand llvm-mc does not bound by the field.
func waitcntOneCounter(dv domain.Value) bool {
	v, ok := dv.(wasm.Value)
	if !ok {
		return false
	}
	l, _ := v.Layout()
	return len(l.Fields) == 1
}

// handshakeAdded reports whether InjectFenceProxy, run as the fenceproxy
// oracle runs it, completes a TMA store of the schedule with its handshake.
func handshakeAdded(dv domain.Value) bool {
	v, ok := dv.(sc.Value)
	if !ok {
		return false
	}
	res, err := fenceproxy.Reinsert(v)
	return err == nil && res.Handshakes > 0
}

// mcs are the llvm-mc releases.
var mcs = []string{oracles.AMDGPUMC}

// mlirs are the MLIR releases, which see the same renderings (MLIR 22 its
// own spelling of the same ops for tmamode and stmatrix).
var mlirs = []string{oracles.MLIR}

// bothMLIRs are MLIR's two entry points, nvgpu's ops and nvvm's.
var bothMLIRs = []string{oracles.MLIR, oracles.MLIRNVVM}

// entryPoints compares MLIR's nvgpu and nvvm spellings of one case within
// each installation (pairsOf): a case one entry point accepts and the
// other rejects is a finding of that MLIR, whatever spec/ptxisa says.
var entryPoints = Pair{oracles.MLIR, oracles.MLIRNVVM, OnAnswer}

// toolsPTX are the tools that judge PTX text or NVVM IR, not runtime values.
var toolsPTX = []string{oracles.PTXAS, oracles.PTXAS13, oracles.LLC, oracles.CUDAJIT}

// On is the policy reduced to one pair, its expectations kept: they say
// which rule a failing tool is accountable for (Policy.accountable), so a
// replay or a minimization step that judges the pair alone keys the
// disagreement as the campaign did.
func (p Policy) On(pr Pair) Policy {
	p.Judges, p.Pairs = nil, []Pair{pr}
	return p
}

// Builtin returns the built-in policies, one per domain that has one.
func Builtin() []Policy { return slices.Clone(policies) }

// PolicyFor returns the domain's built-in policy; a domain without one has
// no judges.
func PolicyFor(domainName string) Policy {
	for _, p := range policies {
		if p.Domain == domainName {
			return p
		}
	}
	return Policy{Domain: domainName}
}

// Set is every domain's agreement policy: the built-in table plus what a
// user's policy file adds. The zero Set is the built-in table.
type Set struct{ byDomain map[string]Policy }

// For returns the domain's policy in the set.
func (s Set) For(domainName string) Policy {
	if p, ok := s.byDomain[domainName]; ok {
		return p
	}
	return PolicyFor(domainName)
}

// Describe spells the policy in one line per requirement, for `legalfuzz domains`.
func (p Policy) Describe() []string {
	var lines []string
	for _, j := range p.Judges {
		lines = append(lines, fmt.Sprintf("%s = %s on %s", oracles.SpecPTXISA, j, OnVerdict))
	}
	for _, pr := range p.Pairs {
		lines = append(lines, fmt.Sprintf("%s = %s on %s", pr.A, pr.B, pr.On))
	}
	if p.UnderTest != "" {
		lines = append(lines, "under test: "+p.UnderTest+" (its findings are seed evidence)")
	}
	for _, e := range p.Expected {
		rules := strings.Join(e.Rules, ", ")
		if rules == "" {
			rules = "any rule"
		}
		if e.Condition != "" {
			rules += " when " + e.Condition
		}
		lines = append(lines, fmt.Sprintf("expected: %s vs %s on %s: %s", strings.Join(e.Oracles, "/"), e.Side(), rules, e.Why))
	}
	return append(lines, seedNote)
}

// Checked lists every pair the policy checks: spec/ptxisa against each
// judge, then the further pairs.
func (p Policy) Checked() []Pair {
	out := make([]Pair, 0, len(p.Judges)+len(p.Pairs))
	for _, j := range p.Judges {
		out = append(out, Pair{oracles.SpecPTXISA, j, OnVerdict})
	}
	return append(out, p.Pairs...)
}

// Disagreement is one policy violation on one case.
type Disagreement struct {
	Case   string          `json:"case"`
	Domain string          `json:"domain"`
	Pair   Pair            `json:"pair"`
	A      oracles.Verdict `json:"a"`
	B      oracles.Verdict `json:"b"`
	// SpecKind and SpecRule are spec/ptxisa's verdict on the case, whichever
	// pair disagreed: they say which side of a pair of tools deviates, and
	// the rule a finding is about.
	SpecKind oracles.Kind `json:"spec_kind,omitempty"`
	SpecRule string       `json:"spec_rule,omitempty"`
	// Expected, when set, says why this disagreement is not a finding.
	Expected string `json:"expected,omitempty"`
}

// Finding reports whether the disagreement is a finding (not expected).
func (d Disagreement) Finding() bool { return d.Expected == "" }

// Evaluate applies the domain's policy to one case's verdicts. An oracle that
// failed (error or timeout) is a disagreement with the reference on its own;
// unsupported verdicts and oracles that did not judge are skipped. The
// case's Value decides the expectations' conditions; a case without one
// (only its ID is known) meets none.
func (p Policy) Evaluate(c domain.Case, verdicts []oracles.Verdict) []Disagreement {
	var ref oracles.Verdict
	for _, v := range verdicts {
		if v.Oracle == oracles.SpecPTXISA {
			ref = v
		}
	}
	var out []Disagreement
	for _, pr := range p.Checked() {
		for _, vs := range pairsOf(pr, verdicts) {
			a, b := vs[0], vs[1]
			if !comparable(a) || !comparable(b) || agree(a, b, pr.On) {
				continue
			}
			d := Disagreement{Case: c.ID, Domain: p.Domain, Pair: Pair{a.Oracle, b.Oracle, pr.On}, A: a, B: b, SpecKind: ref.Kind, SpecRule: ref.Rule}
			if dev, ok := d.Deviating(); ok && failed(dev) {
				d.SpecRule = p.accountable(dev, ref.Rule, c.Value)
			}
			d.Expected = p.expected(a, b, ref.Rule, c.Value)
			out = append(out, d)
		}
	}
	return out
}

// pairsOf lists the verdicts a pair compares: each oracle a side names
// against each the other names, a pair of one base (llc against llc) once
// for every two installations, a pair of two bases of LLVM installations
// (mlir against mlir-nvvm: two entry points of one tool) within each
// installation.
func pairsOf(pr Pair, verdicts []oracles.Verdict) [][2]oracles.Verdict {
	entryPoints := pr.A != pr.B && installed(pr.A) && installed(pr.B)
	var out [][2]oracles.Verdict
	for i, a := range verdicts {
		if !oracles.Matches(pr.A, a.Oracle) {
			continue
		}
		for j, b := range verdicts {
			if i == j || !oracles.Matches(pr.B, b.Oracle) || a.Oracle == b.Oracle || (pr.A == pr.B && j < i) ||
				(entryPoints && oracles.Label(a.Oracle) != oracles.Label(b.Oracle)) {
				continue
			}
			out = append(out, [2]oracles.Verdict{a, b})
		}
	}
	return out
}

// installed reports whether a policy's name is the base of the oracles
// LLVM installations provide.
func installed(name string) bool {
	in, ok := oracles.Lookup(name)
	return ok && in.Installed && !strings.Contains(name, "@")
}

// comparable reports whether a verdict takes part in agreement: unsupported
// says nothing about the case. A result (the hardware computed something
// else than the prediction) agrees with nothing but the same result.
func comparable(v oracles.Verdict) bool { return v.Kind != oracles.Unsupported }

func failed(v oracles.Verdict) bool { return v.Kind == oracles.Error || v.Kind == oracles.Timeout }

func agree(a, b oracles.Verdict, on Aspect) bool {
	if on == OnAnswer && (failed(a) || failed(b)) {
		return true
	}
	if failed(a) || failed(b) {
		return false // two failing oracles are two findings, not agreement
	}
	if on == OnCrash {
		return true
	}
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == oracles.Result {
		return a.Value == b.Value
	}
	return on != OnValue || a.Kind != oracles.Accept || a.Value == b.Value
}

// expected finds the expectation covering a disagreement, given the rule
// spec/ptxisa decided the case with.
func (p Policy) expected(a, b oracles.Verdict, specRule string, v domain.Value) string {
	for _, e := range p.Expected {
		if e.covers(a, b, specRule, v) {
			return e.Why
		}
	}
	return ""
}

// accountable is the rule a failing tool's disagreement is about. The
// ladder reports the first rule a case breaks; when the policy says the tool
// never sees that rule (an expectation without a condition lists it for the
// tool against spec/ptxisa), the failure cannot be that rule's missing check,
// and a bucket titled with it would send a maintainer after a check the tool
// cannot have: the finding is about the first broken rule the tool does see.
// Without a value, or when the tool sees none of the broken rules, the
// ladder's rule stands.
func (p Policy) accountable(tool oracles.Verdict, rule string, v domain.Value) string {
	if v == nil || !p.blind(tool, rule) {
		return rule
	}
	broken, err := rules.FiringRules(rules.PTXISA, p.Domain, v)
	if err != nil {
		return rule
	}
	for _, r := range broken {
		if !p.blind(tool, r.ID) {
			return r.ID
		}
	}
	return rule
}

// blind reports whether an unconditional expectation says the tool (of
// the verdict's release) does not see rule: the rule is about something
// the tool is never given.
func (p Policy) blind(tool oracles.Verdict, rule string) bool {
	for _, e := range p.Expected {
		if e.When == nil && e.Side() == oracles.SpecPTXISA && e.names(tool) && slices.Contains(e.Rules, rule) {
			return true
		}
	}
	return false
}

// Oracles lists every oracle the built-in policies name, sorted.
func Oracles() []string {
	var names []string
	for _, p := range policies {
		names = append(names, p.oracles()...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// oracles lists the oracles the policy names, in judges, pairs and
// expectations.
func (p Policy) oracles() []string {
	var names []string
	for _, pr := range p.Checked() {
		names = append(names, pr.A, pr.B)
	}
	for _, e := range p.Expected {
		names = append(names, append(e.Oracles, e.Side())...)
	}
	return names
}

// String spells a pair.
func (pr Pair) String() string { return pr.A + "~" + pr.B + "/" + strings.ToLower(string(pr.On)) }
