package llvm

import (
	"fmt"
	"math"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

// renderer writes one domain's values as NVVM intrinsic calls.
type renderer struct {
	// minMajor is the first LLVM major version with the domain's intrinsics.
	minMajor int
	// missing says why older versions cannot judge the domain.
	missing string
	// render fills k with v's calls; a NoSpelling means the value
	// cannot be written in LLVM's IR. It is nil for a domain whose minMajor
	// is never.
	render func(v domain.Value, k *kernel) error
}

// never is the minMajor of a domain no LLVM version can spell.
const never = math.MaxInt

// renderers maps domain names to their renderers. A domain with minMajor
// never is not judged by any llc (Judges says false); a case sent anyway
// is unsupported with the missing reason.
var renderers = map[string]renderer{
	kindword.Name:   {22, "LLVM 19 has no tcgen05.mma intrinsics (they arrived in LLVM 20-22)", typed(renderKindWord)},
	cpasync.Name:    {19, "", typed(renderCPAsync)},
	ldsm.Name:       {19, "", typed(renderLDSM)},
	mma.Name:        {19, "", typed(renderMMA)},
	tmamode.Name:    {22, "LLVM 19 has no cp.async.bulk.tensor intrinsics (they arrived after LLVM 19)", typed(renderTMAMode)},
	blockscale.Name: {22, "LLVM 19 has no mma.block_scale intrinsics (they arrived after LLVM 19)", typed(renderBlockScaleMMA)},
	wgmma.Name: {never, "LLVM has no wgmma.mma_async intrinsic (LLVM 19 and 22 have only wgmma.fence, " +
		"commit_group and wait_group; MLIR's NVVM dialect lowers wgmma.mma_async to inline PTX)", nil},
}

// noSpelling is the NoSpelling of one of the renderers' declared reasons
// (reasons): the value cannot be written in an LLVM version's IR, and the
// case is unsupported, never rejected.
func noSpelling(field, class, format string, args ...any) error {
	return reasons.New(field, class, format, args...)
}

// typed makes a render func of a function of one domain's values, V; a
// value of another type is a harness bug (a case filed under the wrong
// domain), not a verdict.
func typed[V domain.Value](r func(v V, k *kernel) error) func(domain.Value, *kernel) error {
	return func(dv domain.Value, k *kernel) error {
		v, err := domain.As[V](dv)
		if err != nil {
			return fmt.Errorf("renderer: %w", err)
		}
		return r(v, k)
	}
}
