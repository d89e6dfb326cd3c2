// Package batch is the one batch engine of the tool oracles (ptxas, llc,
// mlir-opt, llvm-mc, the CUDA JIT). A tool is slow to start and fast on a
// large input, so an oracle judges many cases in one tool run; the engine
// decides which cases share a run, maps what the run says back to each case
// exactly, and runs again only what nothing attributed.
//
// Each oracle brings what is truly its own, a Tool: Render lays out items
// (cases prepared for the tool) as one tool input and remembers where each
// item went (line ranges, chunk indices, entry names); Run runs the tool on
// that input; Parse reads the output into a Report, the outcome of every
// item the run decides. What a run decides is the tool's nature: ptxas and
// mlir-opt report every bad case and a clean exit accepts the rest; llc
// stops at the first fatal error, so a run decides the kernels before it and
// the culprit; a crash decides nothing. The engine does the rest, once for
// every oracle: duplicates judged once, unsupported cases kept out of runs,
// groups (cases that may share a run: one target, one set of flags), runs
// planned by prediction, undecided items run again, suspects (where a tool
// crashed or hung) run alone, and a run that decides nothing cut in parts
// until each item is alone; a tool run on one item must decide it.
//
// Planning. Options.Plan lays out a group's first runs from what each item
// is expected to get (spec/ptxisa's verdict, see Predict). Expected accepts
// go together in large runs, which then exit cleanly and decide every item
// at once. Expected rejects go together in other runs: a tool that reports
// every error (ReportsAll) attributes them all by position in one run; for
// a tool that stops at the first fatal error (StopsAtFirst) they follow the
// accepts, so that the run decides every accept and the first reject. A
// misprediction costs a run, never a verdict: the engine never decides an
// item, only Parse does, from the tool's own output. What a run stopped at
// leaves is planned again the same way (see stopped). Predictions improve
// with use: a History learns, rule by rule, what the tool does with the
// cases spec/ptxisa rejects.
//
// Runs decide disjoint items, so they need not wait for each other: the
// groups of a Judge, and the runs of a plan, go side by side up to
// Options.Parallel (the cores Go uses), which a worker with idle cores
// turns into cases per second; the verdicts are the same.
package batch

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"golang.org/x/sync/errgroup"
)

// Outcome is what the tool said about one item.
type Outcome struct {
	Kind       oracles.Kind
	Rule       string
	Diagnostic string
	Value      string
	// Output is the tool's output for the item, for a pipeline that hands
	// it to the next tool (mlir's lowering); empty otherwise.
	Output string
}

// Report is what one run decided: the outcome of each item it attributes,
// by position in the run's items. Items it does not decide are run again.
type Report struct {
	Decided map[int]Outcome
	// Suspects are positions the tool stopped in (a crash, a hang): each
	// runs alone next, so that its failure is its own.
	Suspects []int
}

// Decide records the outcome of item pos.
func (r *Report) Decide(pos int, o Outcome) {
	if r.Decided == nil {
		r.Decided = map[int]Outcome{}
	}
	r.Decided[pos] = o
}

// Tool is an oracle's own part of batching: lay items out as one tool
// input, run the tool on it, read the output. Its methods are called from
// several goroutines at once (see Options.Parallel).
type Tool[I, In, Out any] interface {
	// Render lays out items, all of one group, as one tool input that
	// remembers where each item is.
	Render(items []I) (In, error)
	// Run runs the tool on in. Its error is for harness failures (a tool
	// that cannot be started, a cancelled ctx); a tool that crashes is an
	// Out that Parse reads.
	Run(ctx context.Context, in In) (Out, error)
	// Parse reads a run's output. A run of one item must decide it.
	Parse(in In, out Out) Report
}

// Mode says how a tool goes on after an error in one item.
type Mode int

const (
	// ReportsAll: the tool reports the errors of every item it reads (ptxas,
	// mlir-opt --split-input-file, llvm-mc).
	ReportsAll Mode = iota
	// StopsAtFirst: the tool stops at the first fatal error (llc).
	StopsAtFirst
)

