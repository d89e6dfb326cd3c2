package mlir

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
)

// Want is an instruction a case's PTX must hold at least N times, as a
// reproducer checks it: Pattern is an extended regular expression (GNU
// grep -E) that matches one instruction.
type Want struct {
	What, Pattern string
	N             int
}

// Wants lists what the case's PTX must hold: the check behind a ptx/dropped
// finding, for a reproducer to run on the tools' output.
func Wants(c domain.Case) []Want {
	var out []Want
	for _, w := range render.Wants(c) {
		out = append(out, Want{What: w.What, Pattern: strings.ReplaceAll(w.RE.String(), "(?:", "("), N: w.N})
	}
	return out
}

// checkEmitted reports the first want the entry's PTX fails: a lowering
// that exits 0 everywhere and emits fewer or smaller instructions than the
// op asked for miscompiled silently.
func checkEmitted(c domain.Case, entry string) error {
	for _, w := range render.Wants(c) {
		if got := len(w.RE.FindAllStringIndex(entry, -1)); got < w.N {
			return &faultError{stage: oracles.Stage{Name: stagePTX, Fault: oracles.Dropped},
				msg: fmt.Sprintf("ptx: %d %s where the op needs %d (%s)", got, w.What, w.N, w.Why)}
		}
	}
	return nil
}
