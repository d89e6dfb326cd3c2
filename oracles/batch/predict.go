package batch

import (
	"encoding/json"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
)

// Predict is the verdict spec/ptxisa gives c: Accept or Reject, or "" when
// the set has no rules for c's domain. Oracles plan with History.Predict,
// which also knows what their tool does.
func Predict(c domain.Case) oracles.Kind {
	k, _ := predict(c)
	return k
}

// predict is spec/ptxisa's verdict on c and, for a reject, the rule it
// names.
func predict(c domain.Case) (oracles.Kind, string) {
	j, err := rules.JudgeValue(rules.PTXISA, c.Domain, c.Value)
	switch {
	case err != nil:
		return "", ""
	case j.Accept:
		return oracles.Accept, ""
	case j.Rule == nil:
		return oracles.Reject, ""
	}
	return oracles.Reject, j.Rule.ID
}

// History is what one tool has done with the cases spec/ptxisa rejects,
// rule by rule, kept with its probe answers (Probes.History), so that a
// worker's next campaign starts from what the last one learned. Many rules
// are about things a tool does not check (llc and ptxas accept a cp.async
// of any alignment, an ldmatrix of any result shape): planned as rejects,
// such cases cost a run each (llc) or a run again (ptxas). Once the tool
// has accepted most cases of a rule, its cases are expected accepted. It
// only shapes the plan: the tool's own output decides every verdict. A nil
// History predicts from spec/ptxisa alone and learns nothing.
type History struct {
	mu     sync.Mutex
	byRule map[string]*tally
	// store keeps the history on disk (Save); nil keeps it in memory.
	store *Probes
	dirty bool
}

// tally counts what the tool did with one rule's cases.
type tally struct {
	Accepted int `json:"accepted"`
	Refused  int `json:"refused"`
}

// historyKey is the history's key in its probe cache.
const historyKey = "history"

// loadHistory reads the history p keeps.
func loadHistory(p *Probes) *History {
	h := &History{store: p}
	if !p.Get(historyKey, &h.byRule) {
		h.byRule = nil
	}
	return h
}

// Save writes the history, when it changed, and the probe answers it is
// kept with to disk.
func (h *History) Save() {
	if h == nil || h.store == nil {
		return
	}
	h.mu.Lock()
	var raw []byte
	if h.dirty {
		raw, _ = json.Marshal(h.byRule) // a map of plain counts always marshals
		h.dirty = false
	}
	h.mu.Unlock()
	if raw != nil {
		h.store.Put(historyKey, json.RawMessage(raw))
	}
	h.store.Save()
}

// Predict is the verdict c is expected to get from the tool, and the rule
// spec/ptxisa rejects it for ("" when it does not), which the engine
// reports back to Observe with the tool's verdict.
func (h *History) Predict(c domain.Case) (oracles.Kind, string) {
	k, rule := predict(c)
	if h == nil || rule == "" {
		return k, rule
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.byRule[rule]; t != nil && t.Accepted > t.Refused {
		return oracles.Accept, rule
	}
	return k, rule
}

// Observe records the tool's verdict on a case spec/ptxisa rejected for
// rule.
func (h *History) Observe(rule string, k oracles.Kind) {
	if h == nil || rule == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byRule == nil {
		h.byRule = map[string]*tally{}
	}
	t := h.byRule[rule]
	if t == nil {
		t = &tally{}
		h.byRule[rule] = t
	}
	if k == oracles.Accept {
		t.Accepted++
	} else {
		t.Refused++
	}
	h.dirty = true
}
