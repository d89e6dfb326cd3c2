// Package lower is the lowering under test: token waits to s_waitcnt with
// sequence-number tokens, as seed 000 proposes ("redefine the token
// abstraction as sequence-number / counter-threshold tokens, i.e. wait until
// counters <= captured value"). It is written the way a compiler would write
// it first, blind spots included, so that the model can find them:
//
//   - each operation counts on exactly one counter, seed 000's classes
//     VM / export / LGKM (so a GDS operation's expcnt side is forgotten);
//   - every counter is treated as decrementing in issue order (so SMEM, and
//     different LGKM kinds in flight together, are trusted to be ordered);
//   - thresholds are not clamped to the field widths;
//   - earlier waits are not taken into account (redundant waits are emitted).
//
// Do not fix these here: the campaign measures them.
package lower

import (
	"fmt"

	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
)

// CounterOf is the one counter the lowering believes an operation of kind k
// counts on: VMEM on vmcnt, exports on expcnt, and LDS, SMEM, GDS and
// messages on lgkmcnt ("LDS, GDS, Constant and Message count").
func CounterOf(k wc.Kind) wc.Counter {
	switch k {
	case wc.VMEMLoad, wc.VMEMStore:
		return wc.VM
	case wc.Export:
		return wc.Exp
	}
	return wc.LGKM
}

// Lower turns each wait of v, in order, into one s_waitcnt. Each counter has a
// sequence number, bumped by every operation on it; a token captures the
// number its operation took. A wait on tokens waits, on each counter a named
// token counts on, until the counter is at most "current number minus the
// token's captured number" — the operations of that counter issued after
// the token — taking the smallest over the named tokens. Counters no named
// token counts on stay at their maximum (not named in the s_waitcnt).
func Lower(v wc.Value) []wc.Waitcnt {
	var seq [wc.NumCounters]int
	var captured []int // per token, its counter's number after issuing it
	var out []wc.Waitcnt
	ops := v.Ops()
	for _, it := range v.Program() {
		if !it.Wait {
			c := CounterOf(it.Kind)
			seq[c]++
			captured = append(captured, seq[c])
			continue
		}
		var thr [wc.NumCounters]*int
		for _, t := range it.TokenList() {
			c := CounterOf(ops[t])
			n := seq[c] - captured[t]
			if thr[c] == nil || n < *thr[c] {
				thr[c] = &n
			}
		}
		w := wc.NoWait
		for c, n := range thr {
			if n != nil {
				w[c] = *n
			}
		}
		out = append(out, w)
	}
	return out
}

// WaitAll is seed 000's other discipline, "wait for all prior ops of class
// X": each counter a named token counts on (as Lower believes) goes to zero.
// It is the over-synchronization baseline.
func WaitAll(v wc.Value) []wc.Waitcnt {
	var out []wc.Waitcnt
	ops := v.Ops()
	for _, it := range v.Program() {
		if !it.Wait {
			continue
		}
		w := wc.NoWait
		for _, t := range it.TokenList() {
			w[CounterOf(ops[t])] = 0
		}
		out = append(out, w)
	}
	return out
}

// Asm renders the program with its s_waitcnts as gfx9 assembly for llvm-mc,
// one instruction per line: each operation as a representative instruction of
// its kind (token k loads into v[2+k] or s[4+k]), each wait as its s_waitcnt
// in llvm-mc's canonical text. waits must hold one s_waitcnt per wait.
func Asm(v wc.Value, waits []wc.Waitcnt) ([]string, error) {
	var lines []string
	tok, k := 0, 0
	for _, it := range v.Program() {
		if it.Wait {
			if k >= len(waits) {
				return nil, fmt.Errorf("lower: %d s_waitcnt for more waits", len(waits))
			}
			lines = append(lines, waits[k].String())
			k++
			continue
		}
		lines = append(lines, opAsm(it.Kind, tok))
		tok++
	}
	if k != len(waits) {
		return nil, fmt.Errorf("lower: %d s_waitcnt for %d waits", len(waits), k)
	}
	return lines, nil
}

// opAsm is one representative instruction of kind k for token tok.
func opAsm(k wc.Kind, tok int) string {
	switch k {
	case wc.VMEMLoad:
		return fmt.Sprintf("global_load_dword v%d, v[0:1], off", 2+tok)
	case wc.VMEMStore:
		return "global_store_dword v[0:1], v2, off"
	case wc.LDS:
		return fmt.Sprintf("ds_read_b32 v%d, v1", 2+tok)
	case wc.SMEM:
		return fmt.Sprintf("s_load_dword s%d, s[0:1], 0x0", 4+tok)
	case wc.GDS:
		return "ds_gws_sema_v gds"
	case wc.Message:
		return "s_sendmsg sendmsg(MSG_INTERRUPT)"
	case wc.Export:
		return "exp mrt0 v1, v1, v1, v1"
	}
	return fmt.Sprintf("; unknown kind %d", k)
}
