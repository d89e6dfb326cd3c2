package mlir

import (
	"context"
	"fmt"
	"slices"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// NewRelease returns a verifier-only oracle over opt that renders as the
// given LLVM major release spells, and names its verdicts name: an
// mlir-nvvm@LABEL name spells with the release's nvvm ops.
func NewRelease(name string, major int, opt tool.Tool) *Oracle {
	o := New(opt)
	o.OracleName, o.spelling = name, render.Of(major)
	if oracles.Base(name) == NVVMName {
		o.spelling = render.NVVM(major)
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
// on (render.NVVMSince).
func DiscoverNVVM(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	name := oracles.Installed(NVVMName, in.Label)
	if in.Major < render.NVVMSince {
		return nil, oracles.Status{Name: name, Domains: render.NVVM(render.NVVMSince).Domains(),
			Reason:  fmt.Sprintf("LLVM %d's nvvm ops lack the shapes and types the cases name; mlir-nvvm judges LLVM %d and later", in.Major, render.NVVMSince),
			Install: "--toolchain DIR naming an LLVM build of release 22 or later"}
	}
	return discoverAs(ctx, in, name)
}

// discoverAs locates an installation's tools for the oracle named name.
func discoverAs(ctx context.Context, in toolchain.Installation, name string) (*Oracle, oracles.Status) {
	sp := NewRelease(name, in.Major, tool.Tool{}).spelling
	st := oracles.Status{Name: name, Domains: sp.Domains(), Targets: sp.Targets(),
		Install: "make oracles, or --toolchain DIR naming an LLVM build with MLIR"}
	opt, err := in.Locate(ctx, "mlir-opt")
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o := NewRelease(name, in.Major, opt)
	o.inst = in
	o.spelling = o.spelling.Installed(in.Major)
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
