package mlir

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
)

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
