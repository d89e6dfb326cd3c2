// Package ptxas is the oracle that asks NVIDIA's PTX assembler whether each
// case's PTX (rendered by package ptx) assembles for the case's own target.
// One Config describes one ptxas release: where to find it, how to read its
// version and which PTX versions and targets it can judge at all. PTXAS124
// is the CPU machines' ptxas 12.4; PTXAS13 is CUDA 13's, found on the GPU
// machines.
package ptxas

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// DefaultTimeout bounds one ptxas process when Oracle.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Config is one ptxas release as an oracle.
type Config struct {
	// Name is the oracle's name: "ptxas", "ptxas13".
	Name string
	// Spec finds the program and checks its version.
	Spec tool.Spec
	// MaxPTX is the newest PTX ISA version the release knows.
	MaxPTX target.PTX
	// Targets are the architectures the release knows, e.g. "sm_90a".
	Targets []string
}

// ReleaseVersion reads "Cuda compilation tools, release 12.4, V12.4.131",
// as every CUDA tool states its version, and accepts it when the release
// matches want (a regexp such as `12\.4`).
func ReleaseVersion(want string) func(string) (string, bool) {
	re := regexp.MustCompile(`release (` + want + `), V(\d+\.\d+\.\d+)`)
	return func(out string) (string, bool) {
		m := re.FindStringSubmatch(out)
		if m == nil {
			return "", false
		}
		return m[2], true
	}
}

// PTXAS124 is ptxas from CUDA 12.4: PTX ISA up to 8.4, targets up to sm_90a.
var PTXAS124 = Config{
	Name: oracles.PTXAS,
	Spec: tool.Spec{
		Name: oracles.PTXAS, Env: "LEGALFUZZ_PTXAS", Files: []string{"ptxas"},
		VersionArgs: []string{"--version"}, Version: ReleaseVersion(`12\.4`),
		Install: "make oracles",
	},
	MaxPTX:  84,
	Targets: []string{"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"},
}

// PTXAS13 is ptxas from CUDA 13 (the GPU machines): PTX ISA up to 9.0 and
// the Blackwell targets; CUDA 13 renamed sm_101 to sm_110, so sm_101* are
// not among them.
var PTXAS13 = Config{
	Name: oracles.PTXAS13,
	Spec: tool.Spec{
		Name: oracles.PTXAS13, Env: "LEGALFUZZ_PTXAS13", Files: []string{"ptxas13", "ptxas"},
		VersionArgs: []string{"--version"}, Version: ReleaseVersion(`13\.\d+`),
		Install: "install the CUDA 13 toolkit (GPU machines) or set LEGALFUZZ_PTXAS13",
	},
	MaxPTX: 90,
	Targets: []string{"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a",
		"sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
		"sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f"},
}

// Oracle runs one ptxas release on batches of cases.
type Oracle struct {
	cfg  Config
	tool tool.Tool
	// learned is what the oracle learned of its ptxas: header probes and
	// the verdict history, opened on first use.
	learned batch.LazyProbes
	// Timeout bounds one ptxas process; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize caps the cases in one module; zero means no cap, 1 means one
	// case per process (for benchmarks and for checking attribution).
	BatchSize int
	// Args are extra ptxas flags placed before the file; nil means -O0,
	// which gives the same verdicts as the default -O3 on the seeds and
	// assembles faster.
	Args []string
}

// New wraps a located ptxas as the oracle described by cfg.
func New(cfg Config, t tool.Tool) *Oracle {
	return &Oracle{cfg: cfg, tool: t}
}

// Discover finds ptxas 12.4 (LEGALFUZZ_PTXAS, .oracles/bin, PATH).
func Discover(ctx context.Context) (*Oracle, oracles.Status) { return DiscoverConfig(ctx, PTXAS124) }

// DiscoverConfig finds the release cfg describes; when it is missing the
// oracle is nil and the status says why and how to install it.
func DiscoverConfig(ctx context.Context, cfg Config) (*Oracle, oracles.Status) {
	st := oracles.Status{Name: cfg.Name, Domains: ptx.Domains(), Targets: cfg.Targets}
	t, err := tool.Locate(ctx, cfg.Spec)
	if err != nil {
		st.Reason, st.Install = err.Error(), cfg.Spec.Install
		return nil, st
	}
	st.Available, st.Version, st.Path = true, t.Version, t.Path
	return New(cfg, t), st
}

// Name is the configured oracle name.
func (o *Oracle) Name() string { return o.cfg.Name }

// Version is the ptxas version, e.g. "12.4.131".
func (o *Oracle) Version() string { return o.tool.Version }

// Judges reports whether package ptx renders the domain.
func (o *Oracle) Judges(domainName string) bool { return ptx.Renders(domainName) }

// unsupported says why this release cannot judge a case's target at all, or
// "" when it can.
func (o *Oracle) unsupported(t target.Target) *oracles.NoSpelling {
	if !slices.Contains(o.cfg.Targets, t.Arch.String()) {
		return ptx.Reasons.New("target", "unknown-to-ptxas", "%s %s does not know target %s", o.cfg.Name, o.tool.Version, t.Arch)
	}
	if t.PTX > o.cfg.MaxPTX {
		return ptx.Reasons.New("ptx", "beyond-ptxas", "%s %s knows PTX ISA up to %s, not %s", o.cfg.Name, o.tool.Version, o.cfg.MaxPTX, t.PTX)
	}
	return nil
}

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

func (o *Oracle) flags() []string {
	if o.Args != nil {
		return o.Args
	}
	return []string{"-O0"}
}

// CommandArgs are the arguments ptxas runs with on the modules in paths
// for target arch: the exact command a benchmark should time.
func (o *Oracle) CommandArgs(arch target.Arch, paths ...string) []string {
	args := append([]string{"-arch=" + arch.String()}, o.flags()...)
	return append(append(args, paths...), "-o", "/dev/null")
}
