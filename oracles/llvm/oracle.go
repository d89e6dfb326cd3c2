// Package llvm is the llc oracle: cases rendered as LLVM IR modules that call
// NVVM intrinsics, one ptx_kernel function per case, compiled by llc for the
// case's own target. Two LLVM versions are two oracles ("llc19", "llc22")
// built from this one implementation, judging the same rendered IR wherever
// both can, so a disagreement between them is a finding of its own kind.
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
)

// Variant is one LLVM major version's llc.
type Variant struct {
	// Name is the oracle's name: "llc19" or "llc22".
	Name string
	// Major is the LLVM major version the renderers target.
	Major int
	Spec  tool.Spec
}

// LLC19 is Debian bookworm's llc 19; it knows NVPTX up to sm_90a and PTX 8.5.
var LLC19 = Variant{Name: oracles.LLC19, Major: 19, Spec: llcSpec(oracles.LLC19, 19, "LEGALFUZZ_LLC19", "llc-19", "llc")}

// LLC22 is Debian trixie's llc 22 (tcgen05, sm_100a and newer).
var LLC22 = Variant{Name: oracles.LLC22, Major: 22, Spec: llcSpec(oracles.LLC22, 22, "LEGALFUZZ_LLC22", "llc-22")}

// Variants lists both llc oracles, oldest first.
var Variants = []Variant{LLC19, LLC22}

func llcSpec(name string, major int, env string, files ...string) tool.Spec {
	return tool.LLVM(name, env, major, "make oracles", files...)
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
	// Timeout bounds one llc process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most cases per module; zero means DefaultBatchSize,
	// and 1 judges each case in its own process.
	BatchSize int
}

// Discover locates the variant's llc and asks it which processors and PTX
// versions it knows. A missing tool gives a nil oracle and a Status saying
// why and how to install it.
func Discover(ctx context.Context, v Variant) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: v.Name, Domains: v.domains(), Install: v.Spec.Install}
	t, err := tool.Locate(ctx, v.Spec)
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	o, err := New(ctx, v, t)
	if err != nil {
		st.Version, st.Path, st.Reason = t.Version, t.Path, err.Error()
		return nil, st
	}
	st.Available, st.Version, st.Path = true, o.Version(), t.Path
	st.Targets = o.caps.targets()
	return o, st
}

// Discover19 discovers the llc19 oracle.
func Discover19(ctx context.Context) (*Oracle, oracles.Status) { return Discover(ctx, LLC19) }

// Discover22 discovers the llc22 oracle.
func Discover22(ctx context.Context) (*Oracle, oracles.Status) { return Discover(ctx, LLC22) }

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

// Name is "llc19" or "llc22".
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
