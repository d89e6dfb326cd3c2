package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Format is one regression corpus format that Export writes.
type Format string

// The export formats, each in its own subfolder of the export folder.
const (
	// FormatGo writes Go native corpus files under go/testdata/fuzz/<FuzzTarget>/,
	// so copying go/testdata into package fuzz makes `go test ./fuzz` replay them.
	FormatGo Format = "go"
	// FormatGoFuzz writes the go-fuzz convention: gofuzz/<domain>/<case ID>,
	// the canonical bytes, one file each.
	FormatGoFuzz Format = "gofuzz"
	// FormatPTX writes one ptx/<name>.ptx per entry with a header naming the
	// expected ptxas outcome, and ptx/run.sh to check them all.
	FormatPTX Format = "ptx"
	// FormatMLIR writes mlir/<domain>.mlir lit tests for mlir-opt
	// -split-input-file -verify-diagnostics.
	FormatMLIR Format = "mlir"
)

// Formats lists every export format, in the order Export writes them.
var Formats = []Format{FormatGo, FormatGoFuzz, FormatPTX, FormatMLIR}

// ParseFormats reads format names (each may be a comma-separated list).
func ParseFormats(names []string) ([]Format, error) {
	var out []Format
	for _, n := range names {
		for _, f := range strings.Split(n, ",") {
			f = strings.TrimSpace(f)
			if !slices.Contains(Formats, Format(f)) {
				return nil, fmt.Errorf("unknown corpus format %q (want go, gofuzz, ptx, mlir)", f)
			}
			if !slices.Contains(out, Format(f)) {
				out = append(out, Format(f))
			}
		}
	}
	return out, nil
}

// BucketRef names a finding bucket an exported case stands for.
type BucketRef struct {
	Key   string
	Title string
}

// Entry is one case to export, with what the store knows about it.
type Entry struct {
	// Name is the stem of the entry's own files (the ptx format): a bucket
	// key when exporting one case per bucket, the case ID otherwise.
	Name string
	Case domain.Case
	// FuzzTarget is the domain's native fuzz target, e.g. "FuzzMMA".
	FuzzTarget string
	Buckets    []BucketRef
	// Verdicts are the case's stored verdicts; the ptx format reads the
	// recorded ptxas outcome from them.
	Verdicts []oracles.Verdict
}

// verdict returns the entry's stored verdict of oracle name.
func (e Entry) verdict(name string) (oracles.Verdict, bool) {
	for _, v := range e.Verdicts {
		if oracles.Matches(name, v.Oracle) {
			return v, true
		}
	}
	return oracles.Verdict{}, false
}

// Options configure Export.
type Options struct {
	Formats []Format
	// MLIROpt is the mlir-opt of an LLVM release (toolchain.Oldest), which
	// the mlir format runs to place its expected-error lines and to check
	// the file it wrote, in the spelling of MLIRMajor. A zero Path leaves
	// the mlir format out, with MLIRMissing as the reason.
	MLIROpt     tool.Tool
	MLIRMajor   int
	MLIRMissing string
}

// Skip is an entry a format left out, and why.
type Skip struct {
	Name   string
	Reason string
}

// Written is what Export wrote in one format.
type Written struct {
	Format Format
	// Dir is the format's folder; Files the files written in it.
	Dir   string
	Files []string
	// Cases counts the cases the format holds.
	Cases   int
	Skipped []Skip
	// Missing, when set, says why nothing was written in this format.
	Missing string
}

// Export writes the entries into dir, one subfolder per format. A case the
// format cannot express (no PTX or MLIR spelling) is skipped with its
// reason; errors are for files that cannot be written and tools that fail
// to start.
func Export(ctx context.Context, dir string, es []Entry, opts Options) ([]Written, error) {
	var out []Written
	for _, f := range opts.Formats {
		w := Written{Format: f, Dir: filepath.Join(dir, string(f))}
		var err error
		switch f {
		case FormatGo:
			err = writeGoFormat(&w, es)
		case FormatGoFuzz:
			err = writeGoFuzzFormat(&w, es)
		case FormatPTX:
			err = writePTXFormat(ctx, &w, es)
		case FormatMLIR:
			if opts.MLIROpt.Path == "" {
				w.Missing = "mlir-opt not found: " + opts.MLIRMissing
				break
			}
			err = writeMLIRFormat(ctx, &w, es, opts.MLIROpt, opts.MLIRMajor)
		default:
			err = fmt.Errorf("unknown corpus format %q", f)
		}
		if err != nil {
			return out, fmt.Errorf("export %s: %w", f, err)
		}
		out = append(out, w)
	}
	return out, nil
}

// GoCorpusDir is where the go format puts a fuzz target's files under root.
func GoCorpusDir(root, fuzzTarget string) string {
	return filepath.Join(root, "testdata", "fuzz", fuzzTarget)
}

// WriteGoCorpus writes each distinct case as a Go native corpus file,
// root/testdata/fuzz/<FuzzTarget>/<case ID>, and returns the paths written.
func WriteGoCorpus(root string, es []Entry) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Case.ID] {
			continue
		}
		seen[e.Case.ID] = true
		if e.FuzzTarget == "" {
			return files, fmt.Errorf("case %s (%s): no fuzz target", e.Case.ID, e.Case.Domain)
		}
		dir := GoCorpusDir(root, e.FuzzTarget)
		if _, err := WriteGo(dir, e.Case.ID, e.Case.Value.Encode()); err != nil {
			return files, err
		}
		files = append(files, filepath.Join(dir, e.Case.ID))
	}
	return files, nil
}

// writeGoFormat writes the go format: WriteGoCorpus under the format's folder.
func writeGoFormat(w *Written, es []Entry) error {
	files, err := WriteGoCorpus(w.Dir, es)
	w.Files, w.Cases = files, len(files)
	return err
}

// writeGoFuzzFormat writes each distinct case's canonical bytes as
// gofuzz/<domain>/<case ID>.
func writeGoFuzzFormat(w *Written, es []Entry) error {
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Case.ID] {
			continue
		}
		seen[e.Case.ID] = true
		dir := filepath.Join(w.Dir, e.Case.Domain)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(dir, e.Case.ID)
		if err := os.WriteFile(path, e.Case.Value.Encode(), 0o644); err != nil {
			return err
		}
		w.Files = append(w.Files, path)
		w.Cases++
	}
	return nil
}

// reference judges a case with spec/ptxisa, the rule set that says what the
// correct outcome is.
func reference(ctx context.Context, c domain.Case) (oracles.Verdict, error) {
	vs, err := spec.New(spec.PTXISA).Judge(ctx, []domain.Case{c})
	if err != nil {
		return oracles.Verdict{}, fmt.Errorf("spec/ptxisa on case %s: %w", c.ID, err)
	}
	return vs[0], nil
}

// oneLine flattens text for a comment line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// describe spells a verdict in one line: "reject (rule): diagnostic".
func describe(v oracles.Verdict) string {
	s := string(v.Kind)
	if v.Rule != "" {
		s += " (" + v.Rule + ")"
	}
	if v.Diagnostic != "" {
		s += ": " + oneLine(v.Diagnostic)
	}
	return s
}
