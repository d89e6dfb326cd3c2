// Package registry finds the oracles available on this machine.
package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/algo"
	"github.com/legalfuzz/legalfuzz/oracles/amdgpu"
	"github.com/legalfuzz/legalfuzz/oracles/cuda"
	"github.com/legalfuzz/legalfuzz/oracles/exec"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/reproduce"
	"github.com/legalfuzz/legalfuzz/oracles/nvvmop"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas/sass"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Options say which user-configured oracles to start.
type Options struct {
	// Exec are the user's own verifiers, "NAME=COMMAND" each (never from job
	// content).
	Exec []string
	// Toolchains names the user's LLVM installations besides the ones make
	// oracles installed.
	Toolchains toolchain.Options
	// AllReleases judges with every LLVM release installed, each in full; by
	// default the older releases only replay buckets (toolchain.Judging)
	// and the newest judges a sample beside a build of main
	// (toolchain.Sampling).
	AllReleases bool
}

// Found is the result of a discovery: the oracles ready to judge, and the
// status of every oracle legalfuzz knows, available or not.
type Found struct {
	Oracles  []oracles.Oracle
	Statuses []oracles.Status
	// Toolchains are the LLVM installations found, oldest first, and
	// Skipped why installed ones were left out.
	Toolchains []toolchain.Installation
	Skipped    []error
	closers    []io.Closer
}

// Discover looks for every oracle. A missing tool is a Status with its
// reason, never an error; a malformed exec spec is the user's error.
func Discover(ctx context.Context, opts Options) (*Found, error) {
	f := &Found{}
	for _, set := range rules.Sets {
		o := spec.New(set)
		f.add(o, oracles.Status{Name: o.Name(), Version: o.Version(), Available: true, Domains: judged(o)})
	}
	fp := algo.FenceProxy{}
	f.add(fp, fp.Status())
	for _, found := range []func() (oracles.Oracle, oracles.Status){
		func() (oracles.Oracle, oracles.Status) { return tool(ptxas.Discover(ctx)) },
		func() (oracles.Oracle, oracles.Status) { return tool(sass.Discover(ctx)) },
		func() (oracles.Oracle, oracles.Status) { return tool(ptxas.DiscoverPTXAS13(ctx)) },
	} {
		f.add(found())
	}
	if err := f.addToolchains(ctx, opts); err != nil {
		return nil, err
	}
	// The GPU machine's judges hold CUDA contexts (and a child process for
	// kernels): they are closed with the rest.
	for _, found := range []func() (oracles.Oracle, oracles.Status){
		func() (oracles.Oracle, oracles.Status) { return tool(cuda.DiscoverDriver(ctx)) },
		func() (oracles.Oracle, oracles.Status) { return tool(cuda.DiscoverJIT(ctx, cuda.GPUOptions{})) },
		func() (oracles.Oracle, oracles.Status) { return tool(cuda.DiscoverGPU(ctx, cuda.GPUOptions{})) },
	} {
		o, st := found()
		if c, ok := o.(io.Closer); ok {
			f.closers = append(f.closers, c)
		}
		f.add(o, st)
	}
	for _, s := range opts.Exec {
		es, err := exec.ParseSpec(s)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("--oracle exec:%s: %w", s, err)
		}
		o, st := exec.Discover(ctx, es, exec.Options{})
		if o != nil {
			f.closers = append(f.closers, o)
			f.add(o, st)
		} else {
			f.add(nil, st)
		}
	}
	return f, nil
}

