package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/surface"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// surfaceExamples is how many ops each reason names in the listing.
const surfaceExamples = 3

// writeSurfaces lists, per LLVM installation and dialect, the ops its own
// TableGen sources define, those legalfuzz can write, and the reasons for
// the rest.
func writeSurfaces(ctx context.Context, w io.Writer) error {
	found, _, err := toolchain.Discover(ctx, userToolchains)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nOP SURFACES (each LLVM installation's own TableGen definitions)")
	tw := newTable(w, "LLVM\tDIALECT\tOPS\tINSTANTIABLE\tTRANSLATED\tTRANSLATED, INSTANTIABLE")
	var reasons []string
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
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", in.Label, c.Dialect, c.Ops, c.Instantiable, c.Lowering,
				share(c.LoweringInstantiable, c.Lowering))
			for _, r := range c.Reasons {
				reasons = append(reasons, fmt.Sprintf("  %s %s\t%d\t%s\t%s", in.Label, c.Dialect, len(r.Ops), r.Reason, examples(r.Ops)))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(reasons) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nWHY THE REST ARE NOT INSTANTIABLE")
	tw = newTable(w, "  LLVM DIALECT\tOPS\tREASON\tFOR EXAMPLE")
	for _, line := range reasons {
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
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
