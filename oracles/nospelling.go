package oracles

import (
	"errors"
	"fmt"
	"strings"
)

// Gap says whose a missing spelling is: what render coverage counts, so a
// report can tell a tool's limits from work left to us.
type Gap string

const (
	// ToolLacks: the tool cannot express the value at all (a target it does
	// not know, an op or a form it does not have).
	ToolLacks Gap = "tool"
	// OursGap: the tool could express the value and our renderer does not
	// spell it (yet): work for us, counted as such.
	OursGap Gap = "ours"
	// Deferred: another oracle's verdict decides the case (a pass oracle
	// judges only what the whole chain lowered): judged elsewhere, not a
	// spelling gap.
	Deferred Gap = "deferred"
)

// Reason is one declared kind of missing spelling: a field of the value (or
// "target", "domain") and a class of its values, e.g. {layout, col} or
// {target, sm_100a-unknown}. A renderer declares its reasons once
// (Reasons), and every Unsupported verdict it gives names one, so render
// coverage can be counted per reason.
type Reason struct {
	Field string
	Class string
	Gap   Gap
}

// NoSpelling is the one error every renderer returns for a value its tool
// cannot be asked about: the verdict is Unsupported, never Reject, with
// the reason in its Rule (Rule) and Detail as its diagnostic.
type NoSpelling struct {
	Reason
	Detail string
}

func (e *NoSpelling) Error() string { return e.Detail }

// unspelledPrefix starts the Rule of an Unsupported verdict that names its
// reason.
const unspelledPrefix = "unspelled."

// Rule is the verdict Rule naming the reason: "unspelled.GAP:FIELD=CLASS".
func (r Reason) Rule() string { return unspelledPrefix + string(r.Gap) + ":" + r.Field + "=" + r.Class }

// ParseReason reads a Rule written by Reason.Rule.
func ParseReason(rule string) (Reason, bool) {
	rest, ok := strings.CutPrefix(rule, unspelledPrefix)
	if !ok {
		return Reason{}, false
	}
	gap, fc, ok1 := strings.Cut(rest, ":")
	field, class, ok2 := strings.Cut(fc, "=")
	if !ok1 || !ok2 {
		return Reason{}, false
	}
	return Reason{Field: field, Class: class, Gap: Gap(gap)}, true
}

// AsNoSpelling reports whether err is (or wraps) a NoSpelling, and returns it.
func AsNoSpelling(err error) (*NoSpelling, bool) {
	var ns *NoSpelling
	if errors.As(err, &ns) {
		return ns, true
	}
	return nil, false
}

// Reasons are a renderer's declared reasons. New looks a reason's gap up
// here; one not declared gets no gap, which the renderer's tests refuse
// (Declared).
type Reasons []Reason

// New returns the NoSpelling of the declared reason (field, class), with
// the detail in words.
func (rs Reasons) New(field, class, format string, args ...any) *NoSpelling {
	r := Reason{Field: field, Class: class}
	for _, d := range rs {
		if d.Field == field && d.Class == class {
			r = d
		}
	}
	return &NoSpelling{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// Declared reports whether the reason is one of rs, gap included.
func (rs Reasons) Declared(r Reason) bool {
	for _, d := range rs {
		if d == r {
			return true
		}
	}
	return false
}

// Unsupported sets the verdict to Unsupported for the reason.
func (v *Verdict) Unsupported(ns *NoSpelling) {
	v.Kind, v.Rule, v.Diagnostic = Unsupported, ns.Rule(), ns.Detail
}
