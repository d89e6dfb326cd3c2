package fuzz

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/rules/rulestest"
)

var waitcntWitnesses = flag.String("waitcnt.witnesses", "",
	"FuzzWaitcnt appends every program on which the lowering under test is unsound, minimized, to this JSON-lines file")

// FuzzWaitcnt decodes a token program, checks the domain invariants and
// judges it with both rule sets (Check, whose self-check compares the
// model's closed form with brute force on small programs), then checks the
// lowering and the model against each other: the verdict of spec/ptxisa is
// what the model says of the lowering, the best thresholds fit their fields,
// are sound, and cannot be raised. A lowering that is unsound on a program
// is a finding, not a failure: with -waitcnt.witnesses its minimized
// witness is recorded.
func FuzzWaitcnt(f *testing.F) {
	addSeeds(f, waitcnt.Seeds())
	f.Fuzz(func(t *testing.T, data []byte) {
		dv, err := waitcnt.Decode(data)
		if err != nil {
			return
		}
		judgments, err := rulestest.CheckInvariants(waitcnt.Domain, dv)
		if err != nil {
			t.Fatal(err)
		}
		v := dv.(waitcnt.Value)
		if err := checkWaitcntLowering(v, judgments[rules.PTXISA]); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
	})
}

// bruteForceEvents bounds the programs whose best thresholds FuzzWaitcnt
// also confirms by brute force (one exploration per wait and counter).
const bruteForceEvents = 8

// checkWaitcntLowering checks what one program's lowering and model must keep.
func checkWaitcntLowering(v waitcnt.Value, ptxisa rules.Judgment) error {
	waits := lower.Lower(v)
	p := model.New(v)
	res, err := p.Check(waits)
	if err != nil {
		return err
	}
	inRange := true
	for _, w := range waits {
		inRange = inRange && w.InRange()
	}
	exportOK := v.GPU.HasExport() || !slices.Contains(v.Ops(), waitcnt.Export)
	if want := exportOK && inRange && res.Sound(); ptxisa.Accept != want {
		return fmt.Errorf("spec/ptxisa accept=%v (%s), but exports ok=%v, in range=%v, sound=%v",
			ptxisa.Accept, ptxisa.Diagnostic, exportOK, inRange, res.Sound())
	}
	for k, w := range res.Waits {
		if err := checkBest(p, waits, k, w); err != nil {
			return err
		}
	}
	if !res.Sound() && exportOK && inRange {
		recordWitness(v, ptxisa)
	}
	return nil
}

// checkBest checks wait k's best thresholds: in range; an in-range emitted
// wait is at or below best exactly when it is sound; best sound; best+1 on any counter
// that waits unsound. Small programs are confirmed by brute force.
func checkBest(p *model.Program, waits []waitcnt.Waitcnt, k int, w model.WaitResult) error {
	if !w.Best.InRange() {
		return fmt.Errorf("wait %d: best %v out of range", k, w.Best)
	}
	below := true
	for c := range w.Emitted {
		below = below && w.Emitted[c] <= w.Best[c]
	}
	if w.Emitted.InRange() && below != w.Sound() {
		return fmt.Errorf("wait %d: emitted %v <= best %v is %v, but sound is %v", k, w.Emitted, w.Best, below, w.Sound())
	}
	alt := append([]waitcnt.Waitcnt{}, waits...)
	try := func(thr waitcnt.Waitcnt) (bool, error) {
		alt[k] = thr
		r, err := p.Check(alt)
		if err != nil {
			return false, err
		}
		sound := r.Waits[k].Sound()
		if len(p.Events) <= bruteForceEvents {
			ex, err := p.Explore(alt, 1<<16)
			if err != nil {
				return false, err
			}
			if (ex.Incomplete[k] == 0) != sound {
				return false, fmt.Errorf("wait %d with %v: closed form sound=%v, brute force leaves %b (%v)",
					k, thr, sound, ex.Incomplete[k], ex.Traces[k])
			}
		}
		return sound, nil
	}
	if ok, err := try(w.Best); err != nil || !ok {
		return fmt.Errorf("wait %d: best %v not sound: %v", k, w.Best, err)
	}
	for c := range w.Best {
		if w.Best[c] == waitcnt.Counter(c).Max() {
			continue
		}
		up := w.Best
		up[c]++
		if ok, err := try(up); err != nil || ok {
			return fmt.Errorf("wait %d: best %v is not the largest: %v is sound too (%v)", k, w.Best, up, err)
		}
	}
	return nil
}

// witnessSeen dedups recorded witnesses within one fuzzing process.
var witnessSeen sync.Map

// recordWitness minimizes an unsound program, keeping the cause of its first
// miss, and appends it to the -waitcnt.witnesses file.
func recordWitness(v waitcnt.Value, j rules.Judgment) {
	if *waitcntWitnesses == "" {
		return
	}
	cause := firstCause(v)
	min := minimizeWaitcnt(v, func(c waitcnt.Value) bool { return firstCause(c) == cause })
	if _, dup := witnessSeen.LoadOrStore(string(min.Encode()), true); dup {
		return
	}
	line, err := json.Marshal(struct {
		Cause    string        `json:"cause"`
		Program  waitcnt.Value `json:"program"`
		Lowered  string        `json:"lowered"`
		Original string        `json:"original"`
	}{cause, min, waitcnt.Format(lower.Lower(min)), v.String()})
	if err != nil {
		return
	}
	fh, err := os.OpenFile(*waitcntWitnesses, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer fh.Close()
	fh.Write(append(line, '\n')) // one write per line: appends from parallel workers do not interleave
}

// firstCause is the cause of the first miss of the lowering on v, or "".
func firstCause(v waitcnt.Value) string {
	res, err := model.New(v).Check(lower.Lower(v))
	if err != nil {
		return ""
	}
	for _, w := range res.Waits {
		if len(w.Misses) > 0 {
			return w.Misses[0].Cause()
		}
	}
	return ""
}

// minimizeWaitcnt removes items while keep holds, until no single removal does.
func minimizeWaitcnt(v waitcnt.Value, keep func(waitcnt.Value) bool) waitcnt.Value {
	for changed := true; changed; {
		changed = false
		for i := int(v.N) - 1; i >= 0; i-- {
			if c := v.Without(i); keep(c) {
				v, changed = c, true
			}
		}
	}
	return v
}
