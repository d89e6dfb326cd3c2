package tally

import (
	"cmp"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// OpNamer is a case value that is one op of a dialect (fuzz/nvvmop's):
// its verdicts are counted per op as well. A domain whose values are not
// ops is not counted.
type OpNamer interface {
	OpName() string
}

// LLCStage is the stage whose verdicts say an op reached llc: llc
// selected it (accept) or refused it (reject, error) at that stage.
const LLCStage = "llc"

// OpCell is one oracle's verdicts on one op: how many cases it judged,
// and the outcome mix (Outcome).
type OpCell struct {
	Oracle   string         `json:"oracle"`
	Domain   string         `json:"domain"`
	Op       string         `json:"op"`
	Cases    int            `json:"cases"`
	Outcomes map[string]int `json:"outcomes"`
}

// Judged reports whether any verdict on the op was not unsupported.
func (c OpCell) Judged() bool { return c.Outcomes[string(oracles.Unsupported)] < c.Cases }

// ReachedLLC reports whether any verdict on the op came from llc.
func (c OpCell) ReachedLLC() bool {
	for o, n := range c.Outcomes {
		if n > 0 && outcomeReachedLLC(o) {
			return true
		}
	}
	return false
}

// Refused reports whether the op's mix holds an error (a crash, or a
// later stage refusing what the verifier accepted: STAGE/pass-refused) or
// a timeout: what a reader looks at first.
func (c OpCell) Refused() bool {
	for o, n := range c.Outcomes {
		kind, _, _ := strings.Cut(o, " ")
		if n > 0 && (kind == string(oracles.Error) || kind == string(oracles.Timeout)) {
			return true
		}
	}
	return false
}

// Outcome is a verdict as the per-op tally counts it: its kind and the
// stage its Rule names ("accept llc", "reject verify", "error
// translate/pass-refused", "error llc" for a crash there), or
// "unsupported" alone (its Rule is a reason, counted by Spelled).
func Outcome(v oracles.Verdict) string {
	if v.Kind == oracles.Unsupported || v.Rule == "" {
		return string(v.Kind)
	}
	return string(v.Kind) + " " + v.Rule
}

// outcomeReachedLLC reports whether an outcome's stage is llc.
func outcomeReachedLLC(o string) bool {
	_, rule, ok := strings.Cut(o, " ")
	return ok && oracles.ParseStage(rule).Name == LLCStage
}

// UndefinedOp is the op a case counts under when no tool judged it (every
// verdict unsupported): a name no judging installation defines, as a
// fuzzer writes them ("nvvm.0000"), counted once, so that the tally's size
// stays bounded by the dialects' ops.
const UndefinedOp = "(no judge's op)"

// Ops tallies the verdicts of op cases per oracle and op (keyed "ORACLE
// DOMAIN OP"). Its size grows with the oracles, the ops some tool judged
// and the outcomes seen, not the cases.
type Ops struct {
	Cells map[string]*OpCell `json:"cells,omitempty"`
}

// Add counts one case of op by the tools (spec rule sets judge every case
// and are left out); a case no tool judged counts under UndefinedOp.
func (b *Ops) Add(op string, vs []oracles.Verdict) {
	judged := false
	for _, v := range vs {
		judged = judged || !isSpec(v) && v.Kind != oracles.Unsupported
	}
	if !judged {
		op = UndefinedOp
	}
	for _, v := range vs {
		if isSpec(v) {
			continue
		}
		c := b.cell(v.Oracle, v.Domain, op)
		c.Cases++
		c.Outcomes[Outcome(v)]++
	}
}

// cell returns the oracle's cell of the op, made empty when new.
func (b *Ops) cell(oracle, domain, op string) *OpCell {
	c := entry(&b.Cells, oracle+" "+domain+" "+op, func() *OpCell {
		return &OpCell{Oracle: oracle, Domain: domain, Op: op, Outcomes: map[string]int{}}
	})
	if c.Outcomes == nil {
		c.Outcomes = map[string]int{}
	}
	return c
}

// Merge adds o's counts to b.
func (b *Ops) Merge(o *Ops) {
	for _, oc := range o.Cells {
		c := b.cell(oc.Oracle, oc.Domain, oc.Op)
		c.Cases += oc.Cases
		for out, n := range oc.Outcomes {
			c.Outcomes[out] += n
		}
	}
}

// OpCoverage is one oracle's op coverage of one domain: the ops it was
// asked about (UndefinedOp aside), those it judged at least once, those
// that reached llc, and each op's cell, by op name (UndefinedOp's too).
type OpCoverage struct {
	Oracle     string   `json:"oracle"`
	Domain     string   `json:"domain"`
	Ops        int      `json:"ops"`
	Judged     int      `json:"judged"`
	ReachedLLC int      `json:"reached_llc"`
	Cells      []OpCell `json:"per_op"`
}

// Cell returns the op's cell, false when the oracle was never asked.
func (c OpCoverage) Cell(op string) (OpCell, bool) {
	i, ok := slices.BinarySearchFunc(c.Cells, op, func(x OpCell, op string) int { return strings.Compare(x.Op, op) })
	if !ok {
		return OpCell{}, false
	}
	return c.Cells[i], true
}

// Coverage returns each oracle's op coverage, by oracle then domain.
func (b *Ops) Coverage() []OpCoverage {
	byKey := map[string]*OpCoverage{}
	for _, cell := range b.Cells {
		c := *cell
		c.Outcomes = make(map[string]int, len(cell.Outcomes))
		for o, n := range cell.Outcomes {
			c.Outcomes[o] = n
		}
		cov := byKey[c.Oracle+" "+c.Domain]
		if cov == nil {
			cov = &OpCoverage{Oracle: c.Oracle, Domain: c.Domain}
			byKey[c.Oracle+" "+c.Domain] = cov
		}
		cov.Cells = append(cov.Cells, c)
		if c.Op == UndefinedOp {
			continue
		}
		cov.Ops++
		if c.Judged() {
			cov.Judged++
		}
		if c.ReachedLLC() {
			cov.ReachedLLC++
		}
	}
	out := make([]OpCoverage, 0, len(byKey))
	for _, cov := range byKey {
		slices.SortFunc(cov.Cells, func(x, y OpCell) int { return strings.Compare(x.Op, y.Op) })
		out = append(out, *cov)
	}
	slices.SortFunc(out, func(x, y OpCoverage) int {
		return cmp.Or(strings.Compare(x.Oracle, y.Oracle), strings.Compare(x.Domain, y.Domain))
	})
	return out
}
