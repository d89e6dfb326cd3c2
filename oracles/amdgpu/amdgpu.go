// Package amdgpu holds the amdgpu-mc@LABEL oracles: each LLVM
// installation's AMDGPU assembler and disassembler (llvm-mc -arch=amdgcn).
// They judge two domains: waitcnt, whose lowered s_waitcnt thresholds they
// assemble, and waitcntasm, whose wait instructions they assemble,
// disassemble and assemble again, each step judged by the domain's own
// encoder (judgeasm.go). The core is a Go API too: Assemble a batch of
// lines, each answered with its encoding or its error, and Disassemble
// encodings.
package amdgpu

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Name is the base of the llvm-mc oracles' names: amdgpu-mc@LABEL.
const Name = oracles.AMDGPUMC

// CPU is the AMD GPU the waitcnt domain's default cases are assembled for.
const CPU = "gfx942"

// DefaultTimeout bounds one llvm-mc process.
const DefaultTimeout = 30 * time.Second

// DefaultBatchSize is the most lines assembled by one process; llvm-mc
// reports every bad line and goes on, so large batches cost nothing extra.
const DefaultBatchSize = 2000

// Oracle wraps one llvm-mc.
type Oracle struct {
	tool tool.Tool
	// name is the oracle's name: amdgpu-mc@LABEL.
	name string
	// inst is the installation discovery found llvm-mc in; zero for a
	// fake llvm-mc in tests.
	inst toolchain.Installation
	// cpus are the processors this llvm-mc lists for -mcpu=help; nil means
	// not asked (a fake llvm-mc in tests): every processor is tried.
	cpus map[string]bool
	// Timeout bounds one llvm-mc process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most lines per process; zero means DefaultBatchSize
	// and 1 assembles each line in its own process.
	BatchSize int
	// cpu is the GPU assembled for; empty means CPU.
	cpu string
}

// Installation is the installation the oracle runs (toolchain.Installed).
func (o *Oracle) Installation() toolchain.Installation { return o.inst }

// Discover locates an installation's llvm-mc and checks it assembles for
// gfx942: the amdgpu-mc@LABEL oracle.
func Discover(ctx context.Context, in toolchain.Installation) (*Oracle, oracles.Status) {
	name := oracles.Installed(Name, in.Label)
	st := oracles.Status{Name: name, Domains: []string{waitcnt.Name, waitcntasm.Name},
		Install: "make oracles, or --toolchain DIR naming an LLVM build with the AMDGPU target"}
	t, err := in.Locate(ctx, "llvm-mc")
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	st.Version, st.Path = t.Version, t.Path
	o := &Oracle{tool: t, name: name, inst: in}
	rs, err := o.Assemble(ctx, []string{"s_waitcnt 0"})
	if err != nil || rs[0].Kind != oracles.Accept {
		st.Reason = fmt.Sprintf("%s does not assemble for %s: %v %+v", t.Path, CPU, err, rs)
		return nil, st
	}
	if o.cpus, err = listCPUs(ctx, t); err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	st.Available = true
	for _, c := range waitcntasm.CPUs {
		if o.cpus[c] {
			st.Targets = append(st.Targets, c)
		}
	}
	return o, st
}

var cpuName = regexp.MustCompile(`^\s+(gfx[0-9a-z-]+)\s+- `)

// listCPUs asks llvm-mc which processors it knows: an -mcpu it does not
// know is ignored with a warning and the instruction assembled for a
// generic GCN processor, which would judge the wrong ISA.
func listCPUs(ctx context.Context, t tool.Tool) (map[string]bool, error) {
	res, err := t.Probe(ctx, "-arch=amdgcn", "-mcpu=help")
	if err != nil {
		return nil, err
	}
	cpus := map[string]bool{}
	inCPUs := false
	for _, l := range strings.Split(res.Output(), "\n") {
		if strings.HasPrefix(l, "Available CPUs") {
			inCPUs = true
		} else if strings.HasPrefix(l, "Available features") {
			inCPUs = false
		}
		if m := cpuName.FindStringSubmatch(l); m != nil && inCPUs {
			cpus[m[1]] = true
		}
	}
	if !cpus[CPU] {
		return nil, fmt.Errorf("%s -mcpu=help does not list %s", t.Path, CPU)
	}
	return cpus, nil
}

// New wraps an already located llvm-mc 19 (a fake one in tests).
func New(t tool.Tool) *Oracle { return &Oracle{tool: t, name: Name} }

// NewNamed wraps an already located llvm-mc as the named oracle, knowing
// the processors cpus (nil: every processor is tried).
func NewNamed(name string, t tool.Tool, cpus []string) *Oracle {
	o := &Oracle{tool: t, name: name}
	if cpus != nil {
		o.cpus = map[string]bool{}
		for _, c := range cpus {
			o.cpus[c] = true
		}
	}
	return o
}

// Name is amdgpu-mc@LABEL ("amdgpu-mc" for an llvm-mc wrapped by New).
func (o *Oracle) Name() string { return o.name }

// knows reports whether this llvm-mc lists the processor.
func (o *Oracle) knows(cpu string) bool { return o.cpus == nil || o.cpus[cpu] }

// Version is llvm-mc's LLVM version.
func (o *Oracle) Version() string { return o.tool.Version }

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

func (o *Oracle) batchSize() int { return cmp.Or(o.BatchSize, DefaultBatchSize) }

// Args are llvm-mc's flags for assembling for cpu (empty: CPU); the source
// comes on stdin.
func Args(cpu string) []string {
	if cpu == "" {
		cpu = CPU
	}
	return []string{"-arch=amdgcn", "-mcpu=" + cpu, "-show-encoding"}
}

// forCPU returns a copy of o that assembles for cpu.
func (o *Oracle) forCPU(cpu string) *Oracle {
	c := *o
	c.cpu = cpu
	return &c
}
