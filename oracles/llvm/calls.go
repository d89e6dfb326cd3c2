package llvm

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Calls names the intrinsics a case's kernel calls, in call order, or says
// why LLVM cannot spell the case (a NoSpelling). It is the renderers' word
// on a spelling: corpus/upstream reads intrinsic calls of LLVM's own tests
// back into values and keeps a value only when Calls spells it with the
// call it was read from.
func Calls(c domain.Case) ([]string, error) {
	r, ok := renderers[c.Domain]
	if !ok || r.render == nil {
		return nil, reasons.New("domain", "no-renderer", "llc renders no %s cases", c.Domain)
	}
	k := newKernel("c.")
	if err := r.render(c.Value, k); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Domain, err)
	}
	return k.uses, nil
}
