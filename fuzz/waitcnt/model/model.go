// Package model is the reference semantics of gfx9 wait counters (gfx942 and
// its gfx9 siblings) that judges s_waitcnt lowerings: which counters each
// operation counts on, which completions are ordered, whether an s_waitcnt can
// return while a token it waits for is still outstanding, and the largest
// thresholds that are still sound.
//
// Semantics (sources: AMD CDNA3 ISA "Data dependency resolution"; LLVM
// SIInsertWaitcnts, whose comments and counterOutOfOrder encode them;
// reference/ptx-facts.md "AMD gfx942 s_waitcnt"):
//
//   - An operation is one or two events, each on one counter: VMEM loads and
//     stores one vmcnt event (gfx9 has no vscnt: stores count on vmcnt); LDS,
//     SMEM and messages one lgkmcnt event; an export one expcnt event; a GDS
//     operation one lgkmcnt event (its data) and one expcnt event (the lock on
//     its VGPRs, LLVM's GDS_GPR_LOCK). A token is complete when all its events
//     are.
//   - Events of one stream complete in issue order; streams are independent.
//     The streams: all VMEM (loads and stores together: LLVM "on targets
//     without VScnt ... do not go out of order with respect to each other"),
//     LDS, GDS data, messages, exports, GDS locks. SMEM events are unordered
//     even among themselves ("scalar memory read always can go out of order").
//     So events of different kinds on one counter (mixed LGKM kinds, exports
//     with GDS) complete in any relative order.
//   - An s_waitcnt returns in any state where each counter's number of
//     outstanding events is at or below its threshold.
//   - Issue never stalls: the model does not bound outstanding events by the
//     field widths. That only adds states, so every unsound verdict of the
//     hardware is one of the model's (the model is conservative).
//
// A wait is sound when no reachable state lets its s_waitcnt return with a
// named token incomplete. The closed form: the fewest events that must still
// be outstanding while event e is are e and the later events of its stream
// (up(e)); so e can be outstanding when wait W returns iff, for W and every
// earlier wait issued after e, up(e) issued before that wait fits the wait's
// threshold on e's counter. Explore checks this by enumerating every
// interleaving of issues and completions.
package model

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
)

// Stream is a class of events that complete in issue order, except SMEM,
// whose events complete in any order.
type Stream uint8

const (
	StreamVMEM Stream = iota
	StreamLDS
	StreamSMEM
	StreamGDS
	StreamMsg
	StreamExport
	StreamGDSLock
)

// Streams spells the streams.
var Streams = domain.Enum{"vmem", "lds", "smem", "gds", "msg", "export", "gds-lock"}

func (s Stream) String() string { return Streams.Name(int(s)) }

// Enum names the values of Stream: package desc and mutation read its size.
func (Stream) Enum() domain.Enum { return Streams }

// Ordered reports whether the stream's events complete in issue order.
func (s Stream) Ordered() bool { return s != StreamSMEM }

// EventKind is one counter decrement an operation causes.
type EventKind struct {
	Counter wc.Counter
	Stream  Stream
}

// EventsOf lists what an operation of kind k counts on.
func EventsOf(k wc.Kind) []EventKind {
	switch k {
	case wc.VMEMLoad, wc.VMEMStore:
		return []EventKind{{wc.VM, StreamVMEM}}
	case wc.LDS:
		return []EventKind{{wc.LGKM, StreamLDS}}
	case wc.SMEM:
		return []EventKind{{wc.LGKM, StreamSMEM}}
	case wc.GDS:
		return []EventKind{{wc.LGKM, StreamGDS}, {wc.Exp, StreamGDSLock}}
	case wc.Message:
		return []EventKind{{wc.LGKM, StreamMsg}}
	case wc.Export:
		return []EventKind{{wc.Exp, StreamExport}}
	}
	return nil
}

// Event is one counter decrement of one operation of a program.
type Event struct {
	EventKind
	Token int // the operation's token
	Item  int // the operation's position in the program
}

// Program is a value prepared for the model: its events and its waits.
type Program struct {
	V       wc.Value
	Events  []Event
	Kinds   []wc.Kind // per token
	WaitPos []int     // program positions of the waits, in order
	// tokenEvents lists each token's events.
	tokenEvents [][]int
}

// New prepares v.
func New(v wc.Value) *Program {
	p := &Program{V: v}
	for i, it := range v.Program() {
		if it.Wait {
			p.WaitPos = append(p.WaitPos, i)
			continue
		}
		tok := len(p.Kinds)
		p.Kinds = append(p.Kinds, it.Kind)
		var evs []int
		for _, ek := range EventsOf(it.Kind) {
			evs = append(evs, len(p.Events))
			p.Events = append(p.Events, Event{EventKind: ek, Token: tok, Item: i})
		}
		p.tokenEvents = append(p.tokenEvents, evs)
	}
	return p
}

// up lists the events that must still be outstanding while event e is, among
// those issued before position pos: e and, for an ordered stream, the later
// events of its stream.
func (p *Program) up(e, pos int) []int {
	out := []int{e}
	if !p.Events[e].Stream.Ordered() {
		return out
	}
	for x := e + 1; x < len(p.Events) && p.Events[x].Item < pos; x++ {
		if p.Events[x].Stream == p.Events[e].Stream {
			out = append(out, x)
		}
	}
	return out
}

// Miss is a named token that may still be incomplete when a wait returns.
type Miss struct {
	Token   int
	Kind    wc.Kind
	Counter wc.Counter
	// Stream is the stream of the event that may be outstanding.
	Stream Stream
	// Count is the counter's value in the witness state, where only the
	// event and the later events of its stream are outstanding.
	Count int
	// Outstanding lists the tokens outstanding in the witness state.
	Outstanding []int
}

