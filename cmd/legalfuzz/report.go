package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/reports"
)

type reportOptions struct {
	storeReadFlags
	out, campaign, since, suppressions string
	formats                            []string
}

func newReportCmd() *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [--db PATH] --out DIR [--format html,md,json,junit]",
		Short: "Write the store's findings as HTML, Markdown, JSON and JUnit XML reports",
		Long: `Report reads the store (read-only) and writes into --out: report.html (one self-contained page:
summary, plots, buckets with reproducers, the seed claims matrix and the rule-agreement matrix),
report.md (a short summary for a CI comment), report.json (schema legalfuzz-report/1) and
report.junit.xml (one test case per bucket; new, still failing and regressed tool bugs fail, fixed
ones pass). Buckets first seen in the reported campaign (--campaign, default the latest) are new, unless a suppression (the store's, from triage
suppress, or --suppressions FILE) covers them. The tonight section compares the campaign with the one
before it (--since RUN): new, still failing, regressed (fixed before, back) and fixed buckets (replayed
at the end of the run with its tools), and the tool versions that changed. Exit 1 when there are new
buckets, or regressed tool bugs no suppression covers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	o.storeReadFlags.add(cmd)
	f.StringVar(&o.out, "out", "", "folder to write the reports into (created if needed)")
	f.StringSliceVar(&o.formats, "format", []string{"html", "md", "json", "junit"}, "formats to write: html, md, json, junit")
	f.StringVar(&o.campaign, "campaign", "", "campaign whose buckets are new (default: the latest)")
	f.StringVar(&o.since, "since", "", "campaign the tonight section compares with (default: the one before --campaign)")
	f.StringVar(&o.suppressions, "suppressions", "", "suppression file (JSON array) to apply as well")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func (o *reportOptions) run(cmd *cobra.Command) error {
	formats, err := reports.ParseFormats(o.formats)
	if err != nil {
		return err
	}
	var sups []store.Suppression
	if o.suppressions != "" {
		if sups, err = triage.ReadSuppressions(o.suppressions); err != nil {
			return err
		}
	}
	db, err := o.open(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	rep, err := reports.Load(db, reports.Options{Campaign: o.campaign, Since: o.since, Suppressions: sups, StorePath: o.db})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	paths, err := reports.WriteFiles(o.out, rep, formats)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	t, c := rep.Totals, rep.ClaimCounts
	camp := rep.Campaign
	if camp == "" {
		camp = "(none)"
	}
	fmt.Fprintf(w, "campaign %s: %d cases (+%d minimized), %d buckets (%d new, %d suppressed); seed claims: %d contradicted, %d confirmed, %d unverified\n",
		camp, t.Generated, t.Minimized, t.Buckets, t.New, t.Suppressed, c.Contradicted, c.Confirmed, c.Unverified)
	tn := rep.Tonight
	fmt.Fprintf(w, "tonight: %d new, %d still failing, %d regressed, %d fixed\n", tn.New, tn.Still, tn.Regressed, tn.Fixed)
	for _, p := range paths {
		fmt.Fprintln(w, p)
	}
	if t.New > 0 || regressed(rep) {
		return errFindings
	}
	return nil
}

// regressed reports whether a tool bug no suppression covers is back
// tonight after a fix.
func regressed(r *reports.Report) bool {
	for _, b := range r.Buckets {
		if b.Tonight == triage.TonightRegressed && b.Status != triage.StatusSuppressed && b.Class.Bug() {
			return true
		}
	}
	return false
}
