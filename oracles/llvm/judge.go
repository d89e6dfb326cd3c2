package llvm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// More rules, for cases llc is never asked about.
const (
	RuleNoRenderer = "llc.no-renderer" // no IR spelling of the domain for this LLVM version
	RuleNoSpelling = "llc.no-spelling" // the value has no spelling in this LLVM's intrinsics
)

// job is one rendered case waiting for a verdict.
type job struct {
	id int // index in the cases given to Judge; names kernel k_<id>
	k  *kernel
}

// group holds the jobs for one target: the target fixes llc's flags.
type group struct {
	t    target.Target
	jobs []job
}

// Judge renders each case for its own target and compiles the cases of a
// target together, many kernels per llc run, mapping every failure back to
// its case (see judgeGroup). It returns exactly one verdict per case; its
// error is only for a harness failure or a cancelled ctx.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	groups, err := o.prepare(cases, out)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if err := o.judgeGroup(ctx, g, cases, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// prepare renders the cases, fills the verdicts of those llc is never asked
// about, and groups the rest by target in first-seen order.
func (o *Oracle) prepare(cases []domain.Case, out []oracles.Verdict) ([]*group, error) {
	var groups []*group
	byTarget := map[target.Target]*group{}
	for i, c := range cases {
		k, rule, why, err := o.render(i, c)
		if err != nil {
			return nil, fmt.Errorf("%s: case %s: %w", o.Name(), c.ID, err)
		}
		if why != "" {
			out[i] = o.verdict(c, oracles.Unsupported, rule, why)
			continue
		}
		t := c.Value.Target()
		g := byTarget[t]
		if g == nil {
			g = &group{t: t}
			byTarget[t] = g
			groups = append(groups, g)
		}
		g.jobs = append(g.jobs, job{i, k})
	}
	return groups, nil
}

// render turns case i into a kernel, or says why this llc cannot judge it.
func (o *Oracle) render(i int, c domain.Case) (k *kernel, rule, why string, err error) {
	r, ok := renderers[c.Domain]
	if !ok {
		return nil, RuleNoRenderer, fmt.Sprintf("%s renders no %s cases", o.Name(), c.Domain), nil
	}
	if r.minMajor > o.variant.Major {
		return nil, RuleNoRenderer, r.missing, nil
	}
	if why := o.caps.gate(o.Version(), c.Value.Target()); why != "" {
		return nil, RuleUnknown, why, nil
	}
	k = newKernel(fmt.Sprintf("c%d.", i))
	err = r.render(c.Value, o.variant.Major, k)
	var ns noSpellingError
	if errors.As(err, &ns) {
		return nil, RuleNoSpelling, ns.Error(), nil
	}
	return k, "", "", err
}

// judgeGroup judges one target's jobs in chunks. llc stops at the first
// fatal error, so a failing chunk is attributed: a stack dump (or, failing
// that, a rerun with -debug-pass=Executions) names the kernel llc was
// compiling; that kernel gets the failure, the kernels before it are
// accepted when the failing pass proves they compiled to the end, and
// everything else goes back to the queue to be compiled again. A chunk that
// cannot be attributed is halved. The chunk size adapts: it doubles after a
// clean run and shrinks to twice the distance to the last failure, so dense
// failures cost about one short run each and clean stretches one long run.
func (o *Oracle) judgeGroup(ctx context.Context, g *group, cases []domain.Case, out []oracles.Verdict) error {
	refused, err := o.refusesTarget(ctx, g.t)
	if err != nil {
		return err
	}
	if refused != nil {
		for _, j := range g.jobs {
			out[j.id] = o.verdict(cases[j.id], refused.kind, refused.rule, refused.diag)
		}
		return nil
	}
	limit := o.batchSize()
	size := limit
	pending := g.jobs
	for len(pending) > 0 {
		n := min(size, len(pending))
		decided, err := o.attempt(ctx, g.t, pending[:n], cases)
		if err != nil {
			return err
		}
		var rest []job
		for _, j := range pending[:n] {
			if v, ok := decided[j.id]; ok {
				out[j.id] = v
			} else {
				rest = append(rest, j)
			}
		}
		pending = append(rest, pending[n:]...)
		switch {
		case len(decided) == n:
			size = min(2*size, limit)
		case len(decided) == 0:
			size = max(n/2, 1)
		default:
			size = min(max(2*len(decided), 4), limit)
		}
	}
	return nil
}