// WaitResult is the model's answer about one wait.
type WaitResult struct {
	// Item is the wait's position in the program.
	Item int
	// Tokens are the tokens the wait names.
	Tokens []int
	// Emitted is the s_waitcnt judged.
	Emitted wc.Waitcnt
	// Best holds the largest sound thresholds, given the emitted earlier
	// waits; a counter with nothing to wait for is at its maximum.
	Best wc.Waitcnt
	// Needed marks the counters on which some named token may still be
	// outstanding after the earlier waits: the counters the wait must name.
	Needed [wc.NumCounters]bool
	// Misses are the named tokens that may be incomplete when it returns.
	Misses []Miss
}

// Sound reports whether every named token is complete whenever the wait returns.
func (w WaitResult) Sound() bool { return len(w.Misses) == 0 }

// Excess is, per needed counter, how many more outstanding operations the
// best sound threshold would have allowed: over-synchronization. Zero where
// the emitted threshold is at or above the best (sound or not) and on
// counters not needed (see Unneeded).
func (w WaitResult) Excess() wc.Waitcnt {
	var x wc.Waitcnt
	for c := range w.Emitted {
		if w.Needed[c] && w.Emitted[c] >= 0 && w.Emitted[c] < w.Best[c] {
			x[c] = w.Best[c] - w.Emitted[c]
		}
	}
	return x
}

// Unneeded lists the counters the emitted s_waitcnt names (below their
// maximum) although nothing named is outstanding on them any more.
func (w WaitResult) Unneeded() []wc.Counter {
	var cs []wc.Counter
	for c := range w.Emitted {
		if !w.Needed[c] && w.Emitted[c] < wc.Counter(c).Max() {
			cs = append(cs, wc.Counter(c))
		}
	}
	return cs
}

// Redundant reports whether the earlier waits already completed every named
// token, so that the s_waitcnt emitted for this wait is not needed at all.
func (w WaitResult) Redundant() bool { return w.Needed == [wc.NumCounters]bool{} }

// Result is the model's answer about a lowered program.
type Result struct {
	Waits []WaitResult
}

// Sound reports whether every wait is sound.
func (r Result) Sound() bool {
	for _, w := range r.Waits {
		if !w.Sound() {
			return false
		}
	}
	return true
}

// Check judges emitted, one s_waitcnt per wait of the program in order, in
// closed form.
func (p *Program) Check(emitted []wc.Waitcnt) (Result, error) {
	if len(emitted) != len(p.WaitPos) {
		return Result{}, fmt.Errorf("model: %d s_waitcnt for %d waits", len(emitted), len(p.WaitPos))
	}
	var r Result
	for k, pos := range p.WaitPos {
		it := p.V.Items[pos]
		w := WaitResult{Item: pos, Tokens: it.TokenList(), Emitted: emitted[k], Best: wc.NoWait}
		for _, t := range w.Tokens {
			for _, e := range p.tokenEvents[t] {
				if p.coveredBefore(e, k, emitted) {
					continue
				}
				c := p.Events[e].Counter
				w.Needed[c] = true
				up := p.up(e, pos)
				w.Best[c] = min(w.Best[c], len(up)-1)
				if len(up) <= emitted[k][c] {
					w.Misses = append(w.Misses, p.miss(e, up))
				}
			}
		}
		r.Waits = append(r.Waits, w)
	}
	return r, nil
}

// coveredBefore reports whether one of the waits before wait k, issued after
// event e, already guarantees e complete.
func (p *Program) coveredBefore(e, k int, emitted []wc.Waitcnt) bool {
	ev := p.Events[e]
	for j := range k {
		pos := p.WaitPos[j]
		if pos > ev.Item && len(p.up(e, pos)) > emitted[j][ev.Counter] {
			return true
		}
	}
	return false
}

func (p *Program) miss(e int, up []int) Miss {
	ev := p.Events[e]
	m := Miss{Token: ev.Token, Kind: p.Kinds[ev.Token], Counter: ev.Counter, Stream: ev.Stream, Count: len(up)}
	for _, x := range up {
		m.Outstanding = append(m.Outstanding, p.Events[x].Token)
	}
	return m
}

// Describe spells a miss for a diagnostic, e.g. "t0 (lds) may be outstanding
// with lgkmcnt=1: only t0 outstanding, every other operation complete".
func (m Miss) Describe() string {
	var ts []string
	for _, t := range m.Outstanding {
		ts = append(ts, fmt.Sprintf("t%d", t))
	}
	return fmt.Sprintf("t%d (%s) may be outstanding with %s=%d: only %s outstanding on %s, every other operation complete",
		m.Token, m.Kind, m.Counter, m.Count, strings.Join(ts, ","), m.Counter)
}

// Cause names why a missed event can still be outstanding while its counter
// is at the threshold: "gds-expcnt" (a GDS operation's VGPR lock on expcnt),
// "smem-unordered" (SMEM completes in any order), or "other-stream" (an
// ordered stream's event whose threshold is at least its stream's
// outstanding count: the threshold counted younger events of other streams
// on the counter — mixed LGKM kinds, exports with GDS — which may complete
// first, or is simply too large).
func (m Miss) Cause() string {
	switch {
	case m.Stream == StreamGDSLock:
		return "gds-expcnt"
	case m.Stream == StreamSMEM:
		return "smem-unordered"
	}
	return "other-stream"
}
