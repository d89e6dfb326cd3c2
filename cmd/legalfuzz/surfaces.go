package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/store/tally"
	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// surfaceExamples is how many ops each reason names in the listing.
const surfaceExamples = 3

// writeSurfaces lists, per LLVM installation and dialect, the ops its own
// TableGen sources define, those legalfuzz can write, and the reasons for
// the rest. With a store (withStore), it adds of the translated,
// instantiable ops those the installation's nvvm-op judge judged at least
// once and those that reached llc (ops, the store's op coverage), and why
// the rest did not.
func writeSurfaces(ctx context.Context, w io.Writer, ops []tally.OpCoverage, withStore bool) error {
	found, _, err := toolchain.Discover(ctx, userToolchains)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nOP SURFACES (each LLVM installation's own TableGen definitions)")
	header := "LLVM\tDIALECT\tOPS\tINSTANTIABLE\tTRANSLATED\tTRANSLATED, INSTANTIABLE"
	if withStore {
		header += "\tJUDGED (STORE)\tREACHED LLC (STORE)"
	}
	tw := newTable(w, header)
	var reasons, unreached []string
	for _, in := range found {
		for _, src := range surface.Sources {
			s, err := surface.Read(ctx, in, src)
			if errors.Is(err, surface.ErrNoSources) {
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t%v\n", in.Label, src.Dialect, err)
				continue
			}
			if err != nil {
				return err
			}
			c := s.Coverage()
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s", in.Label, c.Dialect, c.Ops, c.Instantiable, c.Lowering,
				share(c.LoweringInstantiable, c.Lowering))
			if withStore {
				cov, asked := opCoverageOf(ops, oracles.Installed(oracles.NVVMOp, in.Label))
				r := reach(s, cov, asked)
				fmt.Fprintf(tw, "\t%s\t%s", r.judgedText(), r.reachedText())
				for _, g := range r.rest {
					unreached = append(unreached, fmt.Sprintf("  %s %s\t%d\t%s\t%s", in.Label, c.Dialect, len(g.ops), g.why, examples(g.ops)))
				}
			}
			fmt.Fprintln(tw)
			for _, r := range c.Reasons {
				reasons = append(reasons, fmt.Sprintf("  %s %s\t%d\t%s\t%s", in.Label, c.Dialect, len(r.Ops), r.Reason, examples(r.Ops)))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "\nWHY THE REST ARE NOT INSTANTIABLE")
		if err := writeLines(w, "  LLVM DIALECT\tOPS\tREASON\tFOR EXAMPLE", reasons); err != nil {
			return err
		}
	}
	if len(unreached) > 0 {
		fmt.Fprintln(w, "\nWHY THE REST OF THE TRANSLATED, INSTANTIABLE OPS DID NOT REACH LLC (the store's verdicts)")
		return writeLines(w, "  LLVM DIALECT\tOPS\tOUTCOMES\tFOR EXAMPLE", unreached)
	}
	return nil
}

// writeLines writes a table of tab-separated lines under its header.
func writeLines(w io.Writer, header string, lines []string) error {
	tw := newTable(w, header)
	for _, line := range lines {
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// opCoverageOf is the oracle's op coverage, false when the store has none.
func opCoverageOf(ops []tally.OpCoverage, oracle string) (tally.OpCoverage, bool) {
	for _, c := range ops {
		if c.Oracle == oracle {
			return c, true
		}
	}
	return tally.OpCoverage{}, false
}

// opReach is how far a surface's translated, instantiable ops came in a
// store: judged at least once, reached llc, and the rest grouped by why.
type opReach struct {
	asked                   bool // the store has verdicts of the installation's judge
	ops, judged, reachedLLC int
	rest                    []unreachedOps
}

// unreachedOps are ops that did not reach llc for one reason: their
// outcomes (most cases first), or that no case of theirs was judged.
type unreachedOps struct {
	why string
	ops []string
}

// reach counts the surface's translated, instantiable ops in cov.
func reach(s opsurface.Surface, cov tally.OpCoverage, asked bool) opReach {
	r := opReach{asked: asked}
	byWhy := map[string][]string{}
	for _, op := range s.Ops {
		if op.Unusable != nil || op.Lowering.Kind == opsurface.NoLowering {
			continue
		}
		r.ops++
		cell, ok := cov.Cell(op.Name)
		if ok && cell.Judged() {
			r.judged++
		}
		if ok && cell.ReachedLLC() {
			r.reachedLLC++
			continue
		}
		why := "no case judged"
		if ok {
			why = outcomes(cell)
		}
		byWhy[why] = append(byWhy[why], op.Name)
	}
	if !asked {
		return r
	}
	for why, ops := range byWhy {
		r.rest = append(r.rest, unreachedOps{why: why, ops: ops})
	}
	slices.SortFunc(r.rest, func(a, b unreachedOps) int { return cmp.Or(len(b.ops)-len(a.ops), strings.Compare(a.why, b.why)) })
	return r
}

// outcomes names an op's outcomes, most cases first.
func outcomes(c tally.OpCell) string {
	names := slices.Collect(maps.Keys(c.Outcomes))
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(c.Outcomes[b]-c.Outcomes[a], strings.Compare(a, b)) })
	return strings.Join(names, ", ")
}

func (r opReach) judgedText() string {
	if !r.asked {
		return "-"
	}
	return share(r.judged, r.ops)
}

func (r opReach) reachedText() string {
	if !r.asked {
		return "-"
	}
	return share(r.reachedLLC, r.ops)
}

// share writes n of total with its percentage.
func share(n, total int) string {
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%d%%)", n, n*100/total)
}

// examples names the first ops of a list.
func examples(ops []string) string {
	if len(ops) <= surfaceExamples {
		return strings.Join(ops, ", ")
	}
	return strings.Join(ops[:surfaceExamples], ", ") + fmt.Sprintf(", ... (%d more)", len(ops)-surfaceExamples)
}
