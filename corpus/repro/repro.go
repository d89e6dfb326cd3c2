// Package repro writes reproducer bundles: for one bucket, the case that
// stands for it (minimized when minimization ran) with everything needed to
// replay its disagreement by hand, outside legalfuzz: the input each
// disagreeing tool was given, the exact command lines, the tool versions,
// and the expected and observed verdicts.
package repro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// The files of a bundle, besides the rendered inputs.
const (
	CaseFile     = "case.json"
	BucketFile   = "bucket.json"
	CommandsFile = "commands.txt"
	VersionsFile = "versions.txt"
	ExpectedFile = "expected.txt"
	ObservedFile = "observed.txt"
)

// Bundle is what Write wrote.
type Bundle struct {
	// Dir is the bundle's folder, <out>/<bucket key>.
	Dir    string
	Bucket store.Bucket
	// Case is the case the bundle replays; Minimized says it is the
	// bucket's minimized case rather than its example.
	Case      domain.Case
	Minimized bool
	// Expected and Observed are the pair's stored verdicts on Case: the
	// pair's first oracle (the reference) and its second.
	Expected, Observed oracles.Verdict
	Files              []string
}

// Write writes the bundle of the bucket whose key starts with id into
// out/<bucket key>/. Oracles are the ones discovered here: an input only a
// located tool can render (llc's IR, which depends on what that llc knows)
// is rendered with them, or noted as not rendered.
func Write(ctx context.Context, s regress.Store, id, out string, orcs []oracles.Oracle) (Bundle, error) {
	b, err := regress.FindBucket(s, id)
	if err != nil {
		return Bundle{}, err
	}
	bd, err := choose(s, b)
	if err != nil {
		return Bundle{}, err
	}
	bd.Dir = filepath.Join(out, b.Key)
	if err := os.MkdirAll(bd.Dir, 0o755); err != nil {
		return bd, err
	}
	w := &writer{dir: bd.Dir}
	caseJSON, err := json.MarshalIndent(bd.Case.Value, "", "  ")
	if err != nil {
		return bd, err
	}
	w.file(CaseFile, string(caseJSON)+"\n")
	meta, err := json.MarshalIndent(map[string]any{"bucket": b, "case": bd.Case.ID, "domain": bd.Case.Domain, "minimized": bd.Minimized}, "", "  ")
	if err != nil {
		return bd, err
	}
	w.file(BucketFile, string(meta)+"\n")
	cmds := commandsHeader(bd)
	for _, name := range pairOracles(b.Signature.Pair) {
		cmds = append(cmds, "", "# "+name)
		cmds = append(cmds, render(ctx, w, bd.Case, name, len(llcOf(b.Signature.Pair)) > 1, orcs)...)
	}
	w.file(CommandsFile, strings.Join(cmds, "\n")+"\n")
	w.file(VersionsFile, versions(s, bd.Case.ID))
	w.file(ExpectedFile, verdictText("expected", b.Signature.Pair, bd.Expected))
	w.file(ObservedFile, verdictText("observed", b.Signature.Pair, bd.Observed))
	bd.Files = w.files
	return bd, w.err
}

// choose picks the bundle's case: the minimized case when both oracles of
// the pair have a stored verdict on it, else the example.
func choose(s regress.Store, b store.Bucket) (Bundle, error) {
	var errs []error
	for _, id := range []string{b.Minimized, b.Example} {
		if id == "" {
			continue
		}
		rec, ok, err := s.Case(id)
		if err != nil || !ok {
			errs = append(errs, fmt.Errorf("case %s: stored %v: %v", id, ok, err))
			continue
		}
		vs, err := s.Verdicts(id)
		if err != nil {
			return Bundle{}, err
		}
		a, okA := find(vs, b.Signature.Pair.A)
		o, okB := find(vs, b.Signature.Pair.B)
		if !okA || !okB {
			errs = append(errs, fmt.Errorf("case %s has no stored verdict of %s and %s", id, b.Signature.Pair.A, b.Signature.Pair.B))
			continue
		}
		d, ok := fuzz.Lookup(rec.Domain)
		if !ok {
			return Bundle{}, fmt.Errorf("case %s: unknown domain %q", id, rec.Domain)
		}
		v, err := d.Decode(rec.Data)
		if err != nil {
			return Bundle{}, fmt.Errorf("case %s: %w", id, err)
		}
		return Bundle{Bucket: b, Case: domain.NewCase(d.Name, v), Minimized: id == b.Minimized && id != b.Example,
			Expected: a, Observed: o}, nil
	}
	return Bundle{}, errors.Join(append([]error{fmt.Errorf("bucket %s: no case to bundle", b.Key)}, errs...)...)
}

