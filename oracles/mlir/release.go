package mlir

import (
	"context"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Name22 is the name of the oracle that runs MLIR 22 (mlir-opt-22,
// mlir-translate-22, llvm-link-22, llc-22) on MLIR 19's renderings, except
// the domains whose nvvm ops MLIR 22 spells otherwise (release22's
// renderers): the newer release of the "mlir" family, which says whether
// a bug found with 19 is fixed.
const Name22 = oracles.MLIR22

// release is one MLIR release the oracle can run: its name, its tools, and
// the renderings it spells otherwise than MLIR 19.
type release struct {
	name                      string
	opt, translate, link, llc tool.Spec
	// renderers replaces, per domain, MLIR 19's rendering (the renderers
	// table) with this release's: where its nvvm ops take other operands
	// or attributes, MLIR 19's text would be the release refusing our
	// spelling, not judging the case.
	renderers map[string]renderer
	// vectorAsmOK: the release's PTX builder gives vector operands of
	// inline wgmma (f16 accumulators) real constraints; MLIR 19's writes
	// uninitialized bytes (see errJunkConstraint).
	vectorAsmOK bool
	// targets are the targets the release's llc knows.
	targets targetRange
}

const install22 = "make oracles (Debian trixie mlir-22-tools and llvm-22 in a private root)"

func llvm22Spec(name, env string, files ...string) tool.Spec {
	return tool.LLVM(name, env, 22, install22, files...)
}

var (
	release19 = release{name: Name, opt: OptSpec, translate: TranslateSpec, link: LinkSpec, llc: LLCSpec, targets: llvm19Targets}
	// release22's nvvm ops differ from 19's for TMA copies (a
	// shared::cluster destination in address space 7, the mode as an
	// attribute, prefetch, gather4/scatter4, im2col::w, .cta_group) and
	// stmatrix (eltType and shape attributes), and only 22 has tcgen05.mma
	// and sm_120's block-scaled mma, checked on mlir-opt-22 22.1.8.
	release22 = release{name: Name22,
		opt:       llvm22Spec("mlir-opt", "LEGALFUZZ_MLIR_OPT22", "mlir-opt-22"),
		translate: llvm22Spec("mlir-translate", "LEGALFUZZ_MLIR_TRANSLATE22", "mlir-translate-22"),
		link:      llvm22Spec("llvm-link", "LEGALFUZZ_LLVM_LINK22", "llvm-link-22"),
		llc:       llvm22Spec("llc", "LEGALFUZZ_LLC22", "llc-22"),
		renderers: map[string]renderer{tmamode.Name: typed(renderTMAMode22), ldsm.Name: ldsmRenderer(renderStmatrix22),
			kindword.Name: typed(renderKindWord22), blockscale.Name: typed(renderBlockScale22)},
		vectorAsmOK: true, targets: llvm22Targets}
)

// releases are the MLIR releases the oracle runs, oldest first.
var releases = []release{release19, release22}

// NewRelease returns a verifier-only oracle over opt that renders and
// names its verdicts as the named release (mlir or mlir22) does; false for
// any other name.
func NewRelease(name string, opt tool.Tool) (*Oracle, bool) {
	for _, r := range releases {
		if r.name == name {
			return r.oracle(opt), true
		}
	}
	return nil, false
}

// oracle is a verifier-only oracle of the release over opt.
func (r release) oracle(opt tool.Tool) *Oracle {
	o := New(opt)
	o.OracleName, o.overrides, o.vectorAsmOK, o.targets = r.name, r.renderers, r.vectorAsmOK, r.targets
	return o
}

// Discover22 locates mlir-opt-22 and its lowering tools: the mlir22 oracle.
func Discover22(ctx context.Context) (*Oracle, oracles.Status) {
	return discoverRelease(ctx, release22)
}

// discoverRelease locates a release's mlir-opt and, when all are present, its
// lowering tools; the oracle lowers by default when it can.
func discoverRelease(ctx context.Context, r release) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: r.name, Domains: domainsWith(r.renderers), Targets: r.targets.targets(), Install: r.opt.Install}
	opt, err := tool.Locate(ctx, r.opt)
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o := r.oracle(opt)
	if l, err := discoverLowering(ctx, r); err == nil {
		o.Lower = l
	}
	st.Available, st.Path, st.Version = true, opt.Path, o.Version()
	return o, st
}

// discoverLowering locates a release's mlir-translate, llvm-link and llc
// (required) and ptxas (optional).
func discoverLowering(ctx context.Context, r release) (*Lowering, error) {
	var l Lowering
	for _, t := range []struct {
		dst  *tool.Tool
		spec tool.Spec
	}{{&l.Translate, r.translate}, {&l.Link, r.link}, {&l.LLC, r.llc}} {
		found, err := tool.Locate(ctx, t.spec)
		if err != nil {
			return nil, fmt.Errorf("%s lowering: %w", r.name, err)
		}
		*t.dst = found
	}
	if p, err := tool.Locate(ctx, PtxasSpec); err == nil {
		l.Ptxas = p
	}
	return &l, nil
}

// Tools are the tools an MLIR oracle runs, as a reproducer names them.
type Tools struct{ Opt, Translate, Link, LLC tool.Spec }

// ToolsOf returns the tools of the named MLIR oracle (mlir or mlir22); false
// for any other oracle.
func ToolsOf(oracle string) (Tools, bool) {
	for _, r := range releases {
		if r.name == oracle {
			return Tools{Opt: r.opt, Translate: r.translate, Link: r.link, LLC: r.llc}, true
		}
	}
	return Tools{}, false
}
