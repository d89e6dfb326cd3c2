package ptxas

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// maxDiag bounds the tool output kept in an error verdict.
const maxDiag = 4000

// item is one distinct case to assemble, with its rendered entry.
type item struct {
	c domain.Case
	e ptx.Entry
}

// Batch is one module exactly as ptxas gets it: what a benchmark times.
type Batch struct {
	Target target.Target
	// Text is the module; Lines maps its lines to Cases.
	Text  string
	Lines ptx.LineTable
	Cases []domain.Case
}

// Judge assembles the cases in one module per (target, PTX version) group
// and returns one verdict per case, in order. Cases this release cannot
// judge, or that PTX cannot spell, are unsupported without running ptxas.
// The error is only for harness failures: a cancelled ctx, a ptxas that
// cannot be started, a value of the wrong type.
func (o *Oracle) Judge(ctx context.Context, cases []domain.Case) ([]oracles.Verdict, error) {
	out := make([]oracles.Verdict, len(cases))
	groups, index, err := o.plan(cases, out)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "legalfuzz-ptxas-")
	if err != nil {
		return nil, fmt.Errorf("ptxas: %w", err)
	}
	defer os.RemoveAll(dir)
	for _, g := range groups {
		hdr, err := o.checkHeader(ctx, dir, g[0].e.Target)
		if err != nil {
			return nil, err
		}
		if len(hdr) > 0 {
			for _, it := range g {
				for _, i := range index[it.c.ID] {
					out[i] = o.verdict(it.c, oracles.Reject, strings.Join(hdr, "\n"))
				}
			}
			continue
		}
		for _, chunk := range o.chunks(g) {
			vs, err := o.judgeItems(ctx, dir, chunk)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				for _, i := range index[v.Case] {
					out[i] = v
				}
			}
		}
	}
	return out, nil
}

// plan fills the verdicts that need no ptxas run and groups the other
// distinct cases by target, in order of first appearance. index maps a case
// ID to every position it holds in cases.
func (o *Oracle) plan(cases []domain.Case, out []oracles.Verdict) ([][]item, map[string][]int, error) {
	index := map[string][]int{}
	byTarget := map[target.Target]int{}
	var groups [][]item
	for i, c := range cases {
		if seen := index[c.ID]; len(seen) > 0 {
			index[c.ID] = append(seen, i)
			out[i] = out[seen[0]]
			continue
		}
		index[c.ID] = []int{i}
		it, reason, err := o.prepare(c)
		if err != nil {
			return nil, nil, err
		}
		if reason != "" {
			out[i] = o.verdict(c, oracles.Unsupported, reason)
			continue
		}
		g, ok := byTarget[it.e.Target]
		if !ok {
			g = len(groups)
			byTarget[it.e.Target] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], it)
	}
	return groups, index, nil
}

// prepare renders one case, or says why this release cannot judge it.
func (o *Oracle) prepare(c domain.Case) (item, string, error) {
	if !ptx.Renders(c.Domain) {
		return item{}, fmt.Sprintf("no PTX renderer for domain %s", c.Domain), nil
	}
	if c.Value == nil {
		return item{}, "", fmt.Errorf("ptxas: case %s has no value", c.ID)
	}
	if reason := o.unsupported(c.Value.Target()); reason != "" {
		return item{}, reason, nil
	}
	e, err := ptx.Render(c)
	if errors.Is(err, ptx.ErrNoSpelling) {
		return item{}, err.Error(), nil
	}
	if err != nil {
		return item{}, "", fmt.Errorf("ptxas: %w", err)
	}
	return item{c, e}, "", nil
}

// chunks splits a group by BatchSize.
func (o *Oracle) chunks(g []item) [][]item {
	if o.BatchSize <= 0 || len(g) <= o.BatchSize {
		return [][]item{g}
	}
	var out [][]item
	for len(g) > 0 {
		n := min(o.BatchSize, len(g))
		out = append(out, g[:n])
		g = g[n:]
	}
	return out
}

// Batches renders cases into the modules Judge assembles (unsupported cases
// left out), for benchmarks that time the bare tool on the same files with
// CommandArgs. A group whose header ptxas refuses is listed too, though
// Judge rejects its cases from the header probe alone.
func (o *Oracle) Batches(cases []domain.Case) ([]Batch, error) {
	groups, _, err := o.plan(cases, make([]oracles.Verdict, len(cases)))
	if err != nil {
		return nil, err
	}
	var out []Batch
	for _, g := range groups {
		for _, chunk := range o.chunks(g) {
			text, lines, err := module(chunk)
			if err != nil {
				return nil, err
			}
			b := Batch{Target: chunk[0].e.Target, Text: text, Lines: lines}
			for _, it := range chunk {
				b.Cases = append(b.Cases, it.c)
			}
			out = append(out, b)
		}
	}
	return out, nil
}

