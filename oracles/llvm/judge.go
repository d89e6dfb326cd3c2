package llvm

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// job is one rendered case waiting for a verdict.
type job struct {
	id int // names kernel k_<id>; unique in the oracle's life
	c  domain.Case
	k  *kernel
}

// Judge renders each case for its own target and compiles the cases of a
// target together, many kernels per llc run, mapping every failure back to
// its case (see Parse). It returns exactly one verdict per case; its error
// is only for a harness failure or a cancelled ctx.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	return o.engine().Judge(ctx, cases)
}

// engine plans llc's runs: llc stops at the first fatal error, so the
// cases expected to compile lead each module and the expected failures
// follow them, where one run decides every accept and the first failure.
func (o *Oracle) engine() *batch.Engine[*job, *module, llcRun] {
	return &batch.Engine[*job, *module, llcRun]{
		Oracle: o.Name(), Version: o.Version(), Tool: o,
		Options: batch.Options{MaxBatch: o.batchSize(), Mode: batch.StopsAtFirst},
		Gate:    o.gate, History: o.probes.History(),
	}
}

// gate decides, without a run, the jobs of a target the probe cache already
// knows llc refuses outright; a target not known is probed only once a run
// for it fails (see refusesTarget).
func (o *Oracle) gate(_ context.Context, jobs []*job) ([]*batch.Outcome, error) {
	out := make([]*batch.Outcome, len(jobs))
	var known refusal
	if !o.probes.Get(refusalKey(jobs[0].c.Value.Target()), &known) || !known.Refused {
		return out, nil
	}
	oc := known.outcome()
	for i := range out {
		out[i] = &batch.Outcome{Kind: oc.kind, Rule: oc.rule, Diagnostic: oc.diag}
	}
	return out, nil
}

// refusalKey is a target's key in the probe cache.
func refusalKey(t target.Target) string { return "refused " + t.String() }

// Prepare renders a case into a kernel, or says why this llc cannot judge it.
func (o *Oracle) Prepare(c domain.Case) (batch.Prepared[*job], error) {
	r, ok := renderers[c.Domain]
	if !ok {
		return batch.Prepared[*job]{}, reasons.New("domain", "no-renderer", "%s renders no %s cases", o.Name(), c.Domain)
	}
	if r.minMajor > o.variant.Major {
		return batch.Prepared[*job]{}, reasons.New("domain", "not-in-release", "%s", r.missing)
	}
	t := c.Value.Target()
	if why := o.caps.gate(o.Version(), t); why != "" {
		return batch.Prepared[*job]{}, reasons.New("target", "unknown-to-llc", "%s", why)
	}
	id := int(o.nextID.Add(1))
	k := newKernel(fmt.Sprintf("c%d.", id))
	err := r.render(c.Value, k)
	if err != nil {
		return batch.Prepared[*job]{}, err
	}
	expect, rule := o.probes.History().Predict(c)
	return batch.Prepared[*job]{Item: &job{id: id, c: c, k: k}, Group: t.String(), Expect: expect, Rule: rule}, nil
}

// Render lays out jobs (one target) as one module.
func (o *Oracle) Render(jobs []*job) (*module, error) {
	ids := make([]int, len(jobs))
	ks := make([]*kernel, len(jobs))
	for i, j := range jobs {
		ids[i], ks[i] = j.id, j.k
	}
	m, err := buildModule(jobs[0].c.Value.Target(), ids, ks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name(), err)
	}
	m.cases = make([]domain.Case, len(jobs))
	for i, j := range jobs {
		m.cases[i] = j.c
	}
	return m, nil
}

// llcRun is what llc said about a module: its run, and for a failure, what
// more it took to read it: whether llc refuses the target outright (from
// the target's probe) and, when no stack dump names the kernel, the same
// run traced with -debug-pass=Executions.
type llcRun struct {
	res     tool.Result
	refused *outcome
	traced  *tool.Result
}