// attempt compiles one chunk and returns the verdicts it settles, keyed by
// job id. A single-job chunk is always settled.
func (o *Oracle) attempt(ctx context.Context, t target.Target, jobs []job, cases []domain.Case) (map[int]oracles.Verdict, error) {
	ids := make([]int, len(jobs))
	ks := make([]*kernel, len(jobs))
	for i, j := range jobs {
		ids[i], ks[i] = j.id, j.k
	}
	m, err := buildModule(t, ids, ks)
	if err != nil {
		return nil, err
	}
	res, err := o.tool.Run(ctx, o.timeout(), m.text, llcArgs(t)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name(), err)
	}
	d := decider{o: o, m: m, cases: cases, got: map[int]oracles.Verdict{}}
	out := res.Output()
	switch {
	case unrecognized.MatchString(out):
		d.all(outcome{oracles.Unsupported, RuleUnknown, diag.Normalize(unrecognized.FindString(out))})
	case clean(res):
		d.compiled(string(res.Stdout), len(jobs) == 1)
	default:
		if cs := irCulprits(m, out); len(cs) > 0 {
			for _, c := range cs {
				d.set(c.pos, c.outcome)
			}
			return d.got, nil
		}
		if err := d.failed(ctx, t, res); err != nil {
			return nil, err
		}
	}
	return d.got, nil
}

// refusesTarget compiles an empty module for t, once per target: llc 22
// refuses some target and PTX pairs outright ("PTX version 8.4 does not
// support target 'sm_100a'"), before it looks at any function, so every case
// of the group gets that answer without a run of its own.
func (o *Oracle) refusesTarget(ctx context.Context, t target.Target) (*outcome, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if oc, ok := o.refused[t]; ok {
		return oc, nil
	}
	m, err := buildModule(t, nil, nil)
	if err != nil {
		return nil, err
	}
	res, err := o.tool.Run(ctx, o.timeout(), m.text, llcArgs(t)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name(), err)
	}
	var oc *outcome
	switch out := res.Output(); {
	case unrecognized.MatchString(out):
		oc = &outcome{oracles.Unsupported, RuleUnknown, diag.Normalize(unrecognized.FindString(out))}
	case !clean(res) && !res.TimedOut:
		c := classify(res, o.timeout().String())
		oc = &c
	}
	if o.refused == nil {
		o.refused = map[target.Target]*outcome{}
	}
	if !res.TimedOut {
		o.refused[t] = oc
	}
	return oc, nil
}

func clean(r tool.Result) bool { return !r.TimedOut && r.Signal == "" && r.ExitCode == 0 }

// decider collects the verdicts one attempt settles.
type decider struct {
	o     *Oracle
	m     *module
	cases []domain.Case
	got   map[int]oracles.Verdict
}

func (d *decider) set(pos int, oc outcome) {
	id := d.m.ids[pos]
	if oc.rule == RuleInvalidIR {
		slog.Warn("llvm renderer produced invalid IR", "oracle", d.o.Name(), "case", d.cases[id].ID, "diag", oc.diag)
	}
	d.got[id] = d.o.verdict(d.cases[id], oc.kind, oc.rule, oc.diag)
}

func (d *decider) all(oc outcome) {
	for pos := range d.m.ids {
		d.set(pos, oc)
	}
}

