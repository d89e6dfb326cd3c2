package mlir

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// want is an instruction a case's op must lower to, and how many of it at
// least: fewer, or a smaller shape, is work the lowering dropped.
type want struct {
	// what names the instruction for people: "wgmma.mma_async m64n128k16".
	what string
	re   *regexp.Regexp
	n    int
	// why says where n comes from.
	why string
}

// wantFuncs says, per domain, what a case's PTX must hold; domains without
// one are not checked.
var wantFuncs = map[string]func(domain.Value) []want{}

// wantsOf is what the case's PTX must hold.
func wantsOf(c domain.Case) []want {
	if f, ok := wantFuncs[c.Domain]; ok {
		return f(c.Value)
	}
	return nil
}

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
	for _, w := range wantsOf(c) {
		out = append(out, Want{What: w.what, Pattern: strings.ReplaceAll(w.re.String(), "(?:", "("), N: w.n})
	}
	return out
}

// checkEmitted reports the first want the entry's PTX fails: a lowering
// that exits 0 everywhere and emits fewer or smaller instructions than the
// op asked for miscompiled silently.
func checkEmitted(c domain.Case, entry string) error {
	for _, w := range wantsOf(c) {
		if got := len(w.re.FindAllStringIndex(entry, -1)); got < w.n {
			return &faultError{stage: oracles.Stage{Name: stagePTX, Fault: oracles.Dropped},
				msg: fmt.Sprintf("ptx: %d %s where the op needs %d (%s)", got, w.what, w.n, w.why)}
		}
	}
	return nil
}
