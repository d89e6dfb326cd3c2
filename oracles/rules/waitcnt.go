package rules

import (
	"fmt"

	wc "github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/lower"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt/model"
)

func init() {
	register(waitcntSeed, waitcntPTXISA)
	registerSelfCheck(wc.Name, checkWaitcnt)
}

const seed000AMD = "seed 000, Claim Verification Matrix (AMD portability row), Hardware Mismatch 4, Fatal Flaw 2"

// loweredValue is the accept value of both rule sets: the lowering under
// test's s_waitcnts, each with the SIMM16 operand of legalfuzz's encoder.
func loweredValue(v wc.Value) string { return wc.Format(lower.Lower(v)) }

// waitcntSeed is seed 000's AMD claim as a verifier: a token wait is not
// representable by a counter threshold unless the waits are restricted to
// "all prior operations of the class" (or serialized). Its accept value is the
// seed's proposed lowering, sequence-number tokens.
var waitcntSeed = &Ladder[wc.Value]{Set: Seed, Domain: wc.Name,
	Value: loweredValue,
	Checks: []Check[wc.Value]{
		{Rule: seedRule(wc.Name, "1-counter-not-handle",
			"AMD S_WAITCNT is inherently counter-based, not a capability handle to a specific transfer", seed000AMD,
			"the gfx9 model (LLVM SIInsertWaitcnts relies on it): VMEM loads and stores share one in-order vmcnt stream "+
				"and LDS, GDS and messages each complete in order, so vmcnt(N)/lgkmcnt(N) leave exactly the N youngest transfers "+
				"of such a stream in flight; the claim holds for SMEM and for mixed LGKM kinds"),
			Fires:  func(v wc.Value) bool { _, ok := inFlightYounger(v); return ok },
			Detail: func(v wc.Value) string { d, _ := inFlightYounger(v); return ": " + d }},
	},
}

// inFlightYounger finds a wait that names a token while a younger operation
// of the same counter class (as the seed classes them: VM / export / LGKM)
// was issued before the wait, is not named by it and was not named by an
// earlier wait issued after it: the wait would have to single out one
// transfer and leave a younger one in flight.
func inFlightYounger(v wc.Value) (string, bool) {
	ops := v.Ops()
	waited := uint32(0) // tokens named by some wait so far
	tok := 0
	for i, it := range v.Program() {
		if !it.Wait {
			tok++
			continue
		}
		for _, t := range it.TokenList() {
			c := lower.CounterOf(ops[t])
			for u := t + 1; u < tok; u++ {
				if lower.CounterOf(ops[u]) == c && (it.Tokens|waited)&(1<<u) == 0 {
					return fmt.Sprintf("the wait at item %d names t%d (%s) while t%d (%s) stays in flight on %s",
						i, t, ops[t], u, ops[u], c), true
				}
			}
		}
		waited |= it.Tokens
	}
	return "", false
}

// checkWaitcnt checks the encoder and the model exactly: every lowered
// s_waitcnt that fits its fields encodes, decodes and parses back (in every
// spelling llvm-mc documents), and on programs small enough the closed-form
// soundness verdict names the same tokens as the brute-force exploration of
// every completion order.
func checkWaitcnt(val wc.Value) error {
	waits := lower.Lower(val)
	for _, w := range waits {
		if err := w.CheckEncoding(); err != nil {
			return err
		}
	}
	return model.New(val).CheckClosedForm(waits, selfCheckEvents, selfCheckStates)
}

// The self-check explores programs of at most selfCheckEvents events, up to
// selfCheckStates states; larger ones are checked by FuzzWaitcnt's cheaper
// closed form only.
const (
	selfCheckEvents = 12
	selfCheckStates = 1 << 16
)
