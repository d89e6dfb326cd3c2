// Package coordinator runs campaigns: it fans cases out to oracles, gathers
// their verdicts, applies the agreement policies and records findings.
package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Reference oracles: legalfuzz's own rule sets.
const (
	SpecSeed   = "spec/seed"
	SpecPTXISA = "spec/ptxisa"
)

// Aspect is what two oracles must agree on.
type Aspect string

const (
	// OnVerdict: accept vs reject.
	OnVerdict Aspect = "verdict"
	// OnValue: both accept and compute the same value (e.g. a descriptor).
	OnValue Aspect = "value"
)

// Pair is two oracles that must agree on a domain.
type Pair struct {
	A  string `json:"a"`
	B  string `json:"b"`
	On Aspect `json:"on"`
}

// Expectation marks a disagreement as expected: not a finding, but counted.
type Expectation struct {
	// Oracles are the tools that may disagree with Against.
	Oracles []string
	// Against is the other side; empty means spec/ptxisa.
	Against string
	// Rules are the spec/ptxisa rules (IDs) that decided the case; none means
	// any. They select cases even when neither side is spec/ptxisa.
	Rules []string
	Why   string
}

func (e Expectation) against() string {
	if e.Against == "" {
		return SpecPTXISA
	}
	return e.Against
}

// covers reports whether e explains a disagreement between a and b on a case
// spec/ptxisa decided with specRule.
func (e Expectation) covers(a, b oracles.Verdict, specRule string) bool {
	for _, v := range []oracles.Verdict{a, b} {
		if v.Kind == oracles.Error || v.Kind == oracles.Timeout {
			return false // a crash is never expected
		}
	}
	pairOK := (a.Oracle == e.against() && slices.Contains(e.Oracles, b.Oracle)) ||
		(b.Oracle == e.against() && slices.Contains(e.Oracles, a.Oracle))
	return pairOK && (len(e.Rules) == 0 || slices.Contains(e.Rules, specRule))
}

// Policy is a domain's agreement policy.
type Policy struct {
	Domain string
	// Judges are the tools whose verdicts must match spec/ptxisa's.
	Judges []string
	// Pairs are further oracle pairs that must agree with each other.
	Pairs    []Pair
	Expected []Expectation
}

// seedNote says why spec/seed never makes a finding on its own.
const seedNote = "spec/seed disagreeing with spec/ptxisa or a tool is evidence about a seed claim, reported in the claims matrix, not a finding"

