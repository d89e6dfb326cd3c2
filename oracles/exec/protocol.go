package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Protocol is the protocol version this legalfuzz speaks (docs/exec-oracle.md).
const Protocol = "legalfuzz-exec/1"

// protocolFamily prefixes every version of the protocol, so a verifier
// speaking another version gets a "version mismatch" rather than "not a
// verifier".
const protocolFamily = "legalfuzz-exec/"

// Hello is the verifier's first line: who it is and what it judges.
type Hello struct {
	Protocol string   `json:"protocol"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Domains  []string `json:"domains"`
}

// equal reports whether two hellos describe the same verifier; a restarted
// process must say the same hello as the first one.
func (h Hello) equal(o Hello) bool {
	return h.Protocol == o.Protocol && h.Name == o.Name && h.Version == o.Version && slices.Equal(h.Domains, o.Domains)
}

// parseHello decodes and validates a hello line. Unknown fields are ignored
// (forward compatibility); the known ones must be present and well typed.
func parseHello(line []byte) (Hello, error) {
	var h Hello
	if err := json.Unmarshal(line, &h); err != nil {
		return Hello{}, fmt.Errorf("hello is not a JSON object (%v): %q", err, clip(line))
	}
	switch {
	case h.Protocol == Protocol:
	case strings.HasPrefix(h.Protocol, protocolFamily):
		return Hello{}, fmt.Errorf("protocol version mismatch: verifier speaks %s, legalfuzz speaks %s", h.Protocol, Protocol)
	default:
		return Hello{}, fmt.Errorf("hello protocol %q, want %q", h.Protocol, Protocol)
	}
	if strings.TrimSpace(h.Name) == "" {
		return Hello{}, errors.New("hello has no name")
	}
	if strings.TrimSpace(h.Version) == "" {
		return Hello{}, errors.New("hello has no version")
	}
	if len(h.Domains) == 0 {
		return Hello{}, errors.New("hello lists no domains")
	}
	if slices.Contains(h.Domains, "") {
		return Hello{}, errors.New("hello lists an empty domain name")
	}
	for _, d := range h.Domains {
		if _, ok := fuzz.Lookup(d); !ok { // a typo, or a name made to reach a path ("../../etc")
			return Hello{}, fmt.Errorf("hello lists domain %q, which legalfuzz does not have (see legalfuzz domains)", clip([]byte(d)))
		}
	}
	return h, nil
}

// request is one batch sent to the verifier.
type request struct {
	Batch int64         `json:"batch"`
	Cases []requestCase `json:"cases"`
}

type requestCase struct {
	ID     string          `json:"id"`
	Domain string          `json:"domain"`
	Value  json.RawMessage `json:"value"`
}

// Request renders cases as the exact request line (newline included) that
// batch number batch sends, so a benchmark can time a verifier on its own.
func Request(batch int64, cases []domain.Case) ([]byte, error) {
	idx := make([]int, len(cases))
	for i := range idx {
		idx[i] = i
	}
	line, _, err := buildRequest(batch, cases, idx)
	return line, err
}

// buildRequest encodes the cases at idx as one request line (newline
// included) and returns the distinct IDs sent: a case that appears twice in
// a batch is sent once, since the verifier answers every id exactly once.
func buildRequest(batch int64, cases []domain.Case, idx []int) ([]byte, []string, error) {
	req := request{Batch: batch}
	seen := map[string]bool{}
	for _, i := range idx {
		c := cases[i]
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		v, err := json.Marshal(c.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("exec: marshal case %s (%s): %w", c.ID, c.Domain, err)
		}
		req.Cases = append(req.Cases, requestCase{ID: c.ID, Domain: c.Domain, Value: v})
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, nil, fmt.Errorf("exec: marshal batch: %w", err)
	}
	ids := make([]string, len(req.Cases))
	for i, rc := range req.Cases {
		ids[i] = rc.ID
	}
	return append(line, '\n'), ids, nil
}

// answer is the verifier's reply to one request. Batch is a pointer so a
// missing number is told apart from batch 0.
type answer struct {
	Batch    *int64          `json:"batch"`
	Verdicts []answerVerdict `json:"verdicts"`
}

type answerVerdict struct {
	ID         string `json:"id"`
	Verdict    string `json:"verdict"`
	Diagnostic string `json:"diagnostic"`
	Value      string `json:"value"`
}

// verdictKinds are the verdicts a verifier may give; timeout is measured by
// legalfuzz and result is not part of version 1.
var verdictKinds = map[string]oracles.Kind{
	"accept": oracles.Accept, "reject": oracles.Reject, "unsupported": oracles.Unsupported, "error": oracles.Error,
}

// outcome is what one case got: a verdict kind with the verifier's text, or
// an Error saying how the answer broke the protocol for it.
type outcome struct {
	kind       oracles.Kind
	diagnostic string
	value      string
}

// attribute maps an answer line to one outcome per requested id. The error
// is for an answer that cannot be attributed at all: not JSON,
// no or the wrong batch number. Otherwise every id gets an outcome, and
// problems lists each protocol violation (missing, duplicate or unknown ids,
// unknown verdicts): the affected cases get Error outcomes, the others
// keep theirs, and the process must be restarted.
func attribute(oracleName string, line []byte, batch int64, ids []string) (map[string]outcome, []string, error) {
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, nil, fmt.Errorf("not a JSON answer (%v): %q", err, clip(line))
	}
	if a.Batch == nil {
		return nil, nil, fmt.Errorf("answer has no batch number: %q", clip(line))
	}
	if *a.Batch != batch {
		return nil, nil, errors.New("answer is for another batch")
	}
	got := make(map[string][]answerVerdict, len(ids))
	for _, id := range ids {
		got[id] = nil
	}
	var problems []string
	for _, v := range a.Verdicts {
		if _, asked := got[v.ID]; !asked {
			problems = append(problems, fmt.Sprintf("verdict for unknown id %q", v.ID))
			continue
		}
		got[v.ID] = append(got[v.ID], v)
	}
	out := make(map[string]outcome, len(ids))
	for _, id := range ids {
		o, problem := outcomeOf(got[id])
		if problem != "" {
			o.diagnostic = oracleName + " answered garbage: " + problem
			problems = append(problems, fmt.Sprintf("case %s: %s", id, problem))
		}
		out[id] = o
	}
	return out, problems, nil
}

// outcomeOf turns the verdicts given for one id into its outcome; problem is
// non-empty when they break the protocol.
func outcomeOf(vs []answerVerdict) (outcome, string) {
	var problem string
	switch {
	case len(vs) == 0:
		problem = "no verdict for this case"
	case len(vs) > 1:
		problem = fmt.Sprintf("%d verdicts for this case", len(vs))
	default:
		kind, ok := verdictKinds[vs[0].Verdict]
		if ok {
			return outcome{kind: kind, diagnostic: vs[0].Diagnostic, value: vs[0].Value}, ""
		}
		problem = fmt.Sprintf("unknown verdict %q (want accept, reject, unsupported or error)", vs[0].Verdict)
	}
	return outcome{kind: oracles.Error}, problem
}

// clip shortens verifier output quoted in a diagnostic.
func clip(b []byte) string {
	const limit = 200
	if len(b) > limit {
		return string(b[:limit]) + "..."
	}
	return string(b)
}
