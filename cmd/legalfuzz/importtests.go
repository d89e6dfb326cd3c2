package main

import (
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/spf13/cobra"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/corpus/upstream"
)

type corpusImportTestsOptions struct {
	db     string
	asJSON bool
}

func newCorpusImportTestsCmd() *cobra.Command {
	o := &corpusImportTestsOptions{}
	cmd := &cobra.Command{
		Use:   "import-tests --db PATH DIR",
		Short: "Import the nvgpu/nvvm ops and NVPTX intrinsic calls of an llvm-project checkout's tests as cases",
		Long: `Import-tests reads the tests of the llvm-project checkout at DIR: the nvgpu and nvvm ops of
mlir/test/Dialect/NVGPU, mlir/test/Dialect/LLVMIR/nvvm*.mlir, mlir/test/Conversion/NVGPUToNVVM and
mlir/test/Target/LLVMIR/nvvm*, and the @llvm.nvvm.* calls of llvm/test/CodeGen/NVPTX/*.ll. Each op or call
that spells a domain value becomes a case, stored as corpus import stores one (source import:FILE:LINE,
unjudged: the next campaign on its domain judges it). Every form is counted: read, per domain, or not
read, per domain and reason; forms of no domain are counted by family. A file that cannot be read gets
one error line on stderr; the import goes on and exits 2 after storing the good cases.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error { return o.run(cmd, dirs[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.db, "db", "legalfuzz-out/legalfuzz.db", "bbolt store to import into (created if needed)")
	f.BoolVar(&o.asJSON, "json", false, "print the counts as JSON")
	return cmd
}

// importTestsJSON is --json's output.
type importTestsJSON struct {
	Files      int                       `json:"files"`
	Read       map[string]int            `json:"read"`
	Unread     map[string]map[string]int `json:"unread"`
	Cases      int                       `json:"cases"`
	Added      int                       `json:"added"`
	Known      int                       `json:"known"`
	Duplicates int                       `json:"duplicates"`
	Problems   []string                  `json:"problems"`
}

func (o *corpusImportTestsOptions) run(cmd *cobra.Command, dir string) error {
	r := upstream.Import(dir)
	db, err := store.OpenStore(o.db, 5*time.Second)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := regress.Import(db, r.Loaded, time.Now().UTC())
	if err != nil {
		return err
	}
	if o.asJSON {
		out := importTestsJSON{Files: r.Files, Read: r.Read, Unread: r.Unread, Cases: len(r.Cases), Added: res.Added,
			Known: res.Known, Duplicates: res.Duplicates, Problems: []string{}}
		for _, p := range res.Problems {
			out.Problems = append(out.Problems, p.Error())
		}
		if err := writeJSON(cmd.OutOrStdout(), out); err != nil {
			return err
		}
		return badFiles(cmd, res.Problems)
	}
	writeForms(cmd.OutOrStdout(), r)
	return reportImport(cmd, res, fmt.Sprintf("%d cases read: %d already stored; %d forms repeating a case, %d bad files",
		res.Read, res.Known, res.Duplicates, len(res.Problems)))
}

// maxNoDomain is how many families of forms of no domain are listed.
const maxNoDomain = 10

// writeForms prints the forms read per domain and those not read per
// domain and reason.
func writeForms(w io.Writer, r upstream.Result) {
	fmt.Fprintf(w, "%d test files\n", r.Files)
	domains := maps.Clone(r.Read)
	for d := range r.Unread {
		if _, ok := domains[d]; !ok && d != upstream.NoDomain {
			domains[d] = 0
		}
	}
	for _, d := range upstream.Sorted(domains) {
		unread := 0
		for _, n := range r.Unread[d] {
			unread += n
		}
		fmt.Fprintf(w, "%s: %d forms read, %d not read\n", d, r.Read[d], unread)
		for _, why := range upstream.Sorted(r.Unread[d]) {
			fmt.Fprintf(w, "  not read %d: %s\n", r.Unread[d][why], why)
		}
	}
	none := r.Unread[upstream.NoDomain]
	total := 0
	for _, n := range none {
		total += n
	}
	fmt.Fprintf(w, "no domain: %d forms\n", total)
	for i, fam := range upstream.Sorted(none) {
		if i == maxNoDomain {
			fmt.Fprintf(w, "  ... and %d more families\n", len(none)-maxNoDomain)
			break
		}
		fmt.Fprintf(w, "  %d %s\n", none[fam], fam)
	}
}
