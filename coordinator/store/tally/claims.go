package tally

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
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

// HintNotRun is the Why of a judge that gave no verdict on the row's cases.
const HintNotRun = "did not run here"

// toolEvidence is what one tool did on one row's cases. It is part of a
// stored tally (see Tally), hence exported fields.
type toolEvidence struct {
	Agree          int            `json:"agree,omitempty"`
	Contradict     int            `json:"contradict,omitempty"`
	Unsupported    int            `json:"unsupported,omitempty"`
	Failed         int            `json:"failed,omitempty"`
	Blind          int            `json:"blind,omitempty"`
	Gated          int            `json:"gated,omitempty"`
	Seen           int            `json:"seen,omitempty"`
	UnsupportedWhy map[string]int `json:"unsupported_why,omitempty"`
	BlindWhy       string         `json:"blind_why,omitempty"`
}

// claimRow is one row's evidence: what a stored tally keeps of it. The
// rule's text comes from the spec when the row is shown (claimTemplates).
type claimRow struct {
	Decided       int                      `json:"decided,omitempty"`
	Judged        int                      `json:"judged,omitempty"`
	Confirming    int                      `json:"confirming,omitempty"`
	Contradicting int                      `json:"contradicting,omitempty"`
	PTXISAAgree   int                      `json:"ptxisa_agree,omitempty"`
	PTXISADiffer  int                      `json:"ptxisa_differ,omitempty"`
	Witness       *Witness                 `json:"witness,omitempty"`
	WitnessSize   int                      `json:"witness_size,omitempty"`
	Tools         map[string]*toolEvidence `json:"tools,omitempty"`
}

// claimsBuilder accumulates the claims matrix case by case; rows with no
// evidence yet are absent (and shown all the same).
type claimsBuilder struct {
	Rows map[string]*claimRow `json:"rows,omitempty"`
}

// claimTemplates are the rows of the matrix without evidence, by rule ID:
// every seed rule and every domain's accept path.
var claimTemplates = sync.OnceValue(func() map[string]Claim {
	out := map[string]Claim{}
	for _, r := range rules.Rules() {
		if r.Set == rules.Seed {
			out[r.ID] = Claim{Rule: r.ID, Domain: r.Domain, Message: r.Message, Source: r.Source, Doubtful: r.Doubtful}
		}
	}
	for _, d := range rules.Domains(rules.Seed) {
		id := string(rules.Seed) + "." + d
		out[id] = Claim{Rule: id, Domain: d, AcceptPath: true,
			Message: "no rule of the ladder fires: the case is legal", Source: "the seed's " + d + " verifier as a whole"}
	}
	return out
})

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
	info, ok := claimTemplates()[seed.Rule]
	if !ok {
		return // a rule no longer in the spec: its evidence has no row
	}
	row := b.row(seed.Rule)
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
		ev.Seen++
		switch {
		case v.Kind == oracles.Unsupported:
			ev.Unsupported++
			ev.UnsupportedWhy[v.Diagnostic]++
		case v.Kind != oracles.Accept && v.Kind != oracles.Reject:
			ev.Failed++
		case blind[tool] != "":
			ev.Blind++
			ev.BlindWhy = blind[tool]
		case v.Kind == oracles.Reject && diag.TargetGate(v.Diagnostic) && !targetClaim(info.Message):
			// The tool refused the target or PTX version before it looked at
			// what the rule is about.
			ev.Gated++
		case v.Kind == seed.Kind:
			ev.Agree++
			counted++
		default:
			ev.Contradict++
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
	if row.Witness == nil || len(js) < row.WitnessSize || (len(js) == row.WitnessSize && caseID < row.Witness.Case) {
		row.Witness = &Witness{Case: caseID, Value: js, Seed: seed, Tools: against}
		row.WitnessSize = len(js)
	}
}

// row returns the row of rule id, creating it.
func (b *claimsBuilder) row(id string) *claimRow {
	return entry(&b.Rows, id, func() *claimRow { return &claimRow{} })
}

func (r *claimRow) tool(name string) *toolEvidence {
	ev := entry(&r.Tools, name, func() *toolEvidence { return &toolEvidence{} })
	if ev.UnsupportedWhy == nil { // a stored row's omits an empty map
		ev.UnsupportedWhy = map[string]int{}
	}
	return ev
}

