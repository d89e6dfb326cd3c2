package repro

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles/replay"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/corpus"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// BundlesDir holds, under WriteTests' folder, the bundles of the buckets
// that have no lit test.
const BundlesDir = "bundles"

// Tests is what WriteTests wrote.
type Tests struct {
	Dir   string
	Files []string
	// Buckets counts the buckets with a test; Other lists the rest, each
	// with the tool that deviates: their bundles, under BundlesDir, replay
	// them with repro.sh.
	Buckets int
	Other   []string
}

// WriteTests writes one LLVM lit test per bucket whose deviating tool is
// MLIR (19 or 22) or an llc into dir, with lit.cfg.py. Each test states the
// correct outcome (spec/ptxisa's: a legal case goes through the failing
// stage without an error, an illegal one is refused without a crash) and
// is XFAIL on the tool versions that still get it wrong, so a tool upgrade
// that fixes the bug shows as an unexpected pass.
func WriteTests(ctx context.Context, s regress.Store, dir string, orcs []oracles.Oracle) (Tests, error) {
	ts := Tests{Dir: dir}
	buckets, err := s.Buckets()
	if err != nil {
		return ts, err
	}
	tmp, err := os.MkdirTemp("", "legalfuzz-lit-")
	if err != nil {
		return ts, err
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ts, err
	}
	for _, b := range buckets {
		bd, err := Write(ctx, s, b.Key, tmp, orcs)
		if err != nil {
			return ts, err
		}
		name, text, ok := litTest(ctx, bd)
		if !ok {
			// No lit test for this tool: its bundle's repro.sh replays it.
			ob, err := Write(ctx, s, b.Key, filepath.Join(dir, BundlesDir), orcs)
			if err != nil {
				return ts, err
			}
			ts.Other = append(ts.Other, b.Key+" ("+bd.Observed.Oracle+")")
			ts.Files = append(ts.Files, ob.Script)
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return ts, err
		}
		ts.Files = append(ts.Files, path)
		ts.Buckets++
	}
	cfg := filepath.Join(dir, corpus.LitConfig)
	if err := os.WriteFile(cfg, []byte(litConfigText(ctx)), 0o644); err != nil {
		return ts, err
	}
	awk, err := replay.WriteValuesAwk(dir)
	if err != nil {
		return ts, err
	}
	ts.Files = append(ts.Files, cfg, awk)
	return ts, nil
}

// litTest is a bucket's lit test: its file name and text, or !ok when its
// deviating tool has none (ptxas, the in-process oracles).
func litTest(ctx context.Context, bd Bundle) (string, string, bool) {
	obs := bd.Observed
	legal := bd.Expected.Kind == oracles.Accept
	rep := bd.reproductions[obs.Oracle]
	in, found := toolchain.In(bd.found, obs.Oracle)
	comment, commented := litComment[filepath.Ext(rep.Input)]
	if !found || !commented || !fileIn(bd.Dir, rep.Input) {
		return "", "", false
	}
	input := rep.Input
	lit, isLit := reproducerOf(obs.Oracle).(replay.Lit)
	var run []string
	var feature string
	switch {
	case rep.Replay == oracles.ReplayPlan && isLit:
		feature, run = lit.LitRun(ctx, replayCase(bd), legal, in)
	case rep.Replay == oracles.ReplaySteps && len(rep.Steps) == 1 && slices.Contains(litToolNames, rep.Steps[0].Tool.Name):
		st := rep.Steps[0]
		feature = fmt.Sprintf("%s-%d", st.Tool.Name, in.Major)
		run = stepRun(bd, legal, in, st)
	default:
		return "", "", false
	}
	text, err := os.ReadFile(filepath.Join(bd.Dir, input))
	if err != nil {
		return "", "", false
	}
	var b strings.Builder
	for _, r := range run {
		fmt.Fprintf(&b, "%s RUN: %s\n", comment, r)
	}
	if line := replay.WrongLine(bd.Observed); line != "" && legal {
		fmt.Fprintf(&b, "%s VALUE-NOT: {{^}}%s{{$}}\n", comment, line)
	}
	if legal {
		fmt.Fprintf(&b, "%s CHECK-NOT: error\n", comment)
	} else {
		fmt.Fprintf(&b, "%s REFUSED: error\n", comment)
	}
	for _, l := range litHeader(bd, legal, feature) {
		fmt.Fprintf(&b, "%s %s\n", comment, l)
	}
	b.WriteString(string(text))
	ext := filepath.Ext(input)
	return bd.Bucket.Key + ext, b.String(), true
}

// stepRun is the RUN lines of a one-step tool's bucket (llc): the tool on
// the case, and for a wrong value the evaluation of the code it emitted,
// where the line the bucket names must be gone.
func stepRun(bd Bundle, legal bool, in toolchain.Installation, st oracles.Step) []string {
	cmd := func(out string) string {
		args := make([]string, len(st.Args))
		for i, a := range st.Args {
			switch a {
			case st.Input:
				a = "%s"
			case st.Output:
				a = out
			}
			args[i] = a
		}
		return replay.LitSub(st.Tool.Name, in) + " " + strings.Join(args, " ")
	}
	line := replay.WrongLine(bd.Observed)
	if line == "" || !legal || st.Output == "" {
		return []string{replay.Checked(cmd("/dev/null"), legal)}
	}
	assign, _ := valuecheck.Input(line)
	out := "%t" + filepath.Ext(strings.Trim(st.Output, `"`))
	return []string{replay.Checked(cmd(out), true),
		"awk -v '" + assign + "' -f %S/" + replay.ValuesAwk + " " + out + " | %FileCheck %s --check-prefix=VALUE --allow-empty"}
}

