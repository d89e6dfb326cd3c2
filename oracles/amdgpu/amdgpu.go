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

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Name is the oracle's name.
const Name = "amdgpu-mc"

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
}

// note tells `legalfuzz oracles` users why the oracle judges nothing yet.
const note = "no domain yet: the waitcnt domain will judge s_waitcnt lowering with it (Go API: Assemble, Disassemble)"

// Discover locates llvm-mc and checks it assembles for gfx942. The oracle is
// available with no domains until the waitcnt domain exists.
func Discover(ctx context.Context) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: Name, Domains: []string{}, Install: Spec.Install}
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
	st.Available, st.Targets, st.Reason = true, []string{CPU}, note
	return o, st
}

// New wraps an already located llvm-mc (a fake one in tests).
func New(t tool.Tool) *Oracle { return &Oracle{tool: t} }

// Name is "amdgpu-mc".
func (o *Oracle) Name() string { return Name }

// Version is llvm-mc's LLVM version.
func (o *Oracle) Version() string { return o.tool.Version }

// Judges is false for every domain until the waitcnt domain exists.
func (o *Oracle) Judges(string) bool { return false }

// Judge answers every case unsupported: no domain renders to s_waitcnt yet.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]oracles.Verdict, len(cases))
	for i, c := range cases {
		out[i] = oracles.Verdict{Oracle: Name, Version: o.Version(), Case: c.ID, Domain: c.Domain,
			Kind: oracles.Unsupported, Rule: "amdgpu-mc.no-domain",
			Diagnostic: fmt.Sprintf("%s judges no %s cases: it renders no domain yet", Name, c.Domain)}
	}
	return out, nil
}

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

// Args are llvm-mc's flags for assembling; the source comes on stdin.
func Args() []string { return []string{"-arch=amdgcn", "-mcpu=" + CPU, "-show-encoding"} }
