package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// ClaimVerdict is what the real tools made of one seed rule.
type ClaimVerdict string

// Claim verdicts. See ClaimsDefinition for how they are computed.
const (
	Confirmed    ClaimVerdict = "confirmed"
	Contradicted ClaimVerdict = "contradicted"
	Unverified   ClaimVerdict = "unverified"
)

// ClaimsDefinition says how a seed rule's verdict is computed from stored
// verdicts. The HTML page prints it above the claims matrix; claimsBuilder
// implements exactly this.
const ClaimsDefinition = `Every rule of the seed set is a claim. A case counts for a rule when spec/seed decided it with that rule: the rule fired and spec/seed rejected the case (the ladder is fail-first, so only the rule that fired is credited or blamed). Cases spec/seed accepted count for the domain's accept path (the row "seed.DOMAIN (accept path)"): an accept means no rule of the ladder fired, so a tool's reject there blames the ladder as a whole (a missing rule), not one rule. On each such case, every real tool the domain's agreement policy compares on the verdict (its judges and verdict pairs in coordinator/policy/policy.go; spec oracles, user exec verifiers and tools compared only on a computed value are not counted) gives evidence when it answered accept or reject; unsupported, error, timeout and result verdicts, verdicts the policy marks as an expected disagreement with spec/ptxisa on that case (the tool cannot see the property), and rejects that refuse the target or the PTX ISA version (ptxas's "requires .target sm_90", MLIR 22's "is not supported on sm_80") of a rule that is not about the target, do not count. A counted verdict agrees when it has spec/seed's kind (both reject or both accept) and contradicts otherwise; agreement is on legality, not on the reason or a computed value. A rule is Contradicted when at least one counted verdict contradicts it (the witness is the smallest such case, by the length of its JSON form, with the disagreeing tools' verdicts); Confirmed when counted verdicts exist and all agree (N = the cases with at least one counted verdict); Unverified when no counted verdict exists, with, for each judge of the domain, why it gave none here and where it could.`

// ToolTally counts one tool's counted verdicts on a rule's cases.
type ToolTally struct {
	Tool       string `json:"tool"`
	Agree      int    `json:"agree"`
	Contradict int    `json:"contradict"`
}

// Witness is the smallest case that contradicts a rule.
type Witness struct {
	Case  string          `json:"case"`
	Value json.RawMessage `json:"value"` // the case's JSON form
	// Seed is spec/seed's verdict; Tools are the contradicting tools' verdicts.
	Seed  oracles.Verdict   `json:"seed"`
	Tools []oracles.Verdict `json:"tools"`
}

// ToolHint says why a judge gave no evidence on a rule here, and where it
// could run. Tool "-" marks a hint about the rule rather than one tool.
type ToolHint struct {
	Tool  string `json:"tool"`
	Why   string `json:"why"`
	Where string `json:"where,omitempty"`
}

// Claim is one row of the claims matrix: a seed rule (or a domain's accept
// path) with its verdict and the evidence.
type Claim struct {
	Rule       string `json:"rule"`
	Domain     string `json:"domain"`
	AcceptPath bool   `json:"accept_path"` // the row is the ladder's accept path, not one rule
	Message    string `json:"message"`
	Source     string `json:"source"`
	// Doubtful is the rule's recorded doubt (ptx-facts' claims in doubt), if any.
	Doubtful string       `json:"doubtful,omitempty"`
	Verdict  ClaimVerdict `json:"verdict"`
	// Decided counts the cases spec/seed decided with this row; Judged those
	// with at least one counted tool verdict, split into Confirming (all
	// agree) and Contradicting (some tool contradicts).
	Decided       int         `json:"decided"`
	Judged        int         `json:"judged"`
	Confirming    int         `json:"confirming"`
	Contradicting int         `json:"contradicting"`
	Tools         []ToolTally `json:"tools"`
	// PTXISAAgree and PTXISADiffer compare spec/ptxisa with spec/seed on the
	// decided cases: context, not evidence.
	PTXISAAgree  int        `json:"ptxisa_agree"`
	PTXISADiffer int        `json:"ptxisa_differ"`
	Witness      *Witness   `json:"witness,omitempty"`
	Unjudged     []ToolHint `json:"unjudged,omitempty"` // for Unverified rows
}

// ClaimCounts sums the claims matrix.
type ClaimCounts struct {
	Rules        int `json:"rules"` // seed rules, accept paths excluded
	Confirmed    int `json:"confirmed"`
	Contradicted int `json:"contradicted"`
	Unverified   int `json:"unverified"`
}

// hintNotRun is the Why of a judge that gave no verdict on the row's cases.
const hintNotRun = "did not run here"

// toolEvidence is what one tool did on one row's cases.
type toolEvidence struct {
	agree, contradict, unsupported, failed, blind, gated, seen int
	unsupportedWhy                                             map[string]int
	blindWhy                                                   string
}

