package ptxas

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// item is one distinct case to assemble, with its rendered entry.
type item struct {
	c domain.Case
	e ptx.Entry
}

// File is one module of a run: all its entries share a target.
type File struct {
	Name   string
	Target target.Target
	Text   string
	Lines  ptx.LineTable
	// items are the positions, in the run, of the file's entries.
	items []int
}

// Batch is one ptxas run exactly as ptxas gets it, what a benchmark times:
// one module file per PTX version, all for one architecture. ptxas reads
// every file of its command line and reports each error with its file and
// line, so one clean run judges a whole architecture.
type Batch struct {
	Arch  target.Arch
	Files []File
	Cases []domain.Case
	names map[string]int // entry name → position
}

// Judge assembles the cases, one run per architecture (one module per PTX
// version in it), and returns one verdict per case, in order. Cases this
// release cannot judge, or that PTX cannot spell, are unsupported without
// running ptxas; the cases of a module header ptxas refuses are rejected
// with the header's errors (see checkHeaders). The error is only for
// harness failures: a cancelled ctx, a ptxas that cannot be started.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	return o.engine().Judge(ctx, cases)
}

func (o *Oracle) engine() *batch.Engine[item, Batch, tool.Result] {
	return &batch.Engine[item, Batch, tool.Result]{
		Oracle: o.cfg.Name, Version: o.tool.Version, Tool: o,
		Options: batch.Options{MaxBatch: o.BatchSize, Mode: batch.ReportsAll},
		Gate:    o.gate, History: o.probes().History(),
	}
}

// Prepare renders one case, or says why this release cannot judge it.
func (o *Oracle) Prepare(c domain.Case) (batch.Prepared[item], error) {
	if !ptx.Renders(c.Domain) {
		return batch.Prepared[item]{}, ptx.Reasons.New("domain", "no-renderer", "no PTX renderer for domain %s", c.Domain)
	}
	if ns := o.unsupported(c.Value.Target()); ns != nil {
		return batch.Prepared[item]{}, ns
	}
	e, err := ptx.Render(c)
	if _, ok := oracles.AsNoSpelling(err); ok {
		return batch.Prepared[item]{}, err
	}
	if err != nil {
		return batch.Prepared[item]{}, fmt.Errorf("ptxas: %w", err)
	}
	expect, rule := o.probes().History().Predict(c)
	return batch.Prepared[item]{Item: item{c, e}, Group: group(e.Target, expect), Expect: expect, Rule: rule}, nil
}

// group keys the runs a case may join. ptxas reads every module of its
// command line when they assemble, so the cases expected to be accepted
// share one run per architecture (a module per PTX version); but it stops
// after the first module with errors, so the others share one run per
// target, where one run reports the errors of every entry.
func group(t target.Target, expect oracles.Kind) string {
	if expect == oracles.Accept {
		return t.Arch.String()
	}
	return t.String()
}

// Render lays out items (one architecture) as one module per PTX version,
// in order of first appearance.
func (o *Oracle) Render(items []item) (Batch, error) {
	b := Batch{Arch: items[0].e.Target.Arch, names: map[string]int{}}
	byTarget := map[target.Target]int{}
	var entries [][]ptx.Entry
	for pos, it := range items {
		f, ok := byTarget[it.e.Target]
		if !ok {
			f = len(b.Files)
			byTarget[it.e.Target] = f
			b.Files = append(b.Files, File{Name: fmt.Sprintf("m%d.ptx", f), Target: it.e.Target})
			entries = append(entries, nil)
		}
		b.Files[f].items = append(b.Files[f].items, pos)
		entries[f] = append(entries[f], it.e)
		b.names[it.e.Name] = pos
		b.Cases = append(b.Cases, it.c)
	}
	for f := range b.Files {
		text, lines, err := ptx.Module(entries[f])
		if err != nil {
			return Batch{}, fmt.Errorf("ptxas: %w", err)
		}
		b.Files[f].Text, b.Files[f].Lines = text, lines
	}
	return b, nil
}

// Run writes the batch's modules to a temporary directory and assembles
// them in one ptxas run.
func (o *Oracle) Run(ctx context.Context, b Batch) (tool.Result, error) {
	dir, err := os.MkdirTemp("", "legalfuzz-ptxas-")
	if err != nil {
		return tool.Result{}, fmt.Errorf("ptxas: %w", err)
	}
	defer os.RemoveAll(dir)
	paths, err := b.Write(dir)
	if err != nil {
		return tool.Result{}, err
	}
	res, err := o.tool.Run(ctx, o.timeout(), nil, o.CommandArgs(b.Arch, paths...)...)
	if err != nil {
		return tool.Result{}, fmt.Errorf("ptxas: %w", err)
	}
	return res, nil
}

// Write writes the batch's modules under dir and returns their paths.
func (b Batch) Write(dir string) ([]string, error) {
	paths := make([]string, len(b.Files))
	for i, f := range b.Files {
		paths[i] = filepath.Join(dir, f.Name)
		if err := os.WriteFile(paths[i], []byte(f.Text), 0o644); err != nil {
			return nil, fmt.Errorf("ptxas: %w", err)
		}
	}
	return paths, nil
}

// Parse attributes a run's errors to entries. Entries with errors are
// rejected; a clean exit accepts every other entry. After a failed run the
// entries without errors stay undecided (an error can stop ptxas before it
// checks them) and run again. A crash, a timeout or an error that names no
// entry decides nothing. A case alone gets every error line as its own.
func (o *Oracle) Parse(b Batch, res tool.Result) batch.Report {
	rep := parseOutput(res.Output(), b)
	var r batch.Report
	if len(b.Cases) == 1 {
		r.Decide(0, o.single(res, rep))
		return r
	}
	if res.TimedOut || res.Crashed() || (res.ExitCode != 0 && (len(rep.stray) > 0 || len(rep.errs) == 0)) {
		return r
	}
	for pos := range b.Cases {
		switch errs := rep.errs[pos]; {
		case len(errs) > 0:
			r.Decide(pos, batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(errs, "\n")})
		case res.ExitCode == 0:
			r.Decide(pos, batch.Outcome{Kind: oracles.Accept})
		}
	}
	return r
}

// single is the outcome of a case assembled alone: every error line is its.
func (o *Oracle) single(res tool.Result, rep report) batch.Outcome {
	switch {
	case res.TimedOut:
		return batch.Outcome{Kind: oracles.Timeout, Diagnostic: fmt.Sprintf("%s did not finish within %s", o.cfg.Name, o.timeout())}
	case res.Crashed():
		return batch.Outcome{Kind: oracles.Error, Diagnostic: res.Failure(o.cfg.Name)}
	}
	errs := rep.errs[0]
	for _, l := range rep.stray {
		if strings.HasPrefix(l, "error") || strings.HasPrefix(l, "fatal") {
			errs = append(errs, l)
		}
	}
	switch {
	case len(errs) > 0:
		return batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(errs, "\n")}
	case res.ExitCode == 0:
		return batch.Outcome{Kind: oracles.Accept}
	}
	return batch.Outcome{Kind: oracles.Error, Diagnostic: res.Failure(o.cfg.Name)}
}

// Batches renders cases into the runs Judge's first pass makes
// (unsupported cases left out), for benchmarks that time the bare tool on
// the same files with CommandArgs. Cases of a module header ptxas refuses
// are listed too, though Judge rejects them from the header probe alone.
func (o *Oracle) Batches(cases []domain.Case) ([]Batch, error) {
	runs, err := o.engine().FirstPass(cases)
	if err != nil {
		return nil, err
	}
	var out []Batch
	for _, items := range runs {
		b, err := o.Render(items)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