func module(items []item) (string, ptx.LineTable, error) {
	entries := make([]ptx.Entry, len(items))
	for i, it := range items {
		entries[i] = it.e
	}
	text, table, err := ptx.Module(entries)
	if err != nil {
		return "", ptx.LineTable{}, fmt.Errorf("ptxas: %w", err)
	}
	return text, table, nil
}

// judgeItems assembles items (one target) until every one has a verdict:
// rejected cases leave, the rest are assembled again until ptxas exits 0 on
// them, since an error can stop ptxas before it reaches later entries. A
// crash, a timeout or output that names no case splits the items in two.
func (o *Oracle) judgeItems(ctx context.Context, dir string, items []item) ([]oracles.Verdict, error) {
	var out []oracles.Verdict
	for len(items) > 0 {
		res, rep, err := o.assemble(ctx, dir, items)
		if err != nil {
			return nil, err
		}
		if len(items) == 1 {
			return append(out, o.single(items[0].c, res, rep)), nil
		}
		if res.TimedOut || res.Crashed() || (res.ExitCode != 0 && (len(rep.stray) > 0 || len(rep.errs) == 0)) {
			slog.Debug("ptxas: bisecting a batch", "cases", len(items), "exit", res.ExitCode,
				"timedOut", res.TimedOut, "crashed", res.Crashed())
			return o.bisect(ctx, dir, items, out)
		}
		var rest []item
		for i, it := range items {
			switch errs := rep.errs[i]; {
			case len(errs) > 0:
				out = append(out, o.verdict(it.c, oracles.Reject, strings.Join(errs, "\n")))
			case res.ExitCode == 0:
				out = append(out, o.verdict(it.c, oracles.Accept, ""))
			default:
				rest = append(rest, it)
			}
		}
		items = rest
	}
	return out, nil
}

// bisect judges each half of items on its own and appends their verdicts.
func (o *Oracle) bisect(ctx context.Context, dir string, items []item, out []oracles.Verdict) ([]oracles.Verdict, error) {
	half := len(items) / 2
	for _, part := range [][]item{items[:half], items[half:]} {
		vs, err := o.judgeItems(ctx, dir, part)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// single is the verdict on a case assembled alone: every error line is its.
func (o *Oracle) single(c domain.Case, res tool.Result, rep report) oracles.Verdict {
	switch {
	case res.TimedOut:
		return o.verdict(c, oracles.Timeout, fmt.Sprintf("%s did not finish within %s", o.cfg.Name, o.timeout()))
	case res.Crashed():
		return o.verdict(c, oracles.Error, o.crashText(res))
	}
	errs := rep.errs[0]
	for _, l := range rep.stray {
		if strings.HasPrefix(l, "error") || strings.HasPrefix(l, "fatal") {
			errs = append(errs, l)
		}
	}
	switch {
	case len(errs) > 0:
		return o.verdict(c, oracles.Reject, strings.Join(errs, "\n"))
	case res.ExitCode == 0:
		return o.verdict(c, oracles.Accept, "")
	}
	return o.verdict(c, oracles.Error, o.crashText(res))
}

// crashText describes a failed run: exit status or signal, and the
// normalized output, bounded.
func (o *Oracle) crashText(res tool.Result) string {
	status := fmt.Sprintf("exit status %d", res.ExitCode)
	if res.Signal != "" {
		status = "killed by signal " + res.Signal
	}
	out := diag.Normalize(strings.TrimSpace(res.Output()))
	if len(out) > maxDiag {
		out = out[:maxDiag] + "..."
	}
	if out == "" {
		return o.cfg.Name + " failed (" + status + ") with no output"
	}
	return o.cfg.Name + " failed (" + status + "): " + out
}

// assemble writes items as one module and runs ptxas on it.
func (o *Oracle) assemble(ctx context.Context, dir string, items []item) (tool.Result, report, error) {
	text, table, err := module(items)
	if err != nil {
		return tool.Result{}, report{}, err
	}
	path := filepath.Join(dir, "batch.ptx")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return tool.Result{}, report{}, fmt.Errorf("ptxas: %w", err)
	}
	res, err := o.tool.Run(ctx, o.timeout(), nil, o.CommandArgs(items[0].e.Target.Arch, path)...)
	if err != nil {
		return tool.Result{}, report{}, fmt.Errorf("ptxas: %w", err)
	}
	names := make(map[string]int, len(items))
	for i, it := range items {
		names[it.e.Name] = i
	}
	return res, parseOutput(res.Output(), table, names), nil
}