// Options tune the engine for one tool.
type Options struct {
	// MaxBatch caps the items of one run; zero means no cap and 1 runs
	// every item alone (for benchmarks and for checking attribution).
	MaxBatch int
	// Mode is how the tool goes on after an error; it shapes the plan.
	Mode Mode
	// Parts is how many parts a run that decides nothing is cut into; zero
	// means 2. With several culprits in a run, more parts cost fewer runs.
	Parts int
	// Parallel is how many tool runs may be under way at once; zero means
	// GOMAXPROCS. The runs in a plan, and the groups of an Engine, decide
	// disjoint items, so a worker with idle cores uses them; 1 runs one
	// after another (a tool that must not run twice at once).
	Parallel int
}

func (o Options) parallel() int {
	if o.Parallel < 1 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Parallel
}

func (o Options) parts() int {
	if o.Parts < 2 {
		return 2
	}
	return o.Parts
}

// Unattributed is the rule of an item the tool gave no readable answer
// about even alone: Parse broke its promise, or the tool said nothing.
const Unattributed = "batch.unattributed"

// Decide runs t over items (all of one group) until every item has an
// outcome, and returns them in order. expect, when not nil, holds each
// item's expected kind (Accept, Reject, or "" when unknown) for the plan.
// Up to opts.Parallel runs are under way at once; each run's follow-ups go
// to the front of the queue.
func Decide[I, In, Out any](ctx context.Context, t Tool[I, In, Out], items []I, expect []oracles.Kind, opts Options) ([]Outcome, error) {
	out := make([]Outcome, len(items))
	type done struct {
		next [][]int
		err  error
	}
	results := make(chan done)
	queue := plan(len(items), expect, opts)
	var first error
	for busy := 0; busy > 0 || (len(queue) > 0 && first == nil); {
		if len(queue) > 0 && first == nil && busy < opts.parallel() {
			if first = ctx.Err(); first == nil {
				run := queue[0]
				queue = queue[1:]
				busy++
				go func() {
					next, err := runOnce(ctx, t, items, run, out, expect, opts)
					results <- done{next, err}
				}()
			}
			continue
		}
		d := <-results
		busy--
		if d.err != nil && first == nil {
			first = d.err
		}
		queue = append(d.next, queue...)
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// runOnce runs the items at positions idx, records what the run decides in
// out, and returns the runs still needed for the rest.
func runOnce[I, In, Out any](ctx context.Context, t Tool[I, In, Out], items []I, idx []int, out []Outcome, expect []oracles.Kind, opts Options) ([][]int, error) {
	batch := make([]I, len(idx))
	for i, j := range idx {
		batch[i] = items[j]
	}
	t0 := time.Now()
	in, err := t.Render(batch)
	if err != nil {
		return nil, err
	}
	res, err := t.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	rep := t.Parse(in, res)
	slog.Debug("batch: run", "items", len(idx), "decided", len(rep.Decided), "suspects", len(rep.Suspects), "took", time.Since(t0))
	var rest []int
	suspect := map[int]bool{}
	for _, p := range rep.Suspects {
		if p >= 0 && p < len(idx) {
			suspect[p] = true
		}
	}
	var alone [][]int
	for p, j := range idx {
		switch o, ok := rep.Decided[p]; {
		case ok:
			out[j] = o
		case suspect[p]:
			alone = append(alone, []int{j})
		default:
			rest = append(rest, j)
		}
	}
	switch {
	case len(rest) == len(idx) && len(idx) == 1:
		out[idx[0]] = Outcome{Kind: oracles.Error, Rule: Unattributed,
			Diagnostic: "the tool's output says nothing readable about the case, even alone"}
		return nil, nil
	case len(rest) == len(idx):
		slog.Debug("batch: a run decided nothing, cutting it", "items", len(idx), "parts", opts.parts())
		return cut(rest, opts.parts()), nil
	}
	if opts.Mode == StopsAtFirst && expect != nil {
		return append(alone, stopped(rest, expect)...), nil
	}
	if len(rest) > 0 {
		alone = append(alone, rest)
	}
	return alone, nil
}

// stopped lays out what follows the culprit of a run that stopped at its
// first failure (StopsAtFirst): one run for the expected accepts and the
// first expected failure, then each other expected failure alone. Each
// failure ends a run, whatever shares it, and a run compiles all it holds
// up to there: run with the rest, the rest is compiled again for every
// failure (llc 22 compiled each case of its mixed bench six times so; alone,
// 1.6 times).
func stopped(rest []int, expect []oracles.Kind) [][]int {
	var lead, fail []int
	for _, i := range rest {
		if expect[i] == oracles.Reject {
			fail = append(fail, i)
		} else {
			lead = append(lead, i)
		}
	}
	if len(fail) > 0 {
		lead, fail = append(lead, fail[0]), fail[1:]
	}
	var runs [][]int
	if len(lead) > 0 {
		runs = append(runs, lead)
	}
	for _, i := range fail {
		runs = append(runs, []int{i})
	}
	return runs
}

// cut splits idx into n parts of nearly equal size (fewer when idx is short).
func cut(idx []int, n int) [][]int {
	size := (len(idx) + n - 1) / n
	var parts [][]int
	for p := range slices.Chunk(idx, size) {
		parts = append(parts, p)
	}
	return parts
}

// plan lays out the first runs of n items: expected accepts together,
// then the rest; for a tool that stops at the first error, the rest follow
// the accepts in the same runs, where a run decides the most.
func plan(n int, expect []oracles.Kind, opts Options) [][]int {
	var acc, rest []int
	for i := range n {
		if expect != nil && expect[i] == oracles.Accept {
			acc = append(acc, i)
		} else {
			rest = append(rest, i)
		}
	}
	var runs [][]int
	add := func(idx []int) {
		if len(idx) == 0 {
			return
		}
		size := len(idx)
		if opts.MaxBatch > 0 {
			size = opts.MaxBatch
		}
		for p := range slices.Chunk(idx, size) {
			runs = append(runs, p)
		}
	}
	if opts.Mode == StopsAtFirst {
		add(append(acc, rest...))
	} else {
		add(acc)
		add(rest)
	}
	return runs
}

// Prepared is one case made ready for the tool.
type Prepared[I any] struct {
	Item I
	// Group keys the items that may share a run (same target, same flags);
	// groups run in order of first appearance.
	Group string
	// Expect is the verdict the item is expected to get, for the plan; ""
	// when there is no prediction.
	Expect oracles.Kind
	// Rule is the rule spec/ptxisa rejects the case for, if any: the
	// engine tells the History what the tool did with it.
	Rule string
}

// CaseTool is a Tool that also prepares cases.
type CaseTool[I, In, Out any] interface {
	Tool[I, In, Out]
	// Prepare makes a case ready for the tool, or returns an
	// *oracles.NoSpelling; any other error is a harness failure.
	Prepare(c domain.Case) (Prepared[I], error)
}

// Engine judges cases with a CaseTool.
type Engine[I, In, Out any] struct {
	// Oracle and Version fill the verdicts.
	Oracle, Version string
	Tool            CaseTool[I, In, Out]
	Options         Options
	// Gate, when set, decides some prepared items before any run (a module
	// header the tool refuses for a whole target); it returns one entry per
	// item, nil where the item is left to the runs.
	Gate func(ctx context.Context, items []I) ([]*Outcome, error)
	// History, when set, learns the tool's verdicts on the rules of the
	// cases it prepared (see History).
	History *History
}

// job is one distinct case on its way through the engine.
type job[I any] struct {
	pos []int // positions of the case in Judge's cases
	p   Prepared[I]
}

// Judge returns exactly one verdict per case, in order. A case repeated in
// cases is judged once. Its error is for harness failures only.
func (e *Engine[I, In, Out]) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	t0 := time.Now()
	groups, order, err := e.prepare(cases, out)
	if err != nil {
		return nil, err
	}
	slog.Debug("batch: prepared", "oracle", e.Oracle, "cases", len(cases), "groups", len(order), "took", time.Since(t0))
	if err := e.judgeGroups(ctx, groups, order, cases, out); err != nil {
		return nil, err
	}
	e.History.Save()
	return out, nil
}

// judgeGroups judges the groups, up to Options.Parallel at once, in order
// of first appearance; the runs within a group go one after another. The
// first harness failure cancels the rest.
func (e *Engine[I, In, Out]) judgeGroups(ctx context.Context, groups map[string][]*job[I], order []string, cases []domain.Case, out []oracles.Verdict) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.Options.parallel())
	for _, k := range order {
		g.Go(func() error { return e.judgeGroup(gctx, groups[k], cases, out) })
	}
	return g.Wait()
}