// policies is the one place that says which oracles must agree on what.
var policies = []Policy{
	{Domain: "kindword", Judges: []string{"ptxas", "ptxas13", "llc22", "cuda-jit"},
		Pairs: []Pair{{"ptxas13", "llc22", OnVerdict}}},
	{Domain: "tmadesc", Judges: []string{"mlir", "cuda-driver", "gpu"},
		Expected: []Expectation{{Oracles: []string{"mlir"}, Why: "MLIR's tensormap type checks the descriptor's static shape, not the driver's runtime constraints"}}},
	{Domain: "tmamode", Judges: []string{"ptxas", "ptxas13", "mlir", "llc19", "llc22", "cuda-jit"},
		Pairs: []Pair{{"llc19", "llc22", OnVerdict}, {"mlir", "ptxas", OnVerdict}},
		Expected: []Expectation{llc19RaisesVersion("tmamode"), {Oracles: []string{"llc22"},
			Rules: []string{"ptxisa.tmamode.w-halo", "ptxisa.tmamode.w-offset"},
			Why:   "wHalo and wOffset are i16 register operands of the intrinsic; llc cannot bound them"}}},
	{Domain: "matdesc", Judges: []string{"ptxas", "mlir", "gpu"},
		Pairs: []Pair{{SpecPTXISA, "mlir", OnValue}},
		Expected: []Expectation{{Oracles: []string{"ptxas"},
			Rules: []string{"ptxisa.matdesc.alignment", "ptxisa.matdesc.base-offset-no-swizzle", "ptxisa.matdesc.field-range", "ptxisa.matdesc.reserved", "ptxisa.matdesc.uniform"},
			Why:   "the descriptor reaches ptxas as an opaque 64-bit operand; its fields' meaning is checked, if at all, by the hardware"}}},
	{Domain: "umma"},
	{Domain: "swizzle"},
	{Domain: "ldsm", Judges: []string{"ptxas", "ptxas13", "mlir", "llc19", "llc22", "cuda-jit", "gpu"},
		Pairs: []Pair{{"llc19", "llc22", OnVerdict}, {"mlir", "ptxas", OnVerdict}},
		Expected: []Expectation{llc19RaisesVersion("ldsm"), {Oracles: toolsPTX,
			Rules: []string{"ptxisa.ldsm.alignment", "ptxisa.ldsm.fragment-cosize", "ptxisa.ldsm.register-count", "ptxisa.ldsm.result-shape"},
			Why:   "the shared address is a runtime value and the register fragment's layout a compiler-IR property; neither is in the instruction text"},
			{Oracles: []string{"mlir"}, Rules: []string{"ptxisa.ldsm.alignment", "ptxisa.ldsm.register-count", "ptxisa.ldsm.type-spelling"},
				Why: "nvgpu.ldmatrix spells neither the shared address (a runtime value), the register count (derived from numTiles) nor an element type (always .b16)"},
			{Oracles: []string{"mlir"}, Against: "ptxas", Rules: []string{"ptxisa.ldsm.register-count", "ptxisa.ldsm.type-spelling", "ptxisa.ldsm.result-shape"},
				Why: "the PTX rendering spells the register count and element type the case names where MLIR derives them; MLIR checks the result vector, which ptxas never sees"}}},
	{Domain: "blockscale", Judges: []string{"ptxas", "ptxas13", "llc22", "cuda-jit"}},
	{Domain: "wgmma", Judges: []string{"ptxas", "ptxas13", "mlir", "llc19", "llc22", "cuda-jit"},
		Pairs: []Pair{{"llc19", "llc22", OnVerdict}},
		Expected: []Expectation{{Oracles: []string{"mlir"}, Rules: []string{"ptxisa.wgmma.m", "ptxisa.wgmma.k"},
			Why: "nvgpu.warpgroup.mma is a tile-level op that MLIR splits into m64nNkK instructions, so other M and K are its to accept"}}},
	{Domain: "mma", Judges: []string{"ptxas", "ptxas13", "mlir", "llc19", "llc22", "cuda-jit"},
		Pairs:    []Pair{{"llc19", "llc22", OnVerdict}, {"mlir", "ptxas", OnVerdict}},
		Expected: []Expectation{llc19RaisesVersion("mma")}},
	{Domain: "schedule", Judges: []string{"fenceproxy", "ptxas", "ptxas13", "cuda-jit"},
		Expected: []Expectation{{Oracles: []string{"fenceproxy"}, Rules: []string{"ptxisa.schedule.proxy-hazard"},
			Why: "InjectFenceProxy inserts the fences the schedule lacked: that is its job"},
			{Oracles: toolsPTX, Rules: scheduleSemantics,
				Why: "deadlocks, races, proxy hazards and mbarrier misuse are properties of the interleavings, not of the instruction text ptxas sees"}}},
	// waitcnt: spec/ptxisa judges the lowering under test; when it finds the
	// lowered thresholds unsound while llvm-mc happily assembles them, that
	// disagreement is the finding (an unsound lowering that encodes fine).
	{Domain: "waitcnt", Pairs: []Pair{{SpecPTXISA, "amdgpu-mc", OnValue}}},
	{Domain: "cpasync", Judges: []string{"ptxas", "ptxas13", "mlir", "llc19", "llc22", "cuda-jit"},
		Pairs: []Pair{{"llc19", "llc22", OnVerdict}, {"mlir", "ptxas", OnVerdict}},
		Expected: []Expectation{llc19RaisesVersion("cpasync"),
			{Oracles: toolsPTX, Rules: []string{"ptxisa.cpasync.dst-align", "ptxisa.cpasync.src-align", "ptxisa.cpasync.unit-stride"},
				Why: "addresses and memref strides are runtime values, not part of the instruction text"},
			{Oracles: []string{"mlir"}, Rules: []string{"ptxisa.cpasync.dst-align", "ptxisa.cpasync.src-align", "ptxisa.cpasync.src-size"},
				Why: "addresses and srcElements are runtime values in MLIR too"},
			{Oracles: []string{"mlir"}, Against: "ptxas", Rules: []string{"ptxisa.cpasync.unit-stride", "ptxisa.cpasync.src-size"},
				Why: "MLIR's verifier sees memref strides that PTX never spells, and passes srcElements at run time where the PTX rendering spells an immediate"},
			{Oracles: []string{"llc19", "llc22"}, Rules: []string{"ptxisa.cpasync.src-size"},
				Why: "src-size is a register operand of the intrinsic; llc cannot bound it"}}},
}

// llc19RaisesVersion expects llc 19 to accept a PTX version too old for the
// target: it raises .version instead of refusing. The llc19~llc22 pair still
// reports it, as the version disagreement it is.
func llc19RaisesVersion(domainName string) Expectation {
	return Expectation{Oracles: []string{"llc19"}, Rules: []string{"ptxisa." + domainName + ".target-ptx-version"},
		Why: "llc 19 raises a .version too old for the target instead of refusing it (llc 22 refuses)"}
}