// Run compiles the module, and for a failed run finds out what Parse needs
// to attribute it.
func (o *Oracle) Run(ctx context.Context, m *module) (llcRun, error) {
	t := m.cases[0].Value.Target()
	res, err := o.tool.Run(ctx, o.timeout(), m.text, llcArgs(t)...)
	if err != nil {
		return llcRun{}, fmt.Errorf("%s: %w", o.Name(), err)
	}
	r := llcRun{res: res}
	out := res.Output()
	if clean(res) || unknownTarget(res) != "" {
		return r, nil
	}
	if r.refused, err = o.refusesTarget(ctx, t); err != nil || r.refused != nil {
		return r, err
	}
	if len(m.ids) == 1 || len(irCulprits(m, out)) > 0 {
		return r, nil
	}
	if _, _, ok := attribution(m, out, false); ok {
		return r, nil
	}
	traced, err := o.tool.Run(ctx, o.timeout(), m.text, append(llcArgs(t), "-debug-pass=Executions")...)
	if err != nil {
		return llcRun{}, fmt.Errorf("%s: %w", o.Name(), err)
	}
	r.traced = &traced
	return r, nil
}

// Parse settles what a run allows. A target llc refuses outright gives
// every kernel the refusal; an unknown processor or feature makes every
// kernel unsupported; a clean run accepts every kernel in the PTX; IR that
// llc refuses names its kernels by line or value name. Otherwise llc
// stopped at its first fatal error: a stack dump (or the traced run) names
// the kernel it was compiling, which gets the failure, and the kernels
// before it are accepted when the failing pass proves they compiled to
// the end. The rest is compiled again.
func (o *Oracle) Parse(m *module, r llcRun) batch.Report {
	d := decider{o: o, m: m}
	out := r.res.Output()
	switch {
	case unknownTarget(r.res) != "":
		d.all(outcome{oracles.Unsupported, ruleUnknown, diag.Normalize(unknownTarget(r.res))})
	case clean(r.res):
		d.compiled(string(r.res.Stdout), len(m.ids) == 1)
	case r.refused != nil:
		d.all(*r.refused)
	default:
		if cs := irCulprits(m, out); len(cs) > 0 {
			for _, c := range cs {
				d.set(c.pos, c.outcome)
			}
			return d.rep
		}
		d.failed(r)
	}
	return d.rep
}

