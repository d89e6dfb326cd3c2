package mlir

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// spelling is how the MLIR releases from since on spell the cases, where
// they differ from MLIR 19: an installation is judged with the spelling
// of its major release, so a new release or a build of main needs a new
// entry only where its ops changed.
type spelling struct {
	// since is the oldest major release that spells so.
	since int
	// renderers replaces, per domain, MLIR 19's rendering (the renderers
	// table): where these releases' nvvm ops take other operands or
	// attributes, MLIR 19's text would be the release refusing our
	// spelling, not judging the case.
	renderers map[string]renderer
	// vectorAsmOK: the release's PTX builder gives vector operands of
	// inline wgmma (f16 accumulators) real constraints; MLIR 19's writes
	// uninitialized bytes (see errJunkConstraint).
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
var spellings = []spelling{
	{since: 0, targets: llvm19Targets},
	{since: 22, vectorAsmOK: true, targets: llvm22Targets, renderers: renderers22},
	{since: 23, vectorAsmOK: true, targets: llvm22Targets,
		renderers: overriding(renderers22, map[string]renderer{kindword.Name: typed(renderKindWord23), mma.Name: typed(renderMMA23)})},
}

// renderers22 are MLIR 22's renderers, where they differ from 19's.
var renderers22 = map[string]renderer{tmamode.Name: typed(renderTMAMode22), ldsm.Name: ldsmRenderer(renderLdmatrix, renderStmatrix22),
	kindword.Name: typed(renderKindWord22), blockscale.Name: typed(renderBlockScale22)}

// overriding is an older release's renderers with some replaced.
func overriding(older, newer map[string]renderer) map[string]renderer {
	out := maps.Clone(older)
	maps.Copy(out, newer)
	return out
}

// spellingOf is the spelling of an LLVM major release.
func spellingOf(major int) spelling {
	sp := spellings[0]
	for _, s := range spellings {
		if s.since <= major {
			sp = s
		}
	}
	return sp
}

// nvvmSpelling is how the mlir-nvvm oracle of a release spells the
// cases: its nvvm ops alone (nvvmRenderers), on the release's targets.
func nvvmSpelling(major int) spelling {
	sp := spellingOf(major)
	sp.renderers, sp.alone = nvvmRenderers(major), true
	return sp
}

// NewRelease returns a verifier-only oracle over opt that renders as the
// given LLVM major release spells, and names its verdicts name: an
// mlir-nvvm@LABEL name spells with the release's nvvm ops.
func NewRelease(name string, major int, opt tool.Tool) *Oracle {
	o := New(opt)
	o.OracleName, o.spelling = name, spellingOf(major)
	if oracles.Base(name) == NVVMName {
		o.spelling = nvvmSpelling(major)
	}
	return o
}

// Discover locates the installation's mlir-opt and, when all are present,
// its lowering tools: the mlir@LABEL oracle, which lowers when it can.
func Discover(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	return discoverAs(ctx, in, oracles.Installed(Name, in.Label))
}

// DiscoverNVVM is Discover for the mlir-nvvm@LABEL oracle, which judges
// the cases spelled with the nvvm ops the nvgpu ops lower to, from MLIR 22
// on (nvvmSince).
func DiscoverNVVM(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	name := oracles.Installed(NVVMName, in.Label)
	if in.Major < nvvmSince {
		return nil, oracles.Status{Name: name, Domains: domainsOf(nvvmSpelling(nvvmSince)),
			Reason:  fmt.Sprintf("LLVM %d's nvvm ops lack the shapes and types the cases name; mlir-nvvm judges LLVM %d and later", in.Major, nvvmSince),
			Install: "--toolchain DIR naming an LLVM build of release 22 or later"}
	}
	return discoverAs(ctx, in, name)
}

// discoverAs locates an installation's tools for the oracle named name.
func discoverAs(ctx context.Context, in toolchain.Installation, name string) (*Oracle, oracles.Status) {
	sp := NewRelease(name, in.Major, tool.Tool{}).spelling
	st := oracles.Status{Name: name, Domains: domainsOf(sp), Targets: sp.targets.targets(),
		Install: "make oracles, or --toolchain DIR naming an LLVM build with MLIR"}
	opt, err := in.Locate(ctx, "mlir-opt")
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o := NewRelease(name, in.Major, opt)
	o.inst = in
	o.spelling.targets.llvm = fmt.Sprintf("LLVM %d", in.Major)
	cannot, err := o.unspelled(ctx)
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o.cannotParse, st.Unspelled = cannot, cannot
	st.Domains = slices.DeleteFunc(st.Domains, func(d string) bool { return cannot[d] != "" })
	if l, err := discoverLowering(ctx, in); err == nil {
		o.Lower = l
	}
	st.Available, st.Path, st.Version = true, opt.Path, o.Version()
	return o, st
}

// discoverLowering locates an installation's mlir-translate, llvm-link and
// llc (required) and ptxas (optional).
func discoverLowering(ctx context.Context, in toolchain.Installation) (*Lowering, error) {
	var l Lowering
	for _, t := range []struct {
		dst  *tool.Tool
		name string
	}{{&l.Translate, "mlir-translate"}, {&l.Link, "llvm-link"}, {&l.LLC, "llc"}} {
		found, err := in.Locate(ctx, t.name)
		if err != nil {
			return nil, fmt.Errorf("lowering: %w", err)
		}
		*t.dst = found
	}
	if p, err := tool.Locate(ctx, PtxasSpec); err == nil {
		l.Ptxas = p
	}
	return &l, nil
}

// Tools are the tools an MLIR oracle runs, as a reproducer finds them.
type Tools struct{ Opt, Translate, Link, LLC tool.Spec }

// ToolsOf returns the tools of an installation's mlir oracle.
func ToolsOf(in toolchain.Installation) Tools {
	return Tools{Opt: in.Spec("mlir-opt"), Translate: in.Spec("mlir-translate"), Link: in.Spec("llvm-link"), LLC: in.Spec("llc")}
}