// claimRow accumulates one row.
type claimRow struct {
	Claim
	tools       map[string]*toolEvidence
	witnessSize int
}

// claimsBuilder accumulates the claims matrix case by case.
type claimsBuilder struct {
	rows map[string]*claimRow
}

func newClaimsBuilder() *claimsBuilder {
	b := &claimsBuilder{rows: map[string]*claimRow{}}
	for _, r := range spec.Rules() {
		if r.Set == spec.Seed {
			b.rows[r.ID] = &claimRow{Claim: Claim{Rule: r.ID, Domain: r.Domain, Message: r.Message, Source: r.Source, Doubtful: r.Doubtful}}
		}
	}
	for _, d := range spec.Domains(spec.Seed) {
		id := string(spec.Seed) + "." + d
		b.rows[id] = &claimRow{Claim: Claim{Rule: id, Domain: d, AcceptPath: true,
			Message: "no rule of the ladder fires: the case is legal", Source: "the seed's " + d + " verifier as a whole"}}
	}
	return b
}

// judges lists the real tools the domain's policy compares on the verdict
// (its judges and its verdict pairs), in policy order. A tool compared only
// on a computed value (e.g. llvm-mc's encoding of a wait) says nothing about
// legality.
func judges(p policy.Policy) []string {
	var out []string
	add := func(name string) {
		if !strings.HasPrefix(name, "spec/") && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, j := range p.Judges {
		add(j)
	}
	for _, pr := range p.Pairs {
		if pr.On == policy.OnVerdict {
			add(pr.A)
			add(pr.B)
		}
	}
	return out
}

// add records one case's verdicts. value renders the case's JSON form; it is
// called only for a witness candidate.
func (b *claimsBuilder) add(caseID, domainName string, vs []oracles.Verdict, value func() json.RawMessage) {
	byOracle := map[string]oracles.Verdict{}
	for _, v := range vs {
		byOracle[v.Oracle] = v
	}
	seed, ok := byOracle[oracles.SpecSeed]
	if !ok || (seed.Kind != oracles.Accept && seed.Kind != oracles.Reject) {
		return
	}
	row := b.rows[seed.Rule]
	if row == nil {
		return // a rule no longer in the spec: its evidence has no row
	}
	row.Decided++
	if p, ok := byOracle[oracles.SpecPTXISA]; ok && (p.Kind == oracles.Accept || p.Kind == oracles.Reject) {
		if p.Kind == seed.Kind {
			row.PTXISAAgree++
		} else {
			row.PTXISADiffer++
		}
	}
	pol := policy.PolicyFor(domainName)
	blind := map[string]string{}
	for _, d := range pol.Evaluate(domain.Case{ID: caseID, Domain: domainName}, vs) {
		if d.Pair.A == oracles.SpecPTXISA && !d.Finding() {
			blind[d.Pair.B] = d.Expected
		}
	}
	var counted int
	var against []oracles.Verdict
	pats := judges(pol)
	for _, v := range vs {
		tool := v.Oracle
		if !slices.ContainsFunc(pats, func(p string) bool { return oracles.Matches(p, tool) }) {
			continue
		}
		ev := row.tool(tool)
		ev.seen++
		switch {
		case v.Kind == oracles.Unsupported:
			ev.unsupported++
			ev.unsupportedWhy[v.Diagnostic]++
		case v.Kind != oracles.Accept && v.Kind != oracles.Reject:
			ev.failed++
		case blind[tool] != "":
			ev.blind++
			ev.blindWhy = blind[tool]
		case v.Kind == oracles.Reject && diag.TargetGate(v.Diagnostic) && !targetClaim(row.Message):
			// The tool refused the target or PTX version before it looked at
			// what the rule is about.
			ev.gated++
		case v.Kind == seed.Kind:
			ev.agree++
			counted++
		default:
			ev.contradict++
			counted++
			against = append(against, v)
		}
	}
	if counted == 0 {
		return
	}
	row.Judged++
	if len(against) == 0 {
		row.Confirming++
		return
	}
	row.Contradicting++
	js := value()
	if row.Witness == nil || len(js) < row.witnessSize || (len(js) == row.witnessSize && caseID < row.Witness.Case) {
		row.Witness = &Witness{Case: caseID, Value: js, Seed: seed, Tools: against}
		row.witnessSize = len(js)
	}
}

func (r *claimRow) tool(name string) *toolEvidence {
	if r.tools == nil {
		r.tools = map[string]*toolEvidence{}
	}
	ev := r.tools[name]
	if ev == nil {
		ev = &toolEvidence{unsupportedWhy: map[string]int{}}
		r.tools[name] = ev
	}
	return ev
}

// claims returns the matrix: by domain, each domain's rules by ID, then its
// accept path.
func (b *claimsBuilder) claims() []Claim {
	out := make([]Claim, 0, len(b.rows))
	for _, r := range b.rows {
		out = append(out, r.finish())
	}
	slices.SortFunc(out, func(x, y Claim) int {
		if c := cmp.Compare(x.Domain, y.Domain); c != 0 {
			return c
		}
		if x.AcceptPath != y.AcceptPath {
			if x.AcceptPath {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.Rule, y.Rule)
	})
	return out
}

// finish computes the row's verdict, tallies and hints.
func (r *claimRow) finish() Claim {
	c := r.Claim
	for _, pattern := range judges(policy.PolicyFor(c.Domain)) {
		for _, tool := range r.matching(pattern) {
			if ev := r.tools[tool]; ev.agree+ev.contradict > 0 {
				c.Tools = append(c.Tools, ToolTally{Tool: tool, Agree: ev.agree, Contradict: ev.contradict})
			}
		}
	}
	switch {
	case c.Contradicting > 0:
		c.Verdict = Contradicted
	case c.Judged > 0:
		c.Verdict = Confirmed
	default:
		c.Verdict = Unverified
		c.Unjudged = r.hints()
	}
	return c
}

// hints says, for each judge of the domain, why it gave no evidence here
// and where it could run.
func (r *claimRow) hints() []ToolHint {
	tools := judges(policy.PolicyFor(r.Domain))
	if len(tools) == 0 {
		return []ToolHint{{Tool: "-", Why: "no real tool judges the legality of " + r.Domain + " cases in its agreement policy (coordinator/policy/policy.go)"}}
	}
	var out []ToolHint
	if r.Decided == 0 {
		out = append(out, ToolHint{Tool: "-", Why: "no case here was decided by this rule: fuzz longer or add a boundary seed"})
	}
	for _, pattern := range tools {
		names := r.matching(pattern)
		if len(names) == 0 {
			names = []string{pattern}
		}
		for _, tool := range names {
			out = append(out, r.hint(tool))
		}
	}
	return out
}

// matching lists the oracles with evidence in the row that a policy's name
// (an oracle's, or an installed oracle's base) names, sorted.
func (r *claimRow) matching(pattern string) []string {
	var out []string
	for name := range r.tools {
		if oracles.Matches(pattern, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// hint says why one tool gave no evidence for the row's rule.
func (r *claimRow) hint(tool string) ToolHint {
	info, _ := oracles.Lookup(tool)
	h := ToolHint{Tool: tool, Where: info.Where}
	if h.Where == "" {
		h.Where = "a machine where " + tool + " is installed"
	}
	ev := r.tools[tool]
	switch {
	case r.Decided == 0:
		h.Why = "could judge it"
	case ev == nil || ev.seen == 0:
		h.Why = hintNotRun
	case ev.unsupported == ev.seen:
		h.Why = fmt.Sprintf("unsupported on %s: %s", allCases(ev.seen), topReason(ev.unsupportedWhy))
	default:
		var parts []string
		if ev.unsupported > 0 {
			parts = append(parts, fmt.Sprintf("unsupported on %s: %s", cases(ev.unsupported), topReason(ev.unsupportedWhy)))
		}
		if ev.failed > 0 {
			parts = append(parts, "error or timeout on "+cases(ev.failed))
		}
		if ev.blind > 0 {
			parts = append(parts, fmt.Sprintf("expected to differ on %s: %s", cases(ev.blind), ev.blindWhy))
		}
		if ev.gated > 0 {
			parts = append(parts, "refused the target or PTX version of "+cases(ev.gated))
		}
		h.Why = strings.Join(parts, "; ")
	}
	return h
}

// targetClaim reports whether a seed rule is about the target or the PTX
// ISA version: only then does a tool's refusal of the target speak to it.
func targetClaim(message string) bool {
	m := strings.ToLower(message)
	return strings.Contains(m, "sm_") || strings.Contains(m, "target") || strings.Contains(m, "ptx isa") || strings.Contains(m, "ptx version")
}

// cases spells "1 case" or "N cases".
func cases(n int) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

// allCases spells "the one case" or "all N cases".
func allCases(n int) string {
	if n == 1 {
		return "the one case"
	}
	return fmt.Sprintf("all %d cases", n)
}

// topReason names the most frequent unsupported reason, with how many others.
func topReason(reasons map[string]int) string {
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if reasons[keys[a]] != reasons[keys[b]] {
			return reasons[keys[a]] > reasons[keys[b]]
		}
		return keys[a] < keys[b]
	})
	if len(keys) == 0 {
		return ""
	}
	s := keys[0]
	if len(keys) > 1 {
		s += fmt.Sprintf(", and %d other reasons", len(keys)-1)
	}
	return s
}

// countClaims sums the verdicts of the seed rules (accept paths excluded).
func countClaims(cs []Claim) ClaimCounts {
	var n ClaimCounts
	for _, c := range cs {
		if c.AcceptPath {
			continue
		}
		n.Rules++
		switch c.Verdict {
		case Confirmed:
			n.Confirmed++
		case Contradicted:
			n.Contradicted++
		default:
			n.Unverified++
		}
	}
	return n
}