// merge adds o's evidence to b: the rows of two nights, or of a night and
// the cases a store still holds unfolded. The witness stays the smallest.
func (b *claimsBuilder) merge(o *claimsBuilder) {
	for id, or := range o.Rows {
		r := b.row(id)
		r.Decided += or.Decided
		r.Judged += or.Judged
		r.Confirming += or.Confirming
		r.Contradicting += or.Contradicting
		r.PTXISAAgree += or.PTXISAAgree
		r.PTXISADiffer += or.PTXISADiffer
		if w := or.Witness; w != nil && (r.Witness == nil || or.WitnessSize < r.WitnessSize ||
			or.WitnessSize == r.WitnessSize && w.Case < r.Witness.Case) {
			r.Witness, r.WitnessSize = w, or.WitnessSize
		}
		for name, oe := range or.Tools {
			r.tool(name).merge(oe)
		}
	}
}

func (e *toolEvidence) merge(o *toolEvidence) {
	e.Agree += o.Agree
	e.Contradict += o.Contradict
	e.Unsupported += o.Unsupported
	e.Failed += o.Failed
	e.Blind += o.Blind
	e.Gated += o.Gated
	e.Seen += o.Seen
	for why, n := range o.UnsupportedWhy {
		e.UnsupportedWhy[why] += n
	}
	if o.BlindWhy != "" {
		e.BlindWhy = o.BlindWhy
	}
}

// claims returns the matrix: by domain, each domain's rules by ID, then its
// accept path.
func (b *claimsBuilder) claims() []Claim {
	templates := claimTemplates()
	out := make([]Claim, 0, len(templates))
	for id, info := range templates {
		r := b.Rows[id]
		if r == nil {
			r = &claimRow{}
		}
		out = append(out, r.finish(info))
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
func (r *claimRow) finish(info Claim) Claim {
	c := info
	c.Decided, c.Judged, c.Confirming, c.Contradicting = r.Decided, r.Judged, r.Confirming, r.Contradicting
	c.PTXISAAgree, c.PTXISADiffer, c.Witness = r.PTXISAAgree, r.PTXISADiffer, r.Witness
	for _, pattern := range judges(policy.PolicyFor(c.Domain)) {
		for _, tool := range r.matching(pattern) {
			if ev := r.Tools[tool]; ev.Agree+ev.Contradict > 0 {
				c.Tools = append(c.Tools, ToolTally{Tool: tool, Agree: ev.Agree, Contradict: ev.Contradict})
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
		c.Unjudged = r.hints(c.Domain)
	}
	return c
}

// hints says, for each judge of the domain, why it gave no evidence here
// and where it could run.
func (r *claimRow) hints(domainName string) []ToolHint {
	tools := judges(policy.PolicyFor(domainName))
	if len(tools) == 0 {
		return []ToolHint{{Tool: "-", Why: "no real tool judges the legality of " + domainName + " cases in its agreement policy (coordinator/policy/policy.go)"}}
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
	for name := range r.Tools {
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
	ev := r.Tools[tool]
	switch {
	case r.Decided == 0:
		h.Why = "could judge it"
	case ev == nil || ev.Seen == 0:
		h.Why = HintNotRun
	case ev.Unsupported == ev.Seen:
		h.Why = fmt.Sprintf("unsupported on %s: %s", allCases(ev.Seen), topReason(ev.UnsupportedWhy))
	default:
		var parts []string
		if ev.Unsupported > 0 {
			parts = append(parts, fmt.Sprintf("unsupported on %s: %s", Cases(ev.Unsupported), topReason(ev.UnsupportedWhy)))
		}
		if ev.Failed > 0 {
			parts = append(parts, "error or timeout on "+Cases(ev.Failed))
		}
		if ev.Blind > 0 {
			parts = append(parts, fmt.Sprintf("expected to differ on %s: %s", Cases(ev.Blind), ev.BlindWhy))
		}
		if ev.Gated > 0 {
			parts = append(parts, "refused the target or PTX version of "+Cases(ev.Gated))
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

// Cases spells "1 case" or "N cases".
func Cases(n int) string {
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

// CountClaims sums the verdicts of the seed rules (accept paths excluded).
func CountClaims(cs []Claim) ClaimCounts {
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
