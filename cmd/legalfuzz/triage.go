package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/coordinator/store/triage"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles"
)

type triageOptions struct {
	db           string
	suppressions string
	since        string
	reason       string
	asJSON       bool
	wide         bool
	example      bool
	reproducesOn string
}

func newTriageCmd() *cobra.Command {
	o := &triageOptions{}
	cmd := &cobra.Command{
		Use:   "triage [--db PATH] [list | show ID | suppress ID --reason R | unsuppress ID | bundle ID --out DIR]",
		Short: "List finding buckets with their status, show one, or suppress one",
		Long: `Triage lists buckets (one per root cause: domain, the tool that deviates, its verdict and stage,
spec/ptxisa's rule, the title of the tool's diagnostic) with their case counts, first/last seen, the rule that fired and a status: new (first seen
in the latest campaign), known, or suppressed. Suppressions come from the store (triage suppress) and from
--suppressions FILE, a JSON array you keep in your repository; suppressed buckets are still listed.
TONIGHT compares the latest run with the one before it (or --since RUN): new, still (seen again),
fixed (its case, replayed at the end of the run, no longer shows it; FIXED BY names the versions),
regressed (fixed before, back), or "-" when the run did not look at it.
The list fits 120 columns: one STATUS (suppressed, else tonight's, else new or known), FOUND IN (the
installations whose replay reproduces it) for a column per installation, no first and last seen, titles
cut with "…"; --wide prints every column and whole titles, show one bucket.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.db, "db", "legalfuzz-out/legalfuzz.db", "bbolt store")
	f.StringVar(&o.suppressions, "suppressions", "", "suppression file (JSON array) to apply as well")
	f.StringVar(&o.reason, "reason", "", "why the bucket is suppressed (suppress)")
	f.StringVar(&o.since, "since", "", "list: compare the latest run with this campaign (default: the run before it)")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	f.BoolVar(&o.wide, "wide", false, "list: every column (first and last seen) and whole titles with their notes, however wide")
	f.BoolVar(&o.example, "example", false, "show: the bucket's example case instead of its minimized case")
	f.StringVar(&o.reproducesOn, "reproduces-on", "", "list: only the buckets whose replay reproduces on this installation (trunk, 22, ...)")
	cmd.AddCommand(newTriageBundleCmd())
	return cmd
}

func (o *triageOptions) run(cmd *cobra.Command, args []string) error {
	verb := "list"
	if len(args) > 0 {
		verb = args[0]
	}
	// A read never creates or changes a store, and reads a snapshot of one
	// a campaign is running on.
	open := func(path string, wait time.Duration) (*store.Store, error) {
		return openForReading(cmd.ErrOrStderr(), path, wait)
	}
	if verb == "suppress" || verb == "unsuppress" {
		open = store.OpenExisting
	}
	db, err := open(o.db, 5*time.Second)
	if err != nil {
		return err
	}
	defer db.Close()
	need := func() (string, error) {
		if len(args) != 2 {
			return "", fmt.Errorf("triage %s needs a bucket ID", verb)
		}
		return args[1], nil
	}
	w := cmd.OutOrStdout()
	switch verb {
	case "list":
		entries, err := o.entries(db)
		if err != nil {
			return err
		}
		if o.reproducesOn != "" {
			entries = slices.DeleteFunc(entries, func(e triage.Entry) bool { return !e.ReproducesOn(o.reproducesOn) })
		}
		return writeTriage(w, entries, o.asJSON, o.wide)
	case "show":
		id, err := need()
		if err != nil {
			return err
		}
		return o.show(w, db, id)
	case "suppress", "unsuppress":
		id, err := need()
		if err != nil {
			return err
		}
		b, err := regress.FindBucket(db, id)
		if err != nil {
			return err
		}
		if verb == "unsuppress" {
			if err := db.Unsuppress(b.Key); err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "unsuppressed bucket %s: %s\n", b.Key, b.Title)
			return err
		}
		if err := db.Suppress(b.Key, o.reason, time.Now().UTC()); err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "suppressed bucket %s (%s): %s\n", b.Key, o.reason, b.Title)
		return err
	}
	return fmt.Errorf("unknown triage verb %q (list, show, suppress, unsuppress)", verb)
}

// entries classifies the store's buckets against every suppression.
func (o *triageOptions) entries(db *store.Store) ([]triage.Entry, error) {
	buckets, err := db.Buckets()
	if err != nil {
		return nil, err
	}
	sups, err := db.Suppressions()
	if err != nil {
		return nil, err
	}
	if o.suppressions != "" {
		file, err := triage.ReadSuppressions(o.suppressions)
		if err != nil {
			return nil, err
		}
		sups = append(sups, file...)
	}
	camps, err := db.Campaigns()
	if err != nil {
		return nil, err
	}
	nights := triage.NewNights(camps)
	latest, since := nights.Latest(), o.since
	if since == "" {
		since = nights.Before(latest)
	} else if !nights.Has(since) {
		return nil, fmt.Errorf("--since: no campaign %q in the store", since)
	}
	entries := triage.Classify(buckets, latest, sups)
	nights.Mark(entries, since, latest)
	return entries, nil
}

// writeTriage lists the entries: in full when wide, else fitting
// screenWidth: one status column, one FOUND IN column (the installations
// the bucket reproduces on) for the column per installation, no first and
// last sightings (triage show has them), the title cut.
func writeTriage(w io.Writer, entries []triage.Entry, asJSON, wide bool) error {
	if asJSON {
		return writeJSON(w, entries)
	}
	counts, tonight, waiting := map[string]int{}, map[string]int{}, 0
	labels := replayLabels(entries)
	head := []string{"BUCKET", "STATUS", "CLASS", "CASES", "FOUND IN"}
	if wide {
		head = []string{"BUCKET", "STATUS", "TONIGHT", "CLASS", "CASES", "FIRST SEEN", "LAST SEEN"}
		for _, l := range labels {
			head = append(head, strings.ToUpper(l))
		}
	}
	t := newFitTable(append(head, "TITLE"), len(head))
	for _, e := range entries {
		counts[e.Status]++
		tonight[e.Tonight]++
		if e.NotYetMinimized {
			waiting++
		}
		cells := replayCells(e.Bucket, labels)
		row := []string{e.Key, narrowStatus(e), string(e.Class), strconv.Itoa(e.Cases), foundIn(labels, cells)}
		if wide {
			row = append([]string{e.Key, e.Status, cmp.Or(e.Tonight, "-"), string(e.Class), strconv.Itoa(e.Cases),
				e.FirstSeen.Format(time.DateTime), e.LastSeen.Format(time.DateTime)}, cells...)
		}
		t.row(append(row, triageTitle(e, wide))...)
	}
	width := screenWidth
	if wide {
		width = 0
	}
	if err := t.write(w, width); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d buckets: %d new, %d known, %d suppressed; tonight: %d new, %d still, %d regressed, %d fixed; %d not yet minimized\n", len(entries),
		counts[triage.StatusNew], counts[triage.StatusKnown], counts[triage.StatusSuppressed],
		tonight[triage.TonightNew], tonight[triage.TonightStill], tonight[triage.TonightRegressed], tonight[triage.TonightFixed], waiting)
	return err
}

// narrowStatus is the narrow table's one status column: suppressed, else
// what tonight's run said (new, still, fixed, regressed), else the
// bucket's status (known: tonight's run did not look at it).
func narrowStatus(e triage.Entry) string {
	if e.Status == triage.StatusSuppressed {
		return e.Status
	}
	return cmp.Or(e.Tonight, e.Status)
}

// triageTitle is an entry's title with what else a reader must know: why
// it is suppressed, what fixed it, whether LLVM main still has it and
// whether it is not yet minimized. The narrow table says "fixed upstream"
// first, before the title is cut, and leaves the rest to --wide, show and
// the count below the table.
func triageTitle(e triage.Entry, wide bool) string {
	if !wide {
		if e.FixedUpstream() {
			return "[fixed upstream] " + e.Title
		}
		return e.Title
	}
	title := e.Title
	if e.NotYetMinimized {
		title += "  [not yet minimized: its example stands for it]"
	}
	if e.Suppressed != "" {
		title += "  [suppressed: " + e.Suppressed + "]"
	}
	if e.FixedBy != "" {
		title += "  [fixed by " + e.FixedBy + "]"
	}
	if e.FixedUpstream() {
		title += "  [fixed upstream: LLVM main no longer shows it]"
	}
	return title
}

// replayLabels are the installations the entries' buckets were replayed
// on (found-in), oldest first as the replays list them.
func replayLabels(entries []triage.Entry) []string {
	var labels []string
	rank := map[string]int{}
	for _, e := range entries {
		for _, v := range e.Versions {
			if !slices.Contains(labels, v.Label()) {
				labels = append(labels, v.Label())
			}
			rank[v.Label()] = max(rank[v.Label()], oracles.Major(v.Version))
		}
	}
	slices.SortStableFunc(labels, func(a, b string) int { return cmp.Compare(rank[a], rank[b]) })
	return labels
}

// foundIn is the narrow table's replay cell: the installations whose
// replay reproduces the bucket, oldest first ("22 23 trunk"), or "-".
func foundIn(labels, cells []string) string {
	var on []string
	for i, c := range cells {
		if c == "yes" {
			on = append(on, labels[i])
		}
	}
	if len(on) == 0 {
		return "-"
	}
	return strings.Join(on, " ")
}

// replayCells spells a bucket's replay on each installation (store's
// VersionVerdict.Cell: yes, fixed, n/a, earlier, later, other), or - (not
// replayed there).
func replayCells(b store.Bucket, labels []string) []string {
	cells := make([]string, len(labels))
	for i, l := range labels {
		cells[i] = "-"
		for _, v := range b.Versions {
			if v.Label() == l {
				cells[i] = v.Cell()
			}
		}
	}
	return cells
}

// show prints one bucket: its signature, the example case in JSON form (which
// `legalfuzz check` replays) and every verdict on it with oracle versions.
func (o *triageOptions) show(w io.Writer, db *store.Store, id string) error {
	entries, err := o.entries(db)
	if err != nil {
		return err
	}
	b, err := regress.FindBucket(db, id)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(entries, func(e triage.Entry) bool { return e.Key == b.Key })
	if i < 0 {
		return fmt.Errorf("no bucket %q", id)
	}
	e := entries[i]
	// The minimized case is what a maintainer wants to read; the example
	// is the first case seen, with --example.
	which, caseID := "example", e.Example
	if b.Minimized != "" && !o.example {
		which, caseID = "minimized", b.Minimized
	}
	rec, ok, err := db.Case(caseID)
	if err != nil || !ok {
		return errors.Join(fmt.Errorf("%s case %s missing", which, caseID), err)
	}
	d, ok := fuzz.Lookup(rec.Domain)
	if !ok {
		return fmt.Errorf("example case of unknown domain %q", rec.Domain)
	}
	v, err := d.Decode(rec.Data)
	if err != nil {
		return err
	}
	caseJSON, err := json.Marshal(v)
	if err != nil {
		return err
	}
	verdicts, err := db.Verdicts(caseID)
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(w, map[string]any{"bucket": e, "case_id": caseID, "case_kind": which, "case": json.RawMessage(caseJSON), "verdicts": verdicts})
	}
	fmt.Fprintf(w, "bucket %s (%s, %s): %s\n%d cases, first seen %s in %s, last seen %s\n", e.Key, e.Status, e.Class, e.Title,
		e.Cases, e.FirstSeen.Format(time.DateTime), e.Campaign, e.LastSeen.Format(time.DateTime))
	if e.Suppressed != "" {
		fmt.Fprintf(w, "suppressed: %s\n", e.Suppressed)
	}
	if e.NotYetMinimized {
		fmt.Fprintln(w, "not yet minimized: its example stands for it; the next campaign on this store minimizes it first")
	}
	switch {
	case e.FixedBy != "":
		fmt.Fprintf(w, "tonight: %s (fixed by %s)\n", e.Tonight, e.FixedBy)
	case e.Tonight != "":
		fmt.Fprintf(w, "tonight: %s\n", e.Tonight)
	}
	if f := e.FoundIn(); f != "" {
		newest := ""
		if e.NewestReproduces() {
			newest = " (the newest version here that judged it reproduces it: report it upstream)"
		}
		fmt.Fprintf(w, "found in: %s%s\n", f, newest)
	}
	fmt.Fprintf(w, "\n%s case %s (%s), replay with: legalfuzz check --domain %s -\n%s\n\n", which, caseID, rec.Source, rec.Domain, caseJSON)
	return writeVerdicts(w, verdicts, false)
}
