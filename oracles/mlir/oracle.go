package mlir

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Name is the oracle's name; NVVMName the base name of the oracles that
// spell the cases with nvvm ops.
const (
	Name     = oracles.MLIR
	NVVMName = oracles.MLIRNVVM
)

// Defaults for the zero Oracle fields.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultBatchSize = 1000
)

// Oracle judges cases with mlir-opt-19.
type Oracle struct {
	Opt tool.Tool
	// Lower, when non-nil, sends every case the verifier accepts on through
	// the lowering; nil judges with the verifier alone.
	Lower *Lowering
	// Timeout bounds one tool invocation; zero means DefaultTimeout.
	Timeout time.Duration
	// BatchSize is the most cases per tool invocation; zero means
	// DefaultBatchSize, and 1 judges every case in its own process.
	BatchSize int
	// frames maps a crash site (see diag.CrashSite) to its symbolized crashing
	// function.
	frames sync.Map
	// learned keeps the verifier's verdict history (batch.History).
	learned batch.LazyProbes
	// OracleName is the name the verdicts carry: Name when empty,
	// mlir@LABEL for an installation's oracle.
	OracleName string
	// spelling is how the installation's release spells the cases; the
	// zero value is MLIR 19's.
	spelling render.Spelling
	// cannotParse are the domains whose spelling the release does not
	// parse (unspelled), with the parser's words.
	cannotParse map[string]string
	// inst is the installation discovery found the tools in; zero for an
	// oracle made of tools alone (New, NewRelease).
	inst toolchain.Installation
}

// Installation is the installation the oracle runs (toolchain.Installed).
func (o *Oracle) Installation() toolchain.Installation { return o.inst }

// New returns a verifier-only oracle over mlir-opt.
func New(opt tool.Tool) *Oracle { return &Oracle{Opt: opt} }

// Domains lists the domains MLIR 19 renders.
func Domains() []string { return render.Spelling{}.Domains() }

// Name is "mlir", or the OracleName given.
func (o *Oracle) Name() string {
	if o.OracleName != "" {
		return o.OracleName
	}
	return Name
}

// Version names mlir-opt's version and, when lowering, the backend tools'.
func (o *Oracle) Version() string {
	v := "mlir-opt " + o.Opt.Version
	if o.Lower != nil {
		v += " +lowering"
		if o.Lower.Ptxas.Path != "" {
			v += " ptxas " + o.Lower.Ptxas.Version
		}
	}
	return v
}

// Judges reports whether the oracle renders the domain.
func (o *Oracle) Judges(domainName string) bool {
	return o.spelling.Renders(domainName) && o.cannotParse[domainName] == ""
}

func (o *Oracle) timeout() time.Duration { return cmp.Or(o.Timeout, DefaultTimeout) }

func (o *Oracle) batchSize() int { return cmp.Or(o.BatchSize, DefaultBatchSize) }

// job is one case on its way through the stages.
type job struct {
	c    domain.Case
	text string
	v    *oracles.Verdict
	// value says the kernel stores a computed value (see render.Kernel.Value).
	value bool
	// target is what the kernel was rendered for (render.Kernel.Target).
	target target.Target
	// params are the kernel's parameters (render.Kernel.Params), which the value
	// checks compare the emitted operands with; host is the host part of
	// the lowered module, where the tensor-map encode call is.
	params, host string
}

// Judge renders every case, runs the verifier over batches of them, and
// lowers what it accepts when Lower is set. Duplicate cases are judged once.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out, jobs, err := o.prepare(cases)
	if err != nil {
		return nil, err
	}
	if err := o.verify(ctx, jobs); err != nil {
		return nil, err
	}
	if o.Lower != nil {
		if err := o.lower(ctx, jobs); err != nil {
			return nil, err
		}
	}
	return dedupe(cases, out), nil
}

// prepare renders each distinct case into a job whose verdict is its
// entry of the returned slice; a case with no spelling in this release is
// Unsupported there and has no job.
func (o *Oracle) prepare(cases []domain.Case) ([]oracles.Verdict, []*job, error) {
	out := make([]oracles.Verdict, len(cases))
	seen := map[string]bool{}
	var jobs []*job
	for i, c := range cases {
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		out[i] = oracles.Verdict{Oracle: o.Name(), Version: o.Version(), Case: c.ID, Domain: c.Domain}
		text, k, err := o.render(c)
		if ns, ok := oracles.AsNoSpelling(err); ok {
			out[i].Unsupported(ns)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("mlir: render case %s: %w", c.ID, err)
		}
		jobs = append(jobs, &job{c: c, text: text, v: &out[i], value: k.Value, target: k.Target, params: k.Params})
	}
	return out, jobs, nil
}

// dedupe copies each case's first verdict to its duplicates.
func dedupe(cases []domain.Case, out []oracles.Verdict) []oracles.Verdict {
	first := map[string]int{}
	for i, c := range cases {
		if j, ok := first[c.ID]; ok {
			out[i] = out[j]
			continue
		}
		first[c.ID] = i
	}
	return out
}

// verify runs the verifier over the jobs, BatchSize at a time, the cases
// spec/ptxisa expects it to accept apart from the others.
func (o *Oracle) verify(ctx context.Context, jobs []*job) error {
	st := stage{name: "verify", tool: o.Opt, args: []string{timingFlag}}
	expect := make([]oracles.Kind, len(jobs))
	rules := make([]string, len(jobs))
	h := o.learned.Open(o.Name(), o.Version(), o.Opt.Path).History()
	for i, j := range jobs {
		expect[i], rules[i] = h.Predict(j.c)
	}
	res, err := o.decideSplit(ctx, st, texts(jobs), expect)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		setVerdict(j.v, "verify", res[i])
		h.Observe(rules[i], j.v.Kind)
	}
	h.Save()
	return nil
}

// setVerdict records a stage's result for a case.
func setVerdict(v *oracles.Verdict, rule string, r chunkResult) {
	v.Rule, v.Diagnostic = rule, r.diag
	switch r.outcome {
	case passed:
		v.Kind = oracles.Accept
	case failed:
		v.Kind = oracles.Reject
	case crashed:
		v.Kind = oracles.Error
	case timedOut:
		v.Kind = oracles.Timeout
	}
}

func texts(jobs []*job) []string {
	ts := make([]string, len(jobs))
	for i, j := range jobs {
		ts[i] = j.text
	}
	return ts
}

// render spells a case in the oracle's release.
func (o *Oracle) render(c domain.Case) (string, render.Kernel, error) {
	if why := o.cannotParse[c.Domain]; why != "" {
		return "", render.Kernel{}, reasons.New("domain", "release-does-not-parse", "%s", why)
	}
	return o.spelling.Render(c)
}

// VerifyCommand renders the cases the oracle can spell into the split file
// the verifier reads and the arguments it runs with (the file at path), so
// a benchmark can time the bare tool on exactly what Judge runs. Cases
// without a spelling in the oracle's release are left out.
func (o *Oracle) VerifyCommand(cases []domain.Case, path string) (file []byte, args []string, err error) {
	var ts []string
	for _, c := range cases {
		text, _, err := o.render(c)
		if _, ok := oracles.AsNoSpelling(err); ok {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("mlir: render case %s: %w", c.ID, err)
		}
		ts = append(ts, text)
	}
	f, _ := JoinSplit(ts)
	return []byte(f), splitArgs(stage{name: "verify", args: []string{timingFlag}}, path), nil
}