// refusesTarget compiles an empty module for t, once per target for the
// life of the probe cache: llc 22 refuses some target and PTX pairs
// outright ("PTX version 8.4 does not support target 'sm_100a'"), before
// it looks at any function, so every case of the target gets that answer.
// It is asked only after a run failed: a target that compiles a module
// cleanly is not refused. It holds no lock while llc runs: the groups of a
// Judge, one per target, probe side by side, and two concurrent Judges
// asking about one target only probe it twice.
func (o *Oracle) refusesTarget(ctx context.Context, t target.Target) (*outcome, error) {
	key := refusalKey(t)
	var known refusal
	if o.probes.Get(key, &known) {
		return known.outcome(), nil
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
	switch {
	case res.TimedOut:
		return nil, nil // says nothing, and is not kept
	case unknownTarget(res) != "":
		oc = &outcome{oracles.Unsupported, ruleUnknown, diag.Normalize(unknownTarget(res))}
	case !clean(res):
		c := classify(res, o.timeout().String())
		oc = &c
	}
	o.probes.Put(key, newRefusal(oc))
	return oc, nil
}

// refusal is a target probe's answer as the probe cache keeps it.
type refusal struct {
	Refused bool         `json:"refused"`
	Kind    oracles.Kind `json:"kind,omitempty"`
	Rule    string       `json:"rule,omitempty"`
	Diag    string       `json:"diagnostic,omitempty"`
}

func newRefusal(oc *outcome) refusal {
	if oc == nil {
		return refusal{}
	}
	return refusal{Refused: true, Kind: oc.kind, Rule: oc.rule, Diag: oc.diag}
}

func (r refusal) outcome() *outcome {
	if !r.Refused {
		return nil
	}
	return &outcome{r.Kind, r.Rule, r.Diag}
}

func clean(r tool.Result) bool { return !r.TimedOut && r.Signal == "" && r.ExitCode == 0 }

// decider collects the outcomes one run settles.
type decider struct {
	o   *Oracle
	m   *module
	rep batch.Report
}

func (d *decider) set(pos int, oc outcome) {
	if oc.rule == RuleInvalidIR {
		slog.Warn("llvm renderer produced invalid IR", "oracle", d.o.Name(), "case", d.m.cases[pos].ID, "diag", oc.diag)
	}
	d.rep.Decide(pos, batch.Outcome{Kind: oc.kind, Rule: oc.rule, Diagnostic: oc.diag})
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
	wrote := entries(ptx)
	var code map[string]string // the entries' text, cut when a value check first needs it
	for pos, id := range d.m.ids {
		if _, ok := unknown[pos]; !ok && wrote[id] {
			d.o.learn(d.m.uses[pos])
		}
		switch name, ok := unknown[pos]; {
		case ok:
			d.set(pos, outcome{oracles.Unsupported, ruleNoIntrinsic, fmt.Sprintf(
				"llc %s has no intrinsic %s: it compiled the call as an external function", d.o.Version(), name)})
		case wrote[id] && valuecheck.Checks(d.m.cases[pos].Domain):
			if code == nil {
				code = emitted.Entries(ptx)
			}
			d.set(pos, d.checkValues(pos, code[fmt.Sprintf("k_%d", id)]))
		case wrote[id]:
			d.set(pos, outcome{oracles.Accept, RuleAccepted, ""})
		case single:
			d.set(pos, outcome{oracles.Error, RuleUnexplained, "llc exited 0 but its PTX has no entry for the kernel"})
		}
	}
}

// checkValues is an accepted kernel's outcome: accepted, unless its PTX
// computes something other than its intrinsic means (package valuecheck),
// a silent miscompile "ptx/value".
func (d *decider) checkValues(pos int, entry string) outcome {
	k := valuecheck.Kernel{Params: d.m.roles[pos], Insts: emitted.Eval(entry)}
	if m := valuecheck.Check(d.m.cases[pos], k); m != nil {
		return outcome{oracles.Error, oracles.Stage{Name: "ptx", Fault: oracles.WrongValue}.String(), m.Diagnostic()}
	}
	return outcome{oracles.Accept, RuleAccepted, ""}
}

// failed settles what a failed run allows: the whole verdict of a single
// kernel, or the kernel a stack dump or the traced run names.
func (d *decider) failed(r llcRun) {
	oc := classify(r.res, d.o.timeout().String())
	if len(d.m.ids) == 1 {
		d.set(0, oc)
		return
	}
	pos, trusted, ok := attribution(d.m, r.res.Output(), false)
	if !ok && r.traced != nil {
		if clean(*r.traced) || classify(*r.traced, "").rule != oc.rule {
			return // not reproducible under tracing: the run is cut
		}
		pos, trusted, ok = attribution(d.m, r.traced.Output(), true)
	}
	if !ok {
		return
	}
	d.set(pos, oc)
	for p := 0; trusted && p < pos; p++ {
		if d.o.knows(d.m.uses[p]) {
			d.set(p, outcome{oracles.Accept, RuleAccepted, ""})
		}
	}
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
	Cases  []domain.Case
	Module []byte
	Args   []string
}

// Render lays out the cases this llc can judge exactly as Judge's first
// runs do: grouped by target, expected accepts first, at most BatchSize
// kernels per module. Set BatchSize to 1 for one case per process.
func (o *Oracle) Batches(cases []domain.Case) ([]Batch, error) {
	runs, err := o.engine().FirstPass(cases)
	if err != nil {
		return nil, err
	}
	bs := make([]Batch, len(runs))
	for i, jobs := range runs {
		m, err := o.Render(jobs)
		if err != nil {
			return nil, err
		}
		t := jobs[0].c.Value.Target()
		bs[i] = Batch{Target: t, Cases: m.cases, Module: m.text, Args: llcArgs(t)}
	}
	return bs, nil
}
