package mlir

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
// loses im2col or multicast has miscompiled silently. The patterns are
// what LLVM 19 and 22 print (checked on the seeds); LLVM 19 writes
// stmatrix's .num before .shape, which ptxas accepts.
func init() {
	wantFuncs[ldsm.Name] = wantsLDSM
	wantFuncs[cpasync.Name] = wantsCPAsync
	wantFuncs[tmamode.Name] = wantsTMAMode
}

// wantsLDSM: one ldmatrix or stmatrix of the value's matrix count, with
// .trans when the value transposes.
func wantsLDSM(dv domain.Value) []want {
	v, ok := dv.(ldsm.Value)
	if !ok {
		return nil
	}
	num, trans := fmt.Sprintf(`x%d`, v.NumMatrices), ""
	if v.Transpose {
		trans = `\.trans`
	}
	name, mods := "ldmatrix", `m8n8\.`+num+trans
	if v.Op == ldsm.Store {
		name, mods = "stmatrix", `(m8n8\.`+num+trans+`|`+num+trans+`\.m8n8)`
	}
	what := fmt.Sprintf("%s .m8n8.x%d", name, v.NumMatrices)
	if v.Transpose {
		what += ".trans"
	}
	return []want{{what: what, n: 1, why: "the op names one instruction",
		re: regexp.MustCompile(name + `\.sync\.aligned\.` + mods + `\.(shared(::cta)?\.)?b16 `)}}
}

// wantsCPAsync: one cp.async of the op's copy size in bytes.
func wantsCPAsync(dv domain.Value) []want {
	v, ok := dv.(cpasync.Value)
	if !ok {
		return nil
	}
	return []want{{what: fmt.Sprintf("cp.async of %d bytes", v.CPSize()), n: 1,
		why: fmt.Sprintf("%d %s elements", v.DstElements, v.Elem),
		re:  regexp.MustCompile(fmt.Sprintf(`cp\.async\.c[ag]\.shared(::cta)?\.global[.:a-zA-Z0-9_]* \[[%%a-z0-9_+]*\], \[[%%a-z0-9_+]*\], %d[,;]`, v.CPSize()))}}
}

// wantsTMAMode: one cp.async.bulk.tensor of the value's rank and direction,
// in im2col mode and with multicast when the value asks for them.
func wantsTMAMode(dv domain.Value) []want {
	v, ok := dv.(tmamode.Value)
	if !ok || v.Direction != tmamode.Load && v.Direction != tmamode.Store {
		return nil
	}
	dir := `shared::cluster\.global`
	if v.Direction == tmamode.Store {
		dir = `global\.shared::cta`
	}
	base := fmt.Sprintf(`cp\.async\.bulk\.tensor\.%dd\.%s`, v.Rank, dir)
	what := fmt.Sprintf("cp.async.bulk.tensor.%dd %s", v.Rank, v.Direction)
	ws := []want{{what: what, re: regexp.MustCompile(base), n: 1, why: "the op names one copy"}}
	if v.Direction == tmamode.Load && v.Mode == tmamode.Im2col {
		ws = append(ws, want{what: what + " .im2col", re: regexp.MustCompile(base + `[^;]*\.im2col`), n: 1, why: "the op has im2col offsets"})
	}
	if v.Multicast {
		ws = append(ws, want{what: what + " .multicast::cluster", re: regexp.MustCompile(base + `[^;]*\.multicast::cluster`), n: 1, why: "the op has a multicast mask"})
	}
	return ws
}
