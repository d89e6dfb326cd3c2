package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/corpus/repro"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// newCorpusCmd is `legalfuzz corpus`: export, import, import-tests, distill.
func newCorpusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "corpus export|import|import-tests|distill ...",
		Short: "Export findings as regression corpora, import corpora, distill a store's cases",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCorpusExportCmd(), newCorpusImportCmd(), newCorpusImportTestsCmd(), newCorpusDistillCmd())
	return cmd
}

type corpusExportOptions struct {
	storeReadFlags
	out     string
	formats []string
	all     bool
	buckets bool
	corpora bool
}

func newCorpusExportCmd() *cobra.Command {
	o := &corpusExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --db PATH --out DIR [--format go,gofuzz,ptx,mlir] [--buckets | --all | --corpus]",
		Short: "Write the store's findings as regression corpora: Go native, go-fuzz, PTX, MLIR lit",
		Long: `Export writes one case per bucket (its minimized case, else its example), with --all every stored
case, or with --corpus the campaigns' corpora (every case that showed the judges a new feature or bucket:
--format go gives go test -fuzz a start from them), into --out:
  go/testdata/fuzz/<FuzzTarget>/<case>  Go native corpus files: copy go/testdata into package fuzz and
                                        go test ./fuzz replays them
  gofuzz/<domain>/<case>                go-fuzz raw inputs, one file each
  ptx/<bucket>.ptx, ptx/run.sh          one PTX module each, its header naming the expected ptxas outcome
                                        (spec/ptxisa's, XFAIL where ptxas gets it wrong); PTXAS=... sh run.sh checks them
  mlir/<domain>.mlir                    lit tests (RUN: mlir-opt %s -split-input-file -verify-diagnostics), one
                                        chunk per case with expected-error lines where the PTX ISA rejects it
  bugs/<bucket>.mlir|.ll, lit.cfg.py    with mlir or ptx: one lit test per MLIR or llc bucket, RUN on the stage
                                        that fails, stating spec/ptxisa's answer, XFAIL on the tool versions
                                        that still get it wrong (lit-19 -v DIR/bugs)
  bugs/bundles/<bucket>/repro.sh        the other buckets' bundles (triage bundle)
Cases a format cannot express are listed with the reason. mlir needs mlir-opt-19 (make oracles).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	o.storeReadFlags.add(cmd)
	f.StringVar(&o.out, "out", "", "folder to write the corpora into (created if needed)")
	f.StringSliceVar(&o.formats, "format", []string{"go", "gofuzz", "ptx", "mlir"}, "formats: go, gofuzz, ptx, mlir")
	f.BoolVar(&o.buckets, "buckets", false, "one case per bucket (the default)")
	f.BoolVar(&o.all, "all", false, "every stored case")
	f.BoolVar(&o.corpora, "corpus", false, "the campaigns' corpora")
	cmd.MarkFlagsMutuallyExclusive("buckets", "all", "corpus")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func (o *corpusExportOptions) run(cmd *cobra.Command) error {
	formats, err := corpus.ParseFormats(o.formats)
	if err != nil {
		return err
	}
	db, err := o.open(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer db.Close()
	es, what, err := o.entries(db)
	if err != nil {
		return err
	}
	opts := corpus.Options{Formats: formats}
	if in, opt, err := toolchain.Oldest(cmd.Context(), "mlir-opt"); err == nil {
		opts.MLIROpt, opts.MLIRMajor = opt, in.Major
	} else {
		opts.MLIRMissing = err.Error()
	}
	written, err := corpus.Export(cmd.Context(), o.out, es, opts)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%d cases selected (%s)\n", len(es), what)
	missing := writeExported(w, written)
	if err := o.writeBugTests(cmd, db, formats); err != nil {
		return err
	}
	if missing != "" && cmd.Flags().Changed("format") {
		return errors.New(missing)
	}
	return nil
}

// writeBugTests writes, for --format mlir or ptx over the buckets, one
// test per bucket that states the correct outcome and marks the open bug
// XFAIL (lit tests for MLIR and llc), and a bundle with repro.sh for the
// rest.
func (o *corpusExportOptions) writeBugTests(cmd *cobra.Command, db *store.Store, formats []corpus.Format) error {
	if o.all || o.corpora || (!slices.Contains(formats, corpus.FormatMLIR) && !slices.Contains(formats, corpus.FormatPTX)) {
		return nil
	}
	found, err := discover(cmd.Context())
	if err != nil {
		return err
	}
	defer found.Close()
	ts, err := repro.WriteTests(cmd.Context(), db, filepath.Join(o.out, "bugs"), found.Oracles)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "bugs: %d buckets as lit tests, XFAIL while open (lit-19 -v %s), %d as bundles (%s/*/repro.sh exits 1 while the bug reproduces)\n",
		ts.Buckets, ts.Dir, len(ts.Other), filepath.Join(ts.Dir, repro.BundlesDir))
	return nil
}

// entries selects the cases to export and says which they are.
func (o *corpusExportOptions) entries(db *store.Store) ([]corpus.Entry, string, error) {
	switch {
	case o.all:
		es, err := regress.All(db)
		return es, "every stored case", err
	case o.corpora:
		camps, err := db.Campaigns()
		if err != nil {
			return nil, "", err
		}
		var ids []string
		for _, c := range camps {
			entries, err := db.Corpus(c.ID)
			if err != nil {
				return nil, "", err
			}
			for _, e := range entries {
				ids = append(ids, e.Case)
			}
		}
		slices.Sort(ids)
		es, err := regress.ByIDs(db, slices.Compact(ids))
		return es, "the campaigns' corpora", err
	}
	es, err := regress.ByBucket(db)
	return es, "one per bucket", err
}

// maxListed is how many left-out cases a format lists; the mlir files list
// all of theirs at the top.
const maxListed = 20

// writeExported prints one line per format and its skipped cases, and
// returns why a format was not written, if one was not.
func writeExported(w io.Writer, written []corpus.Written) string {
	missing := ""
	for _, x := range written {
		if x.Missing != "" {
			fmt.Fprintf(w, "%s: not written: %s\n", x.Format, x.Missing)
			missing = fmt.Sprintf("format %s not written: %s", x.Format, x.Missing)
			continue
		}
		fmt.Fprintf(w, "%s: %d cases, %d files in %s", x.Format, x.Cases, len(x.Files), x.Dir)
		if len(x.Skipped) > 0 {
			fmt.Fprintf(w, " (%d left out)", len(x.Skipped))
		}
		fmt.Fprintln(w)
		for i, s := range x.Skipped {
			if i == maxListed {
				fmt.Fprintf(w, "  ... and %d more\n", len(x.Skipped)-maxListed)
				break
			}
			fmt.Fprintf(w, "  left out %s: %s\n", s.Name, s.Reason)
		}
	}
	return missing
}

type corpusImportOptions struct {
	db     string
	domain string
	all    bool
}

func newCorpusImportCmd() *cobra.Command {
	o := &corpusImportOptions{}
	cmd := &cobra.Command{
		Use:   "import --db PATH (--domain D | --all) DIR...",
		Short: "Import Go native and go-fuzz corpora into a store for the next campaign to judge",
		Long: `Import reads cases and stores them, source import:<file>, unjudged: the next campaign on their
domain judges them. With --domain D every file under the folders is a case of D (a Go native corpus file,
a JSON case ending in .json, or a go-fuzz raw input). With --all the domain comes from the folder a file
is in: <FuzzTarget>/ (testdata/fuzz/FuzzMMA/, an export's go/ folder) or <domain>/ (an export's gofuzz/
folder); other files are ignored. Bad files get one error line each on stderr; the import goes on and
exits 2 after storing the good ones.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error { return o.run(cmd, dirs) },
	}
	f := cmd.Flags()
	f.StringVar(&o.db, "db", "legalfuzz-out/legalfuzz.db", "bbolt store to import into (created if needed)")
	f.StringVar(&o.domain, "domain", "", "the domain of every file")
	f.BoolVar(&o.all, "all", false, "take each file's domain from its folder's name")
	cmd.MarkFlagsMutuallyExclusive("domain", "all")
	cmd.MarkFlagsOneRequired("domain", "all")
	return cmd
}