// prepare fills the unsupported verdicts and groups the other distinct
// cases, in order of first appearance.
func (e *Engine[I, In, Out]) prepare(cases []domain.Case, out []oracles.Verdict) (map[string][]*job[I], []string, error) {
	seen := map[string]*job[I]{}
	groups := map[string][]*job[I]{}
	var order []string
	for i, c := range cases {
		if j, ok := seen[c.ID]; ok {
			j.pos = append(j.pos, i)
			continue
		}
		j := &job[I]{pos: []int{i}}
		seen[c.ID] = j
		if c.Value == nil {
			return nil, nil, fmt.Errorf("%s: case %s has no value", e.Oracle, c.ID)
		}
		p, err := e.Tool.Prepare(c)
		if ns, ok := oracles.AsNoSpelling(err); ok {
			out[i] = e.verdict(c, Outcome{Kind: oracles.Unsupported, Rule: ns.Rule(), Diagnostic: ns.Detail})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: case %s: %w", e.Oracle, c.ID, err)
		}
		j.p = p
		if _, ok := groups[p.Group]; !ok {
			order = append(order, p.Group)
		}
		groups[p.Group] = append(groups[p.Group], j)
	}
	for _, j := range seen {
		for _, i := range j.pos[1:] {
			out[i] = out[j.pos[0]]
		}
	}
	return groups, order, nil
}