// find returns the verdict of oracle name.
func find(vs []oracles.Verdict, name string) (oracles.Verdict, bool) {
	for _, v := range vs {
		if v.Oracle == name {
			return v, true
		}
	}
	return oracles.Verdict{}, false
}

// pairOracles lists the pair's oracles, once each.
func pairOracles(p policy.Pair) []string {
	if p.A == p.B {
		return []string{p.A}
	}
	return []string{p.A, p.B}
}

// writer writes bundle files and keeps the first error.
type writer struct {
	dir   string
	files []string
	err   error
}

// file writes one bundle file, once.
func (w *writer) file(name, text string) {
	if w.err != nil || slices.Contains(w.files, filepath.Join(w.dir, name)) {
		return
	}
	path := filepath.Join(w.dir, name)
	w.err = os.WriteFile(path, []byte(text), 0o644)
	w.files = append(w.files, path)
}

// commandsHeader opens commands.txt: what the bundle is and how to replay
// it with legalfuzz.
func commandsHeader(bd Bundle) []string {
	which := "example"
	if bd.Minimized {
		which = "minimized"
	}
	return []string{
		"# legalfuzz reproducer for bucket " + bd.Bucket.Key + ": " + bd.Bucket.Title,
		fmt.Sprintf("# case %s (%s, the bucket's %s case), target %s", bd.Case.ID, bd.Case.Domain, which, bd.Case.Value.Target()),
		"# pair " + bd.Bucket.Signature.Pair.String() + ": expected.txt is " + bd.Bucket.Signature.Pair.A + "'s verdict, observed.txt " + bd.Bucket.Signature.Pair.B + "'s",
		"",
		"# replay with every oracle available here (the pair's verdicts should match expected.txt and observed.txt):",
		"legalfuzz check --domain " + bd.Case.Domain + " " + CaseFile,
	}
}

// versions lists the oracle versions of the case's stored verdicts.
func versions(s regress.Store, caseID string) string {
	vs, err := s.Verdicts(caseID)
	if err != nil {
		return "# versions unavailable: " + err.Error() + "\n"
	}
	slices.SortFunc(vs, func(a, b oracles.Verdict) int { return strings.Compare(a.Oracle, b.Oracle) })
	var b strings.Builder
	b.WriteString("# oracle versions of the stored verdicts on case " + caseID + "\n")
	for _, v := range vs {
		fmt.Fprintf(&b, "%s %s\n", v.Oracle, v.Version)
	}
	return b.String()
}

// verdictText spells a verdict as key: value lines.
func verdictText(role string, p policy.Pair, v oracles.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s's verdict (pair %s)\n", role, v.Oracle, p)
	fmt.Fprintf(&b, "oracle: %s\nversion: %s\nverdict: %s\n", v.Oracle, v.Version, v.Kind)
	if v.Rule != "" {
		fmt.Fprintf(&b, "rule: %s\n", v.Rule)
	}
	if v.Value != "" {
		fmt.Fprintf(&b, "value: %s\n", v.Value)
	}
	if v.Diagnostic != "" {
		fmt.Fprintf(&b, "diagnostic:\n%s\n", indent(v.Diagnostic))
	}
	return b.String()
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
