package render

import (
	"fmt"
	"maps"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
)

// Spelling is how the MLIR releases from since on spell the cases, where
// they differ from MLIR 19: an installation is judged with the spelling
// of its major release, so a new release or a build of main needs a new
// entry only where its ops changed. The zero Spelling is MLIR 19's.
type Spelling struct {
	// since is the oldest major release that spells so.
	since int
	// renderers replaces, per domain, MLIR 19's rendering (the renderers
	// table): where these releases' nvvm ops take other operands or
	// attributes, MLIR 19's text would be the release refusing our
	// spelling, not judging the case.
	renderers map[string]Renderer
	// vectorAsmOK: the release's PTX builder gives vector operands of
	// inline wgmma (f16 accumulators) real constraints; MLIR 19's writes
	// uninitialized bytes (see package mlir's errJunkConstraint).
	vectorAsmOK bool
	// targets are the targets the release's llc knows.
	targets targetRange
	// alone says the renderers are the whole table: the mlir-nvvm
	// oracle spells only the domains it has nvvm ops for.
	alone bool
}

// spellings are MLIR's spellings, oldest first. From 22 on, the nvvm ops
// differ from 19's for TMA copies (a shared::cluster destination in
// address space 7, the mode as an attribute, prefetch, gather4/scatter4,
// im2col::w, .cta_group) and stmatrix (eltType and shape attributes), and
// only 22 has tcgen05.mma and sm_120's block-scaled mma, checked on
// mlir-opt-22 22.1.8. From 23 on, the block-scaled tcgen05.mma ops take
// their kind as a #nvvm.tcgen05_mma_kind (checked on mlir-opt-23 23.1.4
// and the 2026-10-25 trunk snapshot), and nvgpu.mma.sync checks its
// mmaShape's length before reading it, so shorter arrays are asked about
// (renderMMA23). The ops whose custom form changed
// after 23 (attributes as keywords) are spelled in the generic form every
// release reads (genericOp), so they need no entry of their own.
var spellings = []Spelling{
	{since: 0, targets: llvm19Targets},
	{since: 22, vectorAsmOK: true, targets: llvm22Targets, renderers: renderers22},
	{since: 23, vectorAsmOK: true, targets: llvm22Targets,
		renderers: overriding(renderers22, map[string]Renderer{kindword.Name: typed(renderKindWord23), mma.Name: typed(renderMMA23)})},
}

// renderers22 are MLIR 22's renderers, where they differ from 19's.
var renderers22 = map[string]Renderer{tmamode.Name: typed(renderTMAMode22), ldsm.Name: ldsmRenderer(renderLdmatrix, renderStmatrix22),
	kindword.Name: typed(renderKindWord22), blockscale.Name: typed(renderBlockScale22)}

// overriding is an older release's renderers with some replaced.
func overriding(older, newer map[string]Renderer) map[string]Renderer {
	out := maps.Clone(older)
	maps.Copy(out, newer)
	return out
}

// Of is the spelling of an LLVM major release.
func Of(major int) Spelling {
	sp := spellings[0]
	for _, s := range spellings {
		if s.since <= major {
			sp = s
		}
	}
	return sp
}

// NVVM is how the mlir-nvvm oracle of a release spells the cases: its
// nvvm ops alone (nvvmRenderers), on the release's targets.
func NVVM(major int) Spelling {
	sp := Of(major)
	sp.renderers, sp.alone = nvvmRenderers(major), true
	return sp
}

// Spellings are MLIR's spellings, oldest first: the renderers' tests and
// the probe's ask each of them.
func Spellings() []Spelling { return slices.Clone(spellings) }

// Installed is the spelling with its messages naming the installation's
// major release ("LLVM 23"), which may be newer than the spelling's own.
func (sp Spelling) Installed(major int) Spelling {
	sp.targets.llvm = fmt.Sprintf("LLVM %d", major)
	return sp
}

// VectorAsmOK says the release's PTX builder gives vector operands of
// inline wgmma (f16 accumulators) real constraints: the lowering checks
// MLIR 19's inline assembly for the uninitialized bytes it writes instead.
func (sp Spelling) VectorAsmOK() bool { return sp.vectorAsmOK }

// Targets lists the targets the release's llc knows among legalfuzz's.
func (sp Spelling) Targets() []string { return sp.targetRange().targets() }

// targetRange is the release's targets: LLVM 19's unless set.
func (sp Spelling) targetRange() targetRange {
	if sp.targets.llvm == "" {
		return llvm19Targets
	}
	return sp.targets
}

// Domains lists the domains the spelling renders: MLIR 19's and those a
// release's renderers add (MLIR 22 renders tcgen05.mma and the
// block-scaled mma, which 19 has no ops for), or the spelling's alone.
func (sp Spelling) Domains() []string {
	all := maps.Clone(sp.renderers)
	if !sp.alone {
		all = maps.Clone(renderers)
		maps.Copy(all, sp.renderers)
	}
	return slices.Sorted(maps.Keys(all))
}

// Renders reports whether the spelling has a renderer of the domain.
func (sp Spelling) Renders(domainName string) bool {
	_, ok := sp.rendererFor(domainName)
	return ok
}

// With is the spelling with the domain rendered by r instead: a test's
// way to hand a release a spelling it cannot read.
func (sp Spelling) With(domainName string, r Renderer) Spelling {
	rs := maps.Clone(sp.renderers)
	if rs == nil {
		rs = map[string]Renderer{}
	}
	rs[domainName] = r
	sp.renderers = rs
	return sp
}
