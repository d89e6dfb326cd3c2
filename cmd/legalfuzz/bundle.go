package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/corpus/repro"
)

type bundleOptions struct {
	storeReadFlags
	out string
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
the driver call's parameters), commands.txt (the exact command lines), versions.txt (the oracle versions of
the stored verdicts), expected.txt and observed.txt (the verdicts of the bucket's oracle pair), bucket.json,
and issue.md (an upstream issue: title in the tool's terms, the input, the command, actual vs expected with
the PTX ISA section, the versions that reproduce).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.open()
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
			issue, err := repro.WriteIssue(b)
			if err != nil {
				return err
			}
			b.Files = append(b.Files, issue)
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "bucket %s: %s\n", b.Bucket.Key, b.Bucket.Title)
			for _, f := range b.Files {
				fmt.Fprintln(w, f)
			}
			fmt.Fprintf(w, "replay: legalfuzz check --domain %s %s\n", b.Case.Domain, filepath.Join(b.Dir, repro.CaseFile))
			return nil
		},
	}
	f := cmd.Flags()
	o.storeReadFlags.add(cmd)
	f.StringVar(&o.out, "out", "", "folder to write the bundle into (DIR/<bucket key>/)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
