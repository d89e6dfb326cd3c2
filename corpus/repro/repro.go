// Package repro writes reproducer bundles: for one bucket, the case that
// stands for it (minimized when minimization ran) with everything needed to
// replay its disagreement outside legalfuzz: the input each disagreeing
// tool was given, repro.sh that runs the smallest command showing the bug
// and says by its exit status whether it reproduces, the tool versions,
// the reference verdict (expected) and the deviating tool's (observed).
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
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/rules"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// The files of a bundle. The oracles render the tools' inputs
// (oracles.Reproducer), under the names package oracles gives them.
const (
	CaseFile     = oracles.CaseFile
	BucketFile   = "bucket.json"
	CommandsFile = "commands.txt"
	VersionsFile = "versions.txt"
	ExpectedFile = "expected.txt"
	ObservedFile = "observed.txt"
	PTXFile      = oracles.PTXFile
	MLIRFile     = oracles.MLIRFile
	LLFile       = oracles.LLFile
	DriverFile   = oracles.DriverFile
	AsmFile      = oracles.AsmFile
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
	// Reference is spec/ptxisa's stored verdict on Case, the correct
	// answer (zero when it did not judge the case); Expected is what the
	// bundle expects: Reference, else the verdict of the pair's side that
	// does not deviate. Observed is the deviating tool's verdict.
	Reference, Expected, Observed oracles.Verdict
	Files                         []string
	// Script is repro.sh's path.
	Script string

	// reproductions are the pair's oracles' replays, by oracle: what
	// each rendered and how repro.sh replays it.
	reproductions map[string]oracles.Reproduction
	// commands are repro.sh's steps as plain command lines: the shortest
	// stage sequence that shows the bug, for issue.md.
	commands []string
	// mainLines say which commit of LLVM main each replayed build of main
	// is ("trunk: LLVM main of 2026-10-25, 7e3c57157096").
	mainLines []string
	// found are the oracles Write was given: replays, reductions and lit
	// tests run the installations they judged with (toolchain.In).
	found []oracles.Oracle
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
	bd = onNewest(ctx, bd, orcs)
	bd.found = orcs
	bd.mainLines = mainLines(b, orcs)
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
	names := pairOracles(bd.Bucket.Signature.Pair) // on the newest installation that reproduces it
	bd.reproductions = map[string]oracles.Reproduction{}
	for _, name := range names {
		rep := render(ctx, w, bd.Case, name, shared(names), name == bd.Observed.Oracle, orcs)
		bd.reproductions[name] = rep
		cmds = append(cmds, "", "# "+name)
		cmds = append(cmds, rep.Commands...)
	}
	cmds = append(cmds, "", "# or run ./"+ScriptFile+": exit status 1 when the bug reproduces, 0 when not, 125 when this machine cannot tell")
	w.file(CommandsFile, strings.Join(cmds, "\n")+"\n")
	w.file(VersionsFile, versions(s, bd.Case.ID))
	w.file(ExpectedFile, verdictText("expected", bd.Expected))
	w.file(ObservedFile, verdictText("observed", bd.Observed))
	sc := plan(ctx, bd)
	w.script(sc.Text(ctx, scriptHeader(bd)))
	bd.commands = sc.Commands()
	bd.Script = filepath.Join(bd.Dir, ScriptFile)
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
		ref, _ := find(vs, oracles.SpecPTXISA)
		exp, obs, ok := sides(vs, b.Signature)
		if !ok {
			errs = append(errs, fmt.Errorf("case %s has no stored verdict of %s and %s", id, b.Signature.Pair.A, b.Signature.Pair.B))
			continue
		}
		d, v, err := rec.Decode()
		if err != nil {
			return Bundle{}, fmt.Errorf("case %s: %w", id, err)
		}
		return Bundle{Bucket: b, Case: domain.NewCase(d.Name, v), Minimized: id == b.Minimized && id != b.Example,
			Reference: ref, Expected: exp, Observed: obs}, nil
	}
	return Bundle{}, errors.Join(append([]error{fmt.Errorf("bucket %s: no case to bundle", b.Key)}, errs...)...)
}