// litComment starts a comment line in a lit test, by its input's
// extension: lit.cfg.py runs tests of these kinds.
var litComment = map[string]string{".mlir": "//", ".ll": ";"}

// litToolNames are the tools of each installation lit.cfg.py finds.
var litToolNames = []string{"mlir-opt", "mlir-translate", "llc"}

// litHeader says what the test expects and why, and marks the open bug.
func litHeader(bd Bundle, legal bool, feature string) []string {
	want := "the case is illegal: the tool must refuse it, without crashing"
	if legal {
		want = "the case is legal: the tool must accept it, without an error"
	}
	h := []string{
		"",
		fmt.Sprintf("legalfuzz regression test for bucket %s (%s): %s", bd.Bucket.Key, policy.ClassOf(bd.Bucket.Signature), oneLine(bd.Bucket.Title)),
		fmt.Sprintf("case %s (%s), target %s", bd.Case.ID, bd.Case.Domain, domain.TargetName(bd.Case.Value)),
		fmt.Sprintf("expected (%s %s %s): %s", bd.Expected.Oracle, bd.Expected.Kind, bd.Expected.Rule, want),
	}
	if r := ruleOf(bd.Expected.Rule); r != nil {
		h = append(h, "  "+oneLine(r.Message), "  source: "+r.Source)
	}
	h = append(h, fmt.Sprintf("observed (%s %s, %s): %s", bd.Observed.Oracle, bd.Observed.Version, bd.Observed.Kind, oneLine(bd.Observed.Diagnostic)),
		fmt.Sprintf("an open bug on %s: expected to fail there; an unexpected pass means the version lit found fixed it", feature),
		"XFAIL: "+feature, "")
	return h
}

// oneLine is the first line of s, trimmed.
func oneLine(s string) string {
	return strings.TrimSpace(strings.SplitN(strings.TrimSpace(s), "\n", 2)[0])
}

// fileIn reports whether dir holds file.
func fileIn(dir, file string) bool {
	_, err := os.Stat(filepath.Join(dir, file))
	return err == nil
}

// litTool is a tool the bucket tests run: the lit substitution that names
// it, the name its XFAIL feature starts with ("llc" in "llc-19"), and the
// spec legalfuzz finds it by.
type litTool struct {
	sub, name string
	spec      tool.Spec
}

// anyVersion accepts a helper whose version nobody checks (FileCheck, not).
func anyVersion(string) (string, bool) { return "", true }

// litTools are the tools lit.cfg.py finds: each installation's, named
// for it, and the helpers of whichever installation has them.
func litTools(ctx context.Context) []litTool {
	ins, _, _ := toolchain.Discover(ctx, toolchain.Options{})
	var out []litTool
	helpers := map[string][]string{}
	for _, in := range ins {
		for _, name := range litToolNames {
			out = append(out, litTool{replay.LitSub(name, in), name, in.Spec(name)})
		}
		for _, h := range []string{"FileCheck", "not"} {
			helpers[h] = append(helpers[h], in.Path(h))
		}
	}
	for _, h := range []string{"FileCheck", "not"} {
		out = append(out, litTool{"%" + h, h, tool.Spec{Name: h, Env: "LEGALFUZZ_" + strings.ToUpper(h),
			Files: append(helpers[h], h), VersionArgs: []string{"--version"}, Version: anyVersion}})
	}
	return out
}

// litConfigText is lit.cfg.py: each tool is looked for as legalfuzz looks
// (its LEGALFUZZ_* variable, $LEGALFUZZ_ORACLES_DIR/bin, the nearest
// .oracles/bin, PATH) and then where the export found it, so tests
// exported out of the checkout still find the tools of this machine.
func litConfigText(ctx context.Context) string {
	var b strings.Builder
	b.WriteString(litConfig)
	b.WriteString("tools = [\n")
	for _, t := range litTools(ctx) {
		found := "None"
		if tl, err := tool.Locate(ctx, t.spec); err == nil {
			found = pyString(tl.Path)
		}
		names := make([]string, len(t.spec.Files))
		for i, f := range t.spec.Files {
			names[i] = pyString(f)
		}
		fmt.Fprintf(&b, "    (%s, %s, %s, [%s], %s),\n", pyString(t.sub), pyString(t.name), pyString(t.spec.Env), strings.Join(names, ", "), found)
	}
	b.WriteString("]\n")
	b.WriteString(litConfigTail)
	return b.String()
}

// pyString quotes s for Python.
func pyString(s string) string { return strconv.Quote(s) }

// litConfig finds the tools and names each found version as a feature
// ("mlir-opt-19", "llc-22") for XFAIL.
const litConfig = `# Generated by legalfuzz corpus export: lit configuration for the bucket tests.
#   lit -v DIR               (make oracles installs lit as .oracles/bin/lit-19)
# Tools: the LEGALFUZZ_* variables legalfuzz reads, $LEGALFUZZ_ORACLES_DIR/bin,
# the nearest .oracles/bin, PATH, then where the export found them. Each tool
# found adds the feature NAME-MAJOR (mlir-opt-19, llc-24) that XFAIL lines name.
import os, re, shutil, subprocess
import lit.formats

config.name = "legalfuzz"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".ll"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.test_source_root, ".lit")
config.excludes = [".lit", "bundles"]

` + corpus.LitToolFinder + `
# (substitution, name, variable, file names, where the export found it)
`

const litConfigTail = `for sub, name, env, names, found in tools:
    path = find(env, names, found)
    if path is None:
        lit_config.warning("%s not found (set %s); its tests fail" % (names[0], env))
        path = names[0]
    else:
        v = major(path)
        if v:
            config.available_features.add("%s-%s" % (name, v))
        lit_config.note("%s: %s%s" % (sub, path, " (LLVM %s)" % v if v else ""))
    config.substitutions.append((sub, path))
`