// addToolchains adds the oracles of every LLVM installation: the older
// releases replay buckets only, unless opts.AllReleases.
func (f *Found) addToolchains(ctx context.Context, opts Options) error {
	ins, skipped, err := toolchain.Discover(ctx, opts.Toolchains)
	if err != nil {
		return err
	}
	f.Toolchains, f.Skipped = ins, skipped
	judging, sampling := toolchain.Judging(ins), toolchain.Sampling(ins)
	for _, in := range ins {
		replayOnly := !opts.AllReleases && !slices.Contains(judging, in)
		sampled := !opts.AllReleases && slices.Contains(sampling, in)
		for _, found := range []func() (oracles.Oracle, oracles.Status){
			func() (oracles.Oracle, oracles.Status) { return tool(mlir.Discover(ctx, in)) },
			func() (oracles.Oracle, oracles.Status) { return tool(mlir.DiscoverNVVM(ctx, in)) },
			func() (oracles.Oracle, oracles.Status) { return tool(mlir.DiscoverPasses(ctx, in)) },
			func() (oracles.Oracle, oracles.Status) { return tool(llvm.Discover(ctx, in)) },
			func() (oracles.Oracle, oracles.Status) { return tool(amdgpu.Discover(ctx, in)) },
			func() (oracles.Oracle, oracles.Status) { return tool(nvvmop.Discover(ctx, in)) },
		} {
			o, st := found()
			st.ReplayOnly = replayOnly
			if sampled {
				st.Sampled, st.SampleOneIn = true, toolchain.SampleOneIn
			}
			f.add(o, st)
		}
	}
	if len(ins) == 0 {
		for _, base := range []string{oracles.MLIR, oracles.MLIRNVVM, oracles.MLIRPasses, oracles.LLC, oracles.AMDGPUMC, oracles.NVVMOp} {
			f.add(nil, oracles.Status{Name: oracles.Installed(base, "*"), Reason: "no LLVM installation found",
				Install: "make oracles, or --toolchain DIR naming an LLVM build"})
		}
	}
	return nil
}

// Close stops the oracles that run processes (exec verifiers).
func (f *Found) Close() error {
	var errs []error
	for _, c := range f.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// tool adapts a Discover result: a missing tool is a nil pointer, which must
// become a nil interface.
func tool[T any, P interface {
	*T
	oracles.Oracle
}](o P, s oracles.Status) (oracles.Oracle, oracles.Status) {
	if o == nil {
		return nil, s
	}
	return o, s
}

func (f *Found) add(o oracles.Oracle, s oracles.Status) {
	if in, ok := oracles.Lookup(s.Name); ok {
		s.Sampled = s.Sampled || in.Sampled
	}
	if o != nil && s.Available {
		f.Oracles = append(f.Oracles, o)
	}
	f.Statuses = append(f.Statuses, s)
}

// judged lists the domains o can judge.
func judged(o oracles.Oracle) []string {
	var ds []string
	for _, d := range fuzz.Domains() {
		if o.Judges(d.Name) {
			ds = append(ds, d.Name)
		}
	}
	return ds
}

// reproducers are the oracle families' reproducers, by family (the
// catalog's): how a bundle replays their verdicts by hand.
var reproducers = map[string]oracles.Reproducer{
	"spec":        spec.Reproducer{},
	"ptxas":       ptxas.Reproducer{},
	"nvdisasm":    sass.Reproducer{},
	"mlir":        reproduce.Reproducer{},
	"mlir-nvvm":   reproduce.Reproducer{},
	"mlir-passes": reproduce.PassesReproducer{},
	"llc":         llvm.Reproducer{},
	"llvm-mc":     amdgpu.Reproducer{},
	"nvvm-op":     nvvmop.Reproducer{},
	"cuda":        cuda.Reproducer{},
	"gpu":         cuda.GPUReproducer{},
}

// Reproducer is the reproducer of the named oracle's family; false for an
// oracle judged in process with no input of its own (a seed's algorithm
// under test), which legalfuzz check replays.
func Reproducer(name string) (oracles.Reproducer, bool) {
	if strings.HasPrefix(name, oracles.ExecPrefix) {
		return exec.Reproducer{}, true
	}
	in, ok := oracles.Lookup(name)
	if !ok {
		return nil, false
	}
	r, ok := reproducers[in.Family]
	return r, ok
}
