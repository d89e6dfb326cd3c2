package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/corpus/repro"
)

type bundleOptions struct {
	storeReadFlags
	out    string
	reduce bool
}

// newTriageBundleCmd is `legalfuzz triage bundle ID --out DIR`.
func newTriageBundleCmd() *cobra.Command {
	o := &bundleOptions{}
	cmd := &cobra.Command{
		Use:   "bundle ID --out DIR",
		Short: "Write a bucket's reproducer bundle into DIR/<bucket>/",
		Long: `Bundle writes the reproducer of the bucket whose key starts with ID into DIR/<bucket key>/:
case.json (the minimized case, else the example; legalfuzz check --domain D case.json replays it),
the input each disagreeing tool was given (case.ptx, case.mlir, case.ll, case.s, or case.driver.json with
the driver call's parameters), repro.sh (runs the smallest command that shows the bug on the installed tools
and exits 1 when it reproduces, 0 when it does not, 125 when this machine cannot tell: git bisect run's
convention), commands.txt (the command lines), versions.txt (the oracle versions of the stored verdicts),
expected.txt (the reference verdict: spec/ptxisa's, with its rule and source), observed.txt (the verdict of
the tool that deviates), bucket.json, and issue.md (an upstream issue: title in the tool's terms tagged with
the component that owns the bug, where to file it and whether to, the input, the command, actual vs expected
with the documentation's section, a crash's top stack frames from running repro.sh, the versions that reproduce).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.open(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer db.Close()
			found, err := discover(cmd.Context())
			if err != nil {
				return err
			}
			defer found.Close()
			b, err := repro.Write(cmd.Context(), db, args[0], o.out, found.Oracles)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "bucket %s: %s\n", b.Bucket.Key, b.Bucket.Title)
			// Reduce before the issue is written: issue.md quotes the input.
			if o.reduce {
				r, err := repro.Reduce(cmd.Context(), b)
				switch {
				case errors.Is(err, repro.ErrNothingToReduce):
					fmt.Fprintf(w, "not reduced: %s runs in process, it has no tool input\n", b.Observed.Oracle)
				case err != nil:
					// The bundle stands without it: issue.md quotes the field-minimized input.
					fmt.Fprintf(w, "not reduced: %v\n", err)
				default:
					fmt.Fprintf(w, "reduced %s: %d -> %d lines, %d -> %d bytes (%d runs of %s; checked: %s; the field-minimized input is %s)\n",
						r.File, r.LinesBefore, r.LinesAfter, r.BytesBefore, r.BytesAfter, r.Runs, repro.ScriptFile,
						cmp.Or(r.Checked, "repro.sh alone, no validator here"), r.Original)
				}
			}
			issue, err := repro.WriteIssue(cmd.Context(), b)
			if err != nil {
				return err
			}
			b.Files = append(b.Files, issue)
			for _, f := range b.Files {
				fmt.Fprintln(w, f)
			}
			fmt.Fprintf(w, "reproduce: %s (exit 1: the bug reproduces)\n", b.Script)
			fmt.Fprintf(w, "replay with every oracle: legalfuzz check --domain %s %s\n", b.Case.Domain, filepath.Join(b.Dir, repro.CaseFile))
			return nil
		},
	}
	f := cmd.Flags()
	o.storeReadFlags.add(cmd)
	f.StringVar(&o.out, "out", "", "folder to write the bundle into (DIR/<bucket key>/)")
	f.BoolVar(&o.reduce, "reduce", true, "shrink the tool input while repro.sh still reproduces the bug and the tool still reads it (keeps case.orig.*; --reduce=false keeps the field-minimized input)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
