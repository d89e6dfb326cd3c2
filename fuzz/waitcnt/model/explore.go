package model

import (
	"errors"
	"fmt"
	"math/bits"

	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
)

// ErrTooBig is returned when exploration would pass its state bound.
var ErrTooBig = errors.New("model: state space over the bound")

// MaxExploreEvents bounds the programs Explore accepts: a state is the
// program position and the set of completed events, in one word.
const MaxExploreEvents = 48

// Exploration is what the brute-force search found.
type Exploration struct {
	// States and Transitions count the distinct states reached and the steps
	// (issue, completion, s_waitcnt return) taken between them.
	States, Transitions int
	// Incomplete has, per wait, the tokens some reachable state leaves
	// incomplete when the wait's s_waitcnt returns.
	Incomplete []uint32
	// Traces has, per wait with an incomplete token, the shortest sequence of
	// steps reaching it.
	Traces map[int][]string
}

// state is one explicit state: the position of the next item and the
// completed events.
type state struct {
	pc   int
	done uint64
}

// explorer holds the per-program tables of the search.
type explorer struct {
	p        *Program
	emitted  []wc.Waitcnt
	pred     []int    // previous event of the same ordered stream, or -1
	issued   []uint64 // events issued before position pc
	counter  [wc.NumCounters]uint64
	tokenEvs []uint64
	waitIdx  map[int]int // program position -> wait number
}

// Explore enumerates every interleaving of issues, completions and s_waitcnt
// returns allowed by the model, up to maxStates distinct states, and reports
// for each wait the tokens it may leave incomplete. It is the brute-force
// check of Check.
func (p *Program) Explore(emitted []wc.Waitcnt, maxStates int) (Exploration, error) {
	if len(emitted) != len(p.WaitPos) {
		return Exploration{}, fmt.Errorf("model: %d s_waitcnt for %d waits", len(emitted), len(p.WaitPos))
	}
	if len(p.Events) > MaxExploreEvents {
		return Exploration{}, fmt.Errorf("%w: %d events", ErrTooBig, len(p.Events))
	}
	x := p.tables(emitted)
	ex := Exploration{Incomplete: make([]uint32, len(p.WaitPos)), Traces: map[int][]string{}}
	type node struct {
		s      state
		parent int
		step   action
	}
	nodes := make([]node, 1, 256)
	nodes[0] = node{s: state{}, parent: -1}
	seen := make(map[state]bool, 256)
	seen[state{}] = true
	var buf []succ
	for i := 0; i < len(nodes); i++ {
		buf = x.successors(nodes[i].s, buf[:0])
		for _, nx := range buf {
			ex.Transitions++
			if nx.wait >= 0 && nx.incomplete != 0 && ex.Incomplete[nx.wait]&nx.incomplete != nx.incomplete {
				ex.Incomplete[nx.wait] |= nx.incomplete
				if _, ok := ex.Traces[nx.wait]; !ok {
					ex.Traces[nx.wait] = x.trace(func(j int) (int, action) { return nodes[j].parent, nodes[j].step }, i, nx.step)
				}
			}
			if seen[nx.s] {
				continue
			}
			if len(nodes) >= maxStates {
				return ex, fmt.Errorf("%w (%d states)", ErrTooBig, maxStates)
			}
			seen[nx.s] = true
			nodes = append(nodes, node{s: nx.s, parent: i, step: nx.step})
		}
	}
	ex.States = len(nodes)
	return ex, nil
}

// trace follows parents from node i back to the start: at(j) is node j's
// parent and the step that reached it.
func (x *explorer) trace(at func(int) (int, action), i int, last action) []string {
	steps := []string{x.describe(last)}
	for j := i; j > 0; {
		parent, step := at(j)
		steps = append(steps, x.describe(step))
		j = parent
	}
	for a, b := 0, len(steps)-1; a < b; a, b = a+1, b-1 {
		steps[a], steps[b] = steps[b], steps[a]
	}
	return steps
}

