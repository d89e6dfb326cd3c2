package ptxas

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/ptx"
)

// probeEntry is the empty kernel a header is checked with: ptxas checks
// .version against .target only once it reaches an entry.
const probeEntry = "\n.visible .entry probe()\n{\n\tret;\n}\n"

// headerKey is a target's key in the probe cache.
func headerKey(t target.Target) string { return "header " + t.Arch.String() + " " + t.PTX.String() }

// gate rejects the items whose module header ptxas refuses (a .version that
// does not support the .target) with the header's errors. In a module with
// cases, ptxas reports a bad header after the errors of the entries it
// parsed, or not at all when an entry stops its parser, so which cases "see"
// it would depend on the batch. Judged apart, a bad header rejects every
// case of its target with the same diagnostic, batched or not.
func (o *Oracle) gate(ctx context.Context, items []item) ([]*batch.Outcome, error) {
	var ts []target.Target
	for _, it := range items {
		ts = append(ts, it.e.Target)
	}
	hdrs, err := o.checkHeaders(ctx, ts)
	if err != nil {
		return nil, err
	}
	out := make([]*batch.Outcome, len(items))
	for i, it := range items {
		if errs := hdrs[it.e.Target]; len(errs) > 0 {
			out[i] = &batch.Outcome{Kind: oracles.Reject, Diagnostic: strings.Join(errs, "\n")}
		}
	}
	return out, nil
}

// probes opens the oracle's probe cache once.
func (o *Oracle) probes() *batch.Probes {
	return o.learned.Open(o.cfg.Name, o.tool.Version, o.tool.Path)
}

// checkHeaders returns ptxas's errors about the header of each target's
// modules (targets of one architecture), from assembling an empty kernel
// under each header: once per (ptxas, target) for the life of the cache.
// A probe that crashes or hangs says nothing; its target's cases are then
// assembled as usual.
func (o *Oracle) checkHeaders(ctx context.Context, ts []target.Target) (map[target.Target][]string, error) {
	out := map[target.Target][]string{}
	var todo []target.Target
	for _, t := range ts {
		if _, done := out[t]; done {
			continue
		}
		var errs []string
		if o.probes().Get(headerKey(t), &errs) {
			out[t] = errs
			continue
		}
		out[t] = nil
		todo = append(todo, t)
	}
	for _, t := range todo {
		errs, ok, err := o.probeHeader(ctx, t)
		if err != nil {
			return nil, err
		}
		if ok {
			out[t] = errs
			o.probes().Put(headerKey(t), errs)
		}
	}
	return out, nil
}

// probeHeader assembles an empty kernel under t's header. It runs alone:
// ptxas checks .version against .target once per run, for the last module
// of its command line only, so the header of a module among others goes
// unchecked. ok is false when the probe crashed or hung: it says nothing.
func (o *Oracle) probeHeader(ctx context.Context, t target.Target) (errs []string, ok bool, err error) {
	dir, err := os.MkdirTemp("", "legalfuzz-ptxas-probe-")
	if err != nil {
		return nil, false, fmt.Errorf("ptxas: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "header.ptx")
	if err := os.WriteFile(path, []byte(ptx.Header(t)+probeEntry), 0o644); err != nil {
		return nil, false, fmt.Errorf("ptxas: %w", err)
	}
	res, err := o.tool.Run(ctx, o.timeout(), nil, o.CommandArgs(t.Arch, path)...)
	if err != nil {
		return nil, false, fmt.Errorf("ptxas: %w", err)
	}
	if res.TimedOut || res.Crashed() {
		return nil, false, nil
	}
	errs = []string{}
	for _, line := range strings.Split(res.Output(), "\n") {
		if d, ok := parseLine(line); ok && d.isError() {
			errs = append(errs, d.text)
		}
	}
	return errs, true, nil
}