// scheduleSemantics are the schedule model's rules about what runs, not
// about how it is spelled.
var scheduleSemantics = []string{"ptxisa.schedule.deadlock", "ptxisa.schedule.race", "ptxisa.schedule.proxy-hazard",
	"ptxisa.schedule.operand-space", "ptxisa.schedule.bound-exceeded", "ptxisa.schedule.ub.init-count",
	"ptxisa.schedule.ub.nocomplete", "ptxisa.schedule.ub.pending-underflow", "ptxisa.schedule.ub.phase-unobserved",
	"ptxisa.schedule.ub.reinit", "ptxisa.schedule.ub.tx-range", "ptxisa.schedule.ub.uninit", "ptxisa.schedule.ub.wgmma-fence"}

// toolsPTX are the tools that judge PTX text or NVVM IR, not runtime values.
var toolsPTX = []string{"ptxas", "ptxas13", "llc19", "llc22", "cuda-jit"}

// PolicyFor returns the domain's policy; a domain without one has no judges.
func PolicyFor(domainName string) Policy {
	for _, p := range policies {
		if p.Domain == domainName {
			return p
		}
	}
	return Policy{Domain: domainName}
}

// Describe spells the policy in one line per requirement, for `legalfuzz domains`.
func (p Policy) Describe() []string {
	var lines []string
	for _, j := range p.Judges {
		lines = append(lines, fmt.Sprintf("%s = %s on %s", SpecPTXISA, j, OnVerdict))
	}
	for _, pr := range p.Pairs {
		lines = append(lines, fmt.Sprintf("%s = %s on %s", pr.A, pr.B, pr.On))
	}
	for _, e := range p.Expected {
		rules := strings.Join(e.Rules, ", ")
		if rules == "" {
			rules = "any rule"
		}
		lines = append(lines, fmt.Sprintf("expected: %s vs %s on %s: %s", strings.Join(e.Oracles, "/"), e.against(), rules, e.Why))
	}
	return append(lines, seedNote)
}

// pairs lists every pair the policy checks.
func (p Policy) pairs() []Pair {
	out := make([]Pair, 0, len(p.Judges)+len(p.Pairs))
	for _, j := range p.Judges {
		out = append(out, Pair{SpecPTXISA, j, OnVerdict})
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
	// Expected, when set, says why this disagreement is not a finding.
	Expected string `json:"expected,omitempty"`
}

// Finding reports whether the disagreement is a finding (not expected).
func (d Disagreement) Finding() bool { return d.Expected == "" }

// Evaluate applies the domain's policy to one case's verdicts. An oracle that
// failed (error or timeout) is a disagreement with the reference on its own;
// unsupported verdicts and oracles that did not judge are skipped.
func (p Policy) Evaluate(caseID string, verdicts []oracles.Verdict) []Disagreement {
	byOracle := map[string]oracles.Verdict{}
	for _, v := range verdicts {
		byOracle[v.Oracle] = v
	}
	var out []Disagreement
	for _, pr := range p.pairs() {
		a, okA := byOracle[pr.A]
		b, okB := byOracle[pr.B]
		if !okA || !okB || !comparable(a) || !comparable(b) {
			continue
		}
		if agree(a, b, pr.On) {
			continue
		}
		d := Disagreement{Case: caseID, Domain: p.Domain, Pair: pr, A: a, B: b}
		d.Expected = p.expected(a, b, byOracle[SpecPTXISA].Rule)
		out = append(out, d)
	}
	return out
}

// comparable reports whether a verdict takes part in agreement: unsupported
// says nothing about the case. A result (the hardware computed something
// else than the prediction) agrees with nothing but the same result.
func comparable(v oracles.Verdict) bool { return v.Kind != oracles.Unsupported }

func agree(a, b oracles.Verdict, on Aspect) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == oracles.Error || a.Kind == oracles.Timeout {
		return false // two failing oracles are two findings, not agreement
	}
	if a.Kind == oracles.Result {
		return a.Value == b.Value
	}
	return on != OnValue || a.Kind != oracles.Accept || a.Value == b.Value
}

// expected finds the expectation covering a disagreement, given the rule
// spec/ptxisa decided the case with.
func (p Policy) expected(a, b oracles.Verdict, specRule string) string {
	for _, e := range p.Expected {
		if e.covers(a, b, specRule) {
			return e.Why
		}
	}
	return ""
}

// Oracles lists every oracle named in the policies, sorted, for checks that the
// names match real oracles.
func Oracles() []string {
	var names []string
	for _, p := range policies {
		for _, pr := range p.pairs() {
			names = append(names, pr.A, pr.B)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// String spells a pair.
func (pr Pair) String() string { return pr.A + "~" + pr.B + "/" + strings.ToLower(string(pr.On)) }
