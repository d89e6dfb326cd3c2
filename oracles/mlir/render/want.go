package render

import (
	"regexp"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// Want is an instruction a case's op must lower to, and how many of it at
// least: fewer, or a smaller shape, is work the lowering dropped. The
// renderer of a domain says it, for it alone knows which op it wrote (a
// tile-level nvgpu.warpgroup.mma or one nvvm.wgmma.mma_async); the mlir
// oracle counts it in llc's PTX and a reproducer greps for it.
type Want struct {
	// What names the instruction for people: "wgmma.mma_async m64n128k16".
	What string
	// RE matches one instruction in the PTX.
	RE *regexp.Regexp
	// N is how many the PTX must hold at least.
	N int
	// Why says where N comes from.
	Why string
}

// wantFuncs says, per domain, what a case's PTX must hold; domains without
// one are not checked.
var wantFuncs = map[string]func(domain.Value) []Want{}

// Wants is what the case's PTX must hold, whichever release spelled it;
// nil for a domain whose PTX is not checked.
func Wants(c domain.Case) []Want {
	if f, ok := wantFuncs[c.Domain]; ok {
		return f(c.Value)
	}
	return nil
}
