// Package llvm is the llc oracle: cases rendered as LLVM IR modules that call
// NVVM intrinsics, one ptx_kernel function per case, compiled by llc for the
// case's own target. Each LLVM installation is an oracle ("llc@22",
// "llc@trunk") built from this one implementation, judging the same
// rendered IR wherever both can, so a disagreement between two of them is
// a finding of its own kind.
package llvm

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Variant is one installation's llc as the oracle names and renders for it.
type Variant struct {
	// Name is the oracle's name: "llc@22", "llc@trunk".
	Name string
	// Major is the LLVM major release the renderers target.
	Major int
}

// VariantOf is the llc oracle of an installation.
func VariantOf(in toolchain.Installation) Variant {
	return Variant{Name: oracles.Installed(oracles.LLC, in.Label), Major: in.Major}
}

// NoSymbolize keeps LLVM tools from symbolizing the stack dump of a crash.
const NoSymbolize = "LLVM_DISABLE_SYMBOLIZATION=1"

// DefaultTimeout bounds one llc process.
const DefaultTimeout = 60 * time.Second

// DefaultBatchSize is the most kernels put in one module. A clean module of
// 1,000 kernels compiles in about 0.3 s against about 20 ms per process; a
// failing kernel costs one more run for the kernels after it, and the chunk
// size adapts to how dense failures are (see judgeGroup).
const DefaultBatchSize = 256

// Oracle is one llc version judging rendered cases.
type Oracle struct {
	variant Variant
	tool    tool.Tool
	caps    caps
	// mu guards intrinsics.
	mu sync.Mutex
	// intrinsics are the names llc has compiled as intrinsics.
	intrinsics map[string]bool
	// nextID numbers the kernels, so that a module's names never clash.
	nextID atomic.Int64
	// probes is what the oracle learned of its llc: target probes and the
	// verdict history.
	probes *batch.Probes
	// inst is the installation discovery found llc in; zero for an oracle
	// made of a tool alone (New).
	inst toolchain.Installation
	// Timeout bounds one llc process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most cases per module; zero means DefaultBatchSize,
	// and 1 judges each case in its own process.
	BatchSize int
}

// Discover locates the installation's llc and asks it which processors and PTX
// versions it knows. A missing tool gives a nil oracle and a Status saying
// why and how to install it.
func Discover(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	v := VariantOf(in)
	st := oracles.Status{Name: v.Name, Domains: v.domains(), Install: "make oracles, or --toolchain DIR naming an LLVM build"}
	t, err := in.Locate(ctx, "llc")
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o, err := New(ctx, v, t)
	if err != nil {
		st.Version, st.Path, st.Reason = t.Version, t.Path, err.Error()
		return nil, st
	}
	o.inst = in
	st.Available, st.Version, st.Path = true, o.Version(), t.Path
	st.Targets = o.caps.targets()
	return o, st
}

// Installation is the installation the oracle runs (toolchain.Installed).
func (o *Oracle) Installation() toolchain.Installation { return o.inst }

// New wraps an already located llc (a fake one in tests), probing what it knows.
func New(ctx context.Context, v Variant, t tool.Tool) (*Oracle, error) {
	probes := batch.OpenProbes(v.Name, t.Version, t.Path)
	c, err := probeCaps(ctx, t, probes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Name, err)
	}
	// A failing llc aborts with a stack dump; symbolizing it (llc 19 finds
	// llvm-symbolizer) doubles the run's time, and no verdict reads it.
	t.Env = append(slices.Clip(t.Env), NoSymbolize)
	return &Oracle{variant: v, tool: t, caps: c, probes: probes}, nil
}

// Name is llc@LABEL.
func (o *Oracle) Name() string { return o.variant.Name }

// Tool is the llc the oracle runs, with the environment it runs it in.
func (o *Oracle) Tool() tool.Tool { return o.tool }

// Version is the tool's LLVM version, e.g. "22.1.8".
func (o *Oracle) Version() string { return o.tool.Version }

// Judges reports whether this LLVM version has a renderer for the domain.
func (o *Oracle) Judges(domainName string) bool {
	return slices.Contains(o.variant.domains(), domainName)
}

// domains lists the domains the variant renders, sorted.
func (v Variant) domains() []string {
	var ds []string
	for name, r := range renderers {
		if r.minMajor <= v.Major {
			ds = append(ds, name)
		}
	}
	sort.Strings(ds)
	return ds
}

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

func (o *Oracle) batchSize() int { return cmp.Or(o.BatchSize, DefaultBatchSize) }