func (o *corpusImportOptions) run(cmd *cobra.Command, dirs []string) error {
	var l corpus.Loaded
	ignored := 0
	if o.all {
		l, ignored = corpus.LoadTree(fuzz.Domains(), dirs)
	} else {
		d, ok := fuzz.Lookup(o.domain)
		if !ok {
			return fmt.Errorf("unknown domain %q (see legalfuzz domains)", o.domain)
		}
		l = corpus.Load(d, dirs)
	}
	db, err := store.OpenStore(o.db, 5*time.Second)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := regress.Import(db, l, time.Now().UTC())
	if err != nil {
		return err
	}
	return reportImport(cmd, res, fmt.Sprintf("%d read: %d already stored; %d duplicate files, %d bad files, %d files ignored",
		res.Read, res.Known, res.Duplicates, len(res.Problems), ignored))
}

// reportImport prints an import's bad files (stderr) and what it stored,
// detail saying what was read, and fails the command after the good cases
// were stored when a file was bad.
func reportImport(cmd *cobra.Command, res regress.Imported, detail string) error {
	fmt.Fprintf(cmd.OutOrStdout(), "imported %d new cases (%s)\n", res.Added, detail)
	if res.Added > 0 {
		fmt.Fprintln(cmd.OutOrStdout(), "the next campaign on this store judges them")
	}
	return badFiles(cmd, res.Problems)
}

// badFiles prints one stderr line per bad file and, when there were any,
// the error that makes the command exit 2.
func badFiles(cmd *cobra.Command, problems []error) error {
	for _, p := range problems {
		fmt.Fprintf(cmd.ErrOrStderr(), "legalfuzz: bad file: %v\n", p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d bad files (listed above); the good ones were imported", len(problems))
	}
	return nil
}

type corpusDistillOptions struct {
	storeReadFlags
	out string
}

func newCorpusDistillCmd() *cobra.Command {
	o := &corpusDistillOptions{}
	cmd := &cobra.Command{
		Use:   "distill --db PATH --out DIR",
		Short: "Write the fewest stored cases that keep every (domain, oracle, verdict, rule) and every bucket",
		Long: `Distill is libFuzzer's merge by legality-rule coverage: each stored case covers one feature per
verdict (domain, oracle, verdict kind, rule) and one per bucket it stands for; a greedy set cover, then a
pruning pass, picks the fewest cases that keep every feature. They are written in the go format
(DIR/go/testdata/fuzz/<FuzzTarget>/<case>).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	o.storeReadFlags.add(cmd)
	f.StringVar(&o.out, "out", "", "folder to write the distilled corpus into")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func (o *corpusDistillOptions) run(cmd *cobra.Command) error {
	db, err := o.open(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer db.Close()
	d, err := regress.Distill(db)
	if err != nil {
		return err
	}
	written, err := corpus.Export(cmd.Context(), o.out, d.Entries, corpus.Options{Formats: []corpus.Format{corpus.FormatGo}})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "distilled %d cases to %d, keeping %d features (%d buckets)\n",
		d.Cases, len(d.Entries), d.Features, d.Buckets)
	writeExported(cmd.OutOrStdout(), written)
	return nil
}
