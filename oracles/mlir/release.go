package mlir

import (
	"context"
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Name22 is the name of the oracle that runs MLIR 22 (mlir-opt-22,
// mlir-translate-22, llvm-link-22, llc-22) on the same renderings as MLIR
// 19: the newer release of the "mlir" family, which says whether a bug
// found with 19 is fixed.
const Name22 = oracles.MLIR22

// release is one MLIR release the oracle can run: its name and its tools.
type release struct {
	name                      string
	opt, translate, link, llc tool.Spec
	// unspelled says why a case's rendering (written for MLIR 19) is not
	// MLIR in this release, or "".
	unspelled func(domain.Case) string
	// vectorAsmOK: the release's PTX builder gives vector operands of
	// inline wgmma (f16 accumulators) real constraints; MLIR 19's writes
	// uninitialized bytes (see errJunkConstraint).
	vectorAsmOK bool
	llvm        nvptx
}

const install22 = "make oracles (Debian trixie mlir-22-tools and llvm-22 in a private root)"

func llvm22Spec(name, env string, files ...string) tool.Spec {
	return tool.LLVM(name, env, 22, install22, files...)
}

var (
	release19 = release{name: Name, opt: OptSpec, translate: TranslateSpec, link: LinkSpec, llc: LLCSpec, llvm: llvm19}
	release22 = release{name: Name22,
		opt:       llvm22Spec("mlir-opt", "LEGALFUZZ_MLIR_OPT22", "mlir-opt-22"),
		translate: llvm22Spec("mlir-translate", "LEGALFUZZ_MLIR_TRANSLATE22", "mlir-translate-22"),
		link:      llvm22Spec("llvm-link", "LEGALFUZZ_LLVM_LINK22", "llvm-link-22"),
		llc:       llvm22Spec("llc", "LEGALFUZZ_LLC22", "llc-22"),
		unspelled: unspelled22, vectorAsmOK: true, llvm: llvm22}
)

// unspelled22 names the renderings whose nvvm ops MLIR 22 spells
// otherwise (checked on mlir-opt-22 22.1.8): nvvm.stmatrix takes an
// eltType attribute ("'nvvm.stmatrix' op requires attribute 'eltType'")
// and nvvm.cp.async.bulk.tensor.shared.cluster.global a pointer in address
// space 7 ("Shared::cluster destination requires address-space 7."). Judged
// as written they would be MLIR 22 refusing our spelling, not the case.
func unspelled22(c domain.Case) string {
	switch v := c.Value.(type) {
	case tmamode.Value:
		return "MLIR 22's nvvm.cp.async.bulk.tensor.shared.cluster.global takes a shared::cluster pointer (address space 7); the rendering is MLIR 19's"
	case ldsm.Value:
		if v.Op == ldsm.Store {
			return "MLIR 22's nvvm.stmatrix takes an eltType attribute; the rendering is MLIR 19's"
		}
	}
	return ""
}

// Discover22 locates mlir-opt-22 and its lowering tools: the mlir22 oracle.
func Discover22(ctx context.Context) (*Oracle, oracles.Status) {
	return discoverRelease(ctx, release22)
}

// discoverRelease locates a release's mlir-opt and, when all are present, its
// lowering tools; the oracle lowers by default when it can.
func discoverRelease(ctx context.Context, r release) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: r.name, Domains: Domains(), Targets: r.llvm.targets(), Install: r.opt.Install}
	opt, err := tool.Locate(ctx, r.opt)
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o := New(opt)
	o.OracleName, o.unspelled, o.vectorAsmOK, o.llvm = r.name, r.unspelled, r.vectorAsmOK, r.llvm
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
	for _, r := range []release{release19, release22} {
		if r.name == oracle {
			return Tools{Opt: r.opt, Translate: r.translate, Link: r.link, LLC: r.llc}, true
		}
	}
	return Tools{}, false
}
