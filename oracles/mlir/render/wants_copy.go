package render

import (
	"fmt"
	"regexp"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

// The data movement ops' emitted-PTX checks: a lowering that exits 0
// everywhere and moves fewer matrices or bytes, drops the transpose, or
// loses the mode, multicast or CTA group has miscompiled silently. The patterns are
// what LLVM 19 and 22 print (checked on the seeds); LLVM 19 writes
// stmatrix's .num before .shape, which ptxas accepts.
func init() {
	wantFuncs[ldsm.Name] = wantsLDSM
	wantFuncs[cpasync.Name] = wantsCPAsync
	wantFuncs[tmamode.Name] = wantsTMAMode
}

// wantsLDSM: one ldmatrix or stmatrix of the value's matrix count, with
// .trans when the value transposes.
func wantsLDSM(dv domain.Value) []Want {
	v, ok := dv.(ldsm.Value)
	if !ok {
		return nil
	}
	num, trans := fmt.Sprintf(`x%d`, v.NumMatrices), ""
	if v.Transpose {
		trans = `\.trans`
	}
	// nvgpu.ldmatrix moves every element size as .m8n8 .b16; nvvm's ops
	// (MLIR 22's stmatrix, the mlir-nvvm oracle's ldmatrix) name the
	// value's shape and element type.
	name, shape, typ := "ldmatrix", v.Shape.String(), regexp.QuoteMeta("b16")
	if t, ok := stmatrixElt22[v.Size]; ok {
		typ = "(b16|" + regexp.QuoteMeta(t) + ")"
	}
	mods := shape + `\.` + num + trans
	if v.Op == ldsm.Store {
		name = "stmatrix"
		mods = `(` + shape + `\.` + num + trans + `|` + num + trans + `\.` + shape + `)`
	}
	what := fmt.Sprintf("%s .%s.x%d", name, shape, v.NumMatrices)
	if v.Transpose {
		what += ".trans"
	}
	return []Want{{What: what, N: 1, Why: "the op names one instruction",
		RE: regexp.MustCompile(name + `\.sync\.aligned\.` + mods + `\.(shared(::cta)?\.)?` + typ + ` `)}}
}

// wantsCPAsync: one cp.async of the op's copy size in bytes.
func wantsCPAsync(dv domain.Value) []Want {
	v, ok := dv.(cpasync.Value)
	if !ok {
		return nil
	}
	return []Want{{What: fmt.Sprintf("cp.async of %d bytes", v.CPSize()), N: 1,
		Why: fmt.Sprintf("%d %s elements", v.DstElements, v.Elem),
		RE:  regexp.MustCompile(fmt.Sprintf(`cp\.async\.c[ag]\.shared(::cta)?\.global[.:a-zA-Z0-9_]* \[[%%a-z0-9_+]*\], \[[%%a-z0-9_+]*\], %d[,;]`, v.CPSize()))}}
}

// wantsTMAMode: one cp.async.bulk.tensor (or L2 prefetch) of the value's
// rank, direction and destination, in the value's mode (tile, which LLVM 19
// leaves out, excepted), with multicast and .cta_group when the value asks
// for them.
func wantsTMAMode(dv domain.Value) []Want {
	v, ok := dv.(tmamode.Value)
	if !ok {
		return nil
	}
	var base, what string
	switch v.Direction {
	case tmamode.Load:
		base = fmt.Sprintf(`cp\.async\.bulk\.tensor\.%dd\.%s\.global`, v.Rank, regexp.QuoteMeta(v.Dst.String()))
		what = fmt.Sprintf("cp.async.bulk.tensor.%dd load into .%s", v.Rank, v.Dst)
	case tmamode.Store:
		base = fmt.Sprintf(`cp\.async\.bulk\.tensor\.%dd\.global\.shared::cta`, v.Rank)
		what = fmt.Sprintf("cp.async.bulk.tensor.%dd store", v.Rank)
	case tmamode.Prefetch:
		base = fmt.Sprintf(`cp\.async\.bulk\.prefetch\.tensor\.%dd\.L2\.global`, v.Rank)
		what = fmt.Sprintf("cp.async.bulk.prefetch.tensor.%dd", v.Rank)
	default:
		return nil
	}
	ws := []Want{{What: what, RE: regexp.MustCompile(base), N: 1, Why: "the op names one copy"}}
	with := func(qual, why string) {
		ws = append(ws, Want{What: what + " ." + qual, N: 1, Why: why,
			RE: regexp.MustCompile(base + `[^;]*\.` + regexp.QuoteMeta(qual) + `[.\s]`)})
	}
	if v.Mode != tmamode.Tile {
		with(v.Mode.String(), "the op names the mode")
	}
	if v.Multicast {
		with("multicast::cluster", "the op has a multicast mask")
	}
	if v.CTAGroup != 0 {
		with(fmt.Sprintf("cta_group::%d", v.CTAGroup), "the op names a CTA group")
	}
	return ws
}