// compiled settles a clean run: every kernel present in the PTX is
// accepted, unless llc did not know an intrinsic it calls and compiled the
// call as an external function (llc 19 does that for tcgen05).
func (d *decider) compiled(ptx string, single bool) {
	unknown := map[int]string{}
	for _, name := range unknownIntrinsics(ptx) {
		for _, pos := range d.m.kernelsUsing(name) {
			unknown[pos] = name
		}
	}
	for pos, id := range d.m.ids {
		if _, ok := unknown[pos]; !ok && strings.Contains(ptx, fmt.Sprintf(".entry k_%d(", id)) {
			d.o.learn(d.m.uses[pos])
		}
		switch name, ok := unknown[pos]; {
		case ok:
			d.set(pos, outcome{oracles.Unsupported, RuleNoIntrinsic, fmt.Sprintf(
				"llc %s has no intrinsic %s: it compiled the call as an external function", d.o.Version(), name)})
		case strings.Contains(ptx, fmt.Sprintf(".entry k_%d(", id)):
			d.set(pos, outcome{oracles.Accept, RuleAccepted, ""})
		case single:
			d.set(pos, outcome{oracles.Error, RuleUnexplained, "llc exited 0 but its PTX has no entry for the kernel"})
		}
	}
}

// failed settles what a failed run allows: the whole verdict of a single
// kernel, or the kernel a stack dump or an execution trace names.
func (d *decider) failed(ctx context.Context, t target.Target, res tool.Result) error {
	oc := classify(res, d.o.timeout().String())
	if len(d.m.ids) == 1 {
		d.set(0, oc)
		return nil
	}
	pos, trusted, ok := attribution(d.m, res.Output(), false)
	if !ok {
		args := append(llcArgs(t), "-debug-pass=Executions")
		traced, err := d.o.tool.Run(ctx, d.o.timeout(), d.m.text, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", d.o.Name(), err)
		}
		if clean(traced) || classify(traced, "").rule != oc.rule {
			return nil // not reproducible under tracing: let the caller halve
		}
		pos, trusted, ok = attribution(d.m, traced.Output(), true)
	}
	if !ok {
		return nil
	}
	d.set(pos, oc)
	for p := 0; trusted && p < pos; p++ {
		if d.o.knows(d.m.uses[p]) {
			d.set(p, outcome{oracles.Accept, RuleAccepted, ""})
		}
	}
	return nil
}

// learn records intrinsics llc compiled as intrinsics, not external calls.
func (o *Oracle) learn(names []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.intrinsics == nil {
		o.intrinsics = map[string]bool{}
	}
	for _, n := range names {
		o.intrinsics[n] = true
	}
}

// knows reports whether every name is an intrinsic llc has compiled as one
// before. A kernel that compiled before a failure but calls a name not yet
// seen is compiled again: llc might have made it an external call, and the
// output that would tell was lost with the failure.
func (o *Oracle) knows(names []string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range names {
		if !o.intrinsics[n] {
			return false
		}
	}
	return true
}

// Batch is one llc run as Judge first makes it, for benchmarks that time
// the bare tool on the same input: `llc Args... < Module`.
type Batch struct {
	Target target.Target
	// Cases are the indexes, in the slice given to Render, of the cases
	// whose kernels the module holds, in order.
	Cases  []int
	Module []byte
	Args   []string
}

// Render lays out the cases this llc can judge exactly as Judge's first
// attempt does: grouped by target, at most BatchSize kernels per module.
// Set BatchSize to 1 for one case per process.
func (o *Oracle) Render(cases []domain.Case) ([]Batch, error) {
	groups, err := o.prepare(cases, make([]oracles.Verdict, len(cases)))
	if err != nil {
		return nil, err
	}
	var bs []Batch
	for _, g := range groups {
		for lo := 0; lo < len(g.jobs); lo += o.batchSize() {
			jobs := g.jobs[lo:min(lo+o.batchSize(), len(g.jobs))]
			b := Batch{Target: g.t, Args: llcArgs(g.t)}
			var ks []*kernel
			for _, j := range jobs {
				b.Cases = append(b.Cases, j.id)
				ks = append(ks, j.k)
			}
			m, err := buildModule(g.t, b.Cases, ks)
			if err != nil {
				return nil, err
			}
			b.Module = m.text
			bs = append(bs, b)
		}
	}
	return bs, nil
}