func (p *Program) tables(emitted []wc.Waitcnt) *explorer {
	x := &explorer{p: p, emitted: emitted, pred: make([]int, len(p.Events)),
		issued: make([]uint64, int(p.V.N)+1), tokenEvs: make([]uint64, len(p.Kinds)), waitIdx: map[int]int{}}
	last := map[Stream]int{}
	for e, ev := range p.Events {
		x.pred[e] = -1
		if prev, ok := last[ev.Stream]; ok && ev.Stream.Ordered() {
			x.pred[e] = prev
		}
		last[ev.Stream] = e
		x.counter[ev.Counter] |= 1 << e
		x.tokenEvs[ev.Token] |= 1 << e
	}
	for pc := range x.issued {
		for e, ev := range p.Events {
			if ev.Item < pc {
				x.issued[pc] |= 1 << e
			}
		}
	}
	for k, pos := range p.WaitPos {
		x.waitIdx[pos] = k
	}
	return x
}

// action is one step: an operation issues (at position arg), an event
// completes (event arg), or an s_waitcnt returns (wait number arg).
type action struct {
	kind uint8
	arg  int
}

const (
	actIssue uint8 = iota
	actComplete
	actReturn
)

// describe spells a step for a trace.
func (x *explorer) describe(a action) string {
	switch a.kind {
	case actIssue:
		return "issue " + x.opName(a.arg)
	case actComplete:
		ev := x.p.Events[a.arg]
		return fmt.Sprintf("t%d (%s) completes on %s", ev.Token, x.p.Kinds[ev.Token], ev.Counter)
	}
	return x.emitted[a.arg].String() + " returns"
}

// succ is one step from a state.
type succ struct {
	s          state
	step       action
	wait       int    // the wait number when the step is an s_waitcnt returning, else -1
	incomplete uint32 // named tokens incomplete when it returns
}

// successors appends the steps from s to out.
func (x *explorer) successors(s state, out []succ) []succ {
	outstanding := x.issued[s.pc] &^ s.done
	for m := outstanding; m != 0; m &= m - 1 {
		e := bits.TrailingZeros64(m)
		if pr := x.pred[e]; pr >= 0 && s.done&(1<<pr) == 0 {
			continue
		}
		out = append(out, succ{s: state{s.pc, s.done | 1<<e}, wait: -1, step: action{actComplete, e}})
	}
	if s.pc >= int(x.p.V.N) {
		return out
	}
	it := x.p.V.Items[s.pc]
	next := state{s.pc + 1, s.done}
	if !it.Wait {
		return append(out, succ{s: next, wait: -1, step: action{actIssue, s.pc}})
	}
	k := x.waitIdx[s.pc]
	thr := x.emitted[k]
	for c := range wc.Counter(wc.NumCounters) {
		if bits.OnesCount64(outstanding&x.counter[c]) > thr[c] {
			return out // the s_waitcnt cannot return yet
		}
	}
	var incomplete uint32
	for _, t := range it.TokenList() {
		if x.tokenEvs[t]&outstanding != 0 {
			incomplete |= 1 << t
		}
	}
	return append(out, succ{s: next, wait: k, incomplete: incomplete, step: action{actReturn, k}})
}

// opName names the operation at position pc, e.g. "t1 (smem)".
func (x *explorer) opName(pc int) string {
	tok := 0
	for i := range pc {
		if !x.p.V.Items[i].Wait {
			tok++
		}
	}
	return fmt.Sprintf("t%d (%s)", tok, x.p.Kinds[tok])
}

// CheckClosedForm checks the model exactly: on a program of at most
// maxEvents events, the closed-form soundness verdict of Check names the
// same tokens as Explore's brute force over every completion order; an
// exploration over maxStates is skipped.
func (p *Program) CheckClosedForm(waits []wc.Waitcnt, maxEvents, maxStates int) error {
	res, err := p.Check(waits)
	if err != nil {
		return err
	}
	if len(p.Events) > maxEvents {
		return nil
	}
	ex, err := p.Explore(waits, maxStates)
	if errors.Is(err, ErrTooBig) {
		return nil
	}
	if err != nil {
		return err
	}
	for k, w := range res.Waits {
		var closed uint32
		for _, m := range w.Misses {
			closed |= 1 << m.Token
		}
		if closed != ex.Incomplete[k] {
			return fmt.Errorf("wait at item %d (%v): closed form leaves tokens %b incomplete, brute force %b (%v)",
				w.Item, w.Emitted, closed, ex.Incomplete[k], ex.Traces[k])
		}
	}
	return nil
}
