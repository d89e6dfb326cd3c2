// Package oracles defines the judges legalfuzz asks about each case: their
// common interface and the verdicts they return, the catalog of the
// oracles legalfuzz knows, the Panel that judges cases wherever their
// oracles run, and the Reproducer through which each oracle family says
// how its verdicts are replayed by hand.
package oracles

import (
	"context"
	"hash/fnv"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/internal/clip"
)

// Kind is what an oracle said about a case.
type Kind string

const (
	// Accept: the oracle finds the case legal.
	Accept Kind = "accept"
	// Reject: the oracle finds the case illegal; Diagnostic says why.
	Reject Kind = "reject"
	// Unsupported: the oracle cannot judge this case (target too new, op not in
	// this version); never a finding on its own.
	Unsupported Kind = "unsupported"
	// Error: the oracle itself failed (a crash, an internal compiler error).
	// That is a finding about the oracle, not a failure of legalfuzz.
	Error Kind = "error"
	// Timeout: the oracle did not answer in time and was killed.
	Timeout Kind = "timeout"
	// Result: the oracle observed data (e.g. a hash of what a load wrote).
	Result Kind = "result"
)

// Verdict is one oracle's answer about one case.
type Verdict struct {
	Oracle  string `json:"oracle"`
	Version string `json:"version,omitempty"`
	Case    string `json:"case"`
	Domain  string `json:"domain"`
	Kind    Kind   `json:"verdict"`
	// Rule names the rule that decided the verdict (spec oracles), or the
	// rule set that accepted the case.
	Rule string `json:"rule"`
	// Diagnostic is the oracle's message, verbatim for spec rules, normalized
	// for tools.
	Diagnostic string `json:"diagnostic"`
	// Value is a computed answer (an opcode index, a 64-bit descriptor, an
	// observed hash); empty when the verdict carries none.
	Value string `json:"value"`
}

// Clip bounds what the verdicts quote, in place (clip.Text of each
// diagnostic and value), and returns them: a verifier that prints 40 KiB
// lines, or a tool that prints megabytes, must not carry that through the
// queue, the coordinator's memory, the titles and the store. It is applied
// where verdicts leave an oracle (Local, a worker) and where a worker's
// arrive (the coordinator: a worker may not be ours).
func Clip(vs []Verdict) []Verdict {
	for i := range vs {
		vs[i].Diagnostic, vs[i].Value = clip.Text(vs[i].Diagnostic), clip.Text(vs[i].Value)
	}
	return vs
}

// Oracle judges cases. Judge returns exactly one verdict per case, in order.
// Its error is reserved for failures of legalfuzz itself (a harness bug, a
// context cancelled); a failing tool is an Error verdict, never an error.
type Oracle interface {
	Name() string
	Version() string
	// Judges reports whether the oracle can judge cases of the domain at all.
	Judges(domainName string) bool
	Judge(ctx context.Context, cases []domain.Case) ([]Verdict, error)
}

// Status describes an oracle found, or not found, on this machine.
type Status struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Available bool     `json:"available"`
	Path      string   `json:"path,omitempty"`
	Domains   []string `json:"domains"`
	Targets   []string `json:"targets,omitempty"`
	// Reason says why an unavailable oracle is missing; Install says how to
	// get it.
	Reason  string `json:"reason,omitempty"`
	Install string `json:"install,omitempty"`
	// Sampled says the oracle judges the cases it has room for (see
	// Info.Sampled).
	Sampled bool `json:"sampled,omitempty"`
	// SampleOneIn, above 1, narrows a sampled judge to one case in
	// SampleOneIn (InSample), in the domains another judge of its family
	// judges in full: the newest release beside a build of main
	// (toolchain.Sampling). Zero gives it every case it has room for.
	SampleOneIn int `json:"sample_one_in,omitempty"`
	// ReplayOnly says a campaign judges with the oracle only when it is
	// named: an older release's, kept to replay buckets (found-in).
	ReplayOnly bool `json:"replay_only,omitempty"`
	// Unspelled are the domains the oracle has a spelling of that its tool
	// does not parse (an MLIR release that spells an op otherwise), each
	// with the tool's words: unsupported, never verdicts.
	Unspelled map[string]string `json:"unspelled,omitempty"`
}

// InSample reports whether the case is among the one in n that a judge
// with Status.SampleOneIn n judges. It depends on the case's ID alone, so
// every coordinator, and a resumed campaign, draws the same sample.
func InSample(caseID string, n int) bool {
	if n <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(caseID))
	return h.Sum32()%uint32(n) == 0
}