// judgeGroup gates and decides one group's jobs and writes their verdicts
// at every position of their case.
func (e *Engine[I, In, Out]) judgeGroup(ctx context.Context, jobs []*job[I], cases []domain.Case, out []oracles.Verdict) error {
	items := make([]I, len(jobs))
	for i, j := range jobs {
		items[i] = j.p.Item
	}
	gated := make([]*Outcome, len(jobs))
	if e.Gate != nil {
		var err error
		if gated, err = e.Gate(ctx, items); err != nil {
			return err
		}
	}
	var open []int
	var expect []oracles.Kind
	for i, g := range gated {
		if g == nil {
			open = append(open, i)
			expect = append(expect, jobs[i].p.Expect)
		}
	}
	rest := make([]I, len(open))
	for k, i := range open {
		rest[k] = items[i]
	}
	one := e.Options
	one.Parallel = 1 // the groups run in parallel instead
	decided, err := Decide(ctx, e.Tool, rest, expect, one)
	if err != nil {
		return err
	}
	for k, i := range open {
		gated[i] = &decided[k]
	}
	for i, j := range jobs {
		e.History.Observe(j.p.Rule, gated[i].Kind)
		v := e.verdict(cases[j.pos[0]], *gated[i])
		for _, p := range j.pos {
			out[p] = v
		}
	}
	return nil
}

func (e *Engine[I, In, Out]) verdict(c domain.Case, o Outcome) oracles.Verdict {
	return oracles.Verdict{Oracle: e.Oracle, Version: e.Version, Case: c.ID, Domain: c.Domain,
		Kind: o.Kind, Rule: o.Rule, Diagnostic: o.Diagnostic, Value: o.Value}
}

// FirstPass lays out the runs Judge starts with for cases (unsupported
// cases left out, no gate), for benchmarks that time the bare tool on
// exactly those inputs.
func (e *Engine[I, In, Out]) FirstPass(cases []domain.Case) ([][]I, error) {
	groups, order, err := e.prepare(cases, make([]oracles.Verdict, len(cases)))
	if err != nil {
		return nil, err
	}
	var runs [][]I
	for _, g := range order {
		jobs := groups[g]
		expect := make([]oracles.Kind, len(jobs))
		for i, j := range jobs {
			expect[i] = j.p.Expect
		}
		for _, idx := range plan(len(jobs), expect, e.Options) {
			run := make([]I, len(idx))
			for k, i := range idx {
				run[k] = jobs[i].p.Item
			}
			runs = append(runs, run)
		}
	}
	return runs, nil
}