// onNewest moves the bundle onto the newest installation of the deviating
// tool's family that reproduces the bucket, when it is here: its words,
// its input, its commands. An upstream maintainer's first question is
// whether main still has the bug; a bundle of a release main has moved on
// from answers another question.
func onNewest(ctx context.Context, bd Bundle, orcs []oracles.Oracle) Bundle {
	var newest store.VersionVerdict
	for _, v := range bd.Bucket.Versions {
		if v.Outcome == store.Reproduces {
			newest = v
		}
	}
	old := bd.Observed.Oracle
	i := slices.IndexFunc(orcs, func(o oracles.Oracle) bool { return o.Name() == newest.Oracle })
	if newest.Oracle == "" || newest.Oracle == old || i < 0 {
		return bd
	}
	vs, err := orcs[i].Judge(ctx, []domain.Case{bd.Case})
	if err != nil || len(vs) != 1 || vs[0].Kind != newest.Kind {
		return bd // not what the replay saw: keep the stored verdicts
	}
	bd.Observed = vs[0]
	sig := bd.Bucket.Signature
	rename := func(name string) string {
		if name == old {
			return newest.Oracle
		}
		return name
	}
	sig.Tool, sig.Pair.A, sig.Pair.B = rename(sig.Tool), rename(sig.Pair.A), rename(sig.Pair.B)
	bd.Bucket.Signature = sig
	return bd
}

// mainLines names the commit of each build of LLVM main the bucket was
// replayed on, from the record of the installation its oracle runs.
func mainLines(b store.Bucket, orcs []oracles.Oracle) []string {
	var out []string
	for _, v := range b.Versions {
		if !v.Main() {
			continue
		}
		in, ok := toolchain.In(orcs, v.Oracle)
		switch {
		case ok && in.Snapshot != "":
			out = append(out, fmt.Sprintf("%s is LLVM main of %s (LLVM %s, %s)", v.Label(), in.Snapshot, in.Version, in.Source))
		case ok:
			out = append(out, fmt.Sprintf("%s is a build of LLVM main, LLVM %s in %s", v.Label(), in.Version, in.Dir))
		}
	}
	return out
}

// sides returns the expected verdict (spec/ptxisa's when it judged the
// case, else the pair's side that does not deviate) and the deviating
// tool's: not the pair's order, which says nothing about who is right.
func sides(vs []oracles.Verdict, sig policy.Signature) (exp, obs oracles.Verdict, ok bool) {
	dev, other := sig.Pair.B, sig.Pair.A
	if sig.Tool == sig.Pair.A {
		dev, other = sig.Pair.A, sig.Pair.B
	}
	obs, okObs := find(vs, dev)
	exp, okExp := find(vs, other)
	if ref, okRef := find(vs, oracles.SpecPTXISA); okRef && dev != oracles.SpecPTXISA {
		exp, okExp = ref, true
	}
	return exp, obs, okObs && okExp
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
		fmt.Sprintf("# case %s (%s, the bucket's %s case), target %s", bd.Case.ID, bd.Case.Domain, which, domain.TargetName(bd.Case.Value)),
		"# pair " + bd.Bucket.Signature.Pair.String() + ": expected.txt is " + bd.Expected.Oracle + "'s verdict (the reference), observed.txt " + bd.Observed.Oracle + "'s (the tool that deviates)",
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

// verdictText spells a verdict as key: value lines; a spec rule comes
// with its source (the PTX ISA section, the seed file).
func verdictText(role string, v oracles.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s's verdict\n", role, v.Oracle)
	fmt.Fprintf(&b, "oracle: %s\nversion: %s\nverdict: %s\n", v.Oracle, v.Version, v.Kind)
	if v.Rule != "" {
		fmt.Fprintf(&b, "rule: %s\n", v.Rule)
		if r := ruleOf(v.Rule); r != nil {
			fmt.Fprintf(&b, "source: %s\n", r.Source)
		}
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

// ruleOf is the spec rule with that ID, or nil (an accept carries its
// ladder's ID, which is no rule).
func ruleOf(id string) *rules.Rule {
	for _, r := range rules.Rules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// scriptHeader opens repro.sh: the bucket, the case, and the verdicts it
// replays, the expected one with its rule and source.
func scriptHeader(bd Bundle) []string {
	which := "example"
	if bd.Minimized {
		which = "minimized"
	}
	h := []string{
		fmt.Sprintf("legalfuzz reproducer for bucket %s (%s): %s", bd.Bucket.Key, policy.ClassOf(bd.Bucket.Signature), bd.Bucket.Title),
		fmt.Sprintf("case %s (%s, the bucket's %s case, in %s), target %s", bd.Case.ID, bd.Case.Domain, which, CaseFile, domain.TargetName(bd.Case.Value)),
		fmt.Sprintf("expected: %s %s %s", bd.Expected.Oracle, bd.Expected.Kind, bd.Expected.Rule),
	}
	if r := ruleOf(bd.Expected.Rule); r != nil {
		h = append(h, "  "+r.Message, "  source: "+r.Source)
	}
	h = append(h, fmt.Sprintf("observed: %s %s %s (version %s)", bd.Observed.Oracle, bd.Observed.Kind, bd.Observed.Rule, bd.Observed.Version))
	if d := strings.TrimSpace(bd.Observed.Diagnostic); d != "" {
		h = append(h, "  "+strings.SplitN(d, "\n", 2)[0])
	}
	return h
}
