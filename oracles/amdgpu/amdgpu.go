// Package amdgpu is the "amdgpu-mc" oracle: LLVM's AMDGPU assembler and
// disassembler (llvm-mc -arch=amdgcn -mcpu=gfx942) as a judge of s_waitcnt
// counter thresholds. No domain renders to it yet (the waitcnt domain comes
// later), so it exposes its core as a Go API: Assemble a batch of lines,
// each answered with its encoding or its error, and Disassemble an encoding.
package amdgpu

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Name is the oracle's name.
const Name = oracles.AMDGPUMC

// CPU is the AMD GPU the oracle assembles for.
const CPU = "gfx942"

var llvmVersion = regexp.MustCompile(`LLVM version (\d+\.\d+\.\d+)`)

// Spec finds llvm-mc; any LLVM version with the amdgcn target will do.
var Spec = tool.Spec{
	Name:        Name,
	Env:         "LEGALFUZZ_LLVM_MC",
	Files:       []string{"llvm-mc-19", "llvm-mc"},
	VersionArgs: []string{"--version"},
	Version: func(out string) (string, bool) {
		m := llvmVersion.FindStringSubmatch(out)
		if m == nil || !strings.Contains(out, "amdgcn") {
			return "", false
		}
		return m[1], true
	},
	Install: "make oracles",
}

// DefaultTimeout bounds one llvm-mc process.
const DefaultTimeout = 30 * time.Second

// DefaultBatchSize is the most lines assembled by one process; llvm-mc
// reports every bad line and goes on, so large batches cost nothing extra.
const DefaultBatchSize = 2000

// Oracle wraps llvm-mc for gfx942.
type Oracle struct {
	tool tool.Tool
	// Timeout bounds one llvm-mc process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most lines per process; zero means DefaultBatchSize
	// and 1 assembles each line in its own process.
	BatchSize int
	// cpu is the GPU assembled for; empty means CPU.
	cpu string
}

// Discover locates llvm-mc and checks it assembles for gfx942.
func Discover(ctx context.Context) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: Name, Domains: []string{waitcnt.Name}, Install: Spec.Install}
	t, err := tool.Locate(ctx, Spec)
	if err != nil {
		st.Reason = err.Error()
		return nil, st
	}
	st.Version, st.Path = t.Version, t.Path
	o := &Oracle{tool: t}
	rs, err := o.Assemble(ctx, []string{"s_waitcnt 0"})
	if err != nil || rs[0].Kind != oracles.Accept {
		st.Reason = fmt.Sprintf("%s does not assemble for %s: %v %+v", t.Path, CPU, err, rs)
		return nil, st
	}
	st.Available, st.Targets = true, waitcnt.GPUs
	return o, st
}

// New wraps an already located llvm-mc (a fake one in tests).
func New(t tool.Tool) *Oracle { return &Oracle{tool: t} }

// Name is "amdgpu-mc".
func (o *Oracle) Name() string { return Name }

// Version is llvm-mc's LLVM version.
func (o *Oracle) Version() string { return o.tool.Version }

func (o *Oracle) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o *Oracle) batchSize() int {
	if o.BatchSize > 0 {
		return o.BatchSize
	}
	return DefaultBatchSize
}

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
