package repro

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/corpus/regress"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
)

// LitConfig is the lit configuration WriteTests writes beside the tests.
const LitConfig = "lit.cfg.py"

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
// MLIR 19 or an llc into dir, with lit.cfg.py. Each test states the
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
	cfg := filepath.Join(dir, LitConfig)
	if err := os.WriteFile(cfg, []byte(litConfig), 0o644); err != nil {
		return ts, err
	}
	ts.Files = append(ts.Files, cfg)
	return ts, nil
}

// litTest is a bucket's lit test: its file name and text, or !ok when its
// deviating tool has none (ptxas, the in-process oracles).
func litTest(ctx context.Context, bd Bundle) (string, string, bool) {
	obs := bd.Observed
	legal := bd.Expected.Kind == oracles.Accept
	var run []string
	var feature, comment, input string
	switch {
	case obs.Oracle == mlir.Name && fileIn(bd.Dir, MLIRFile):
		feature, comment, input = "mlir-opt-19", "//", MLIRFile
		run = mlirRun(ctx, bd, legal)
	case (obs.Oracle == llvm.LLC19.Name || obs.Oracle == llvm.LLC22.Name) && fileIn(bd.Dir, llcFile(bd)) && len(bd.llcArgs) > 0:
		feature, comment, input = "llc-19", ";", llcFile(bd)
		if obs.Oracle == llvm.LLC22.Name {
			feature = "llc-22"
		}
		run = []string{checked("%"+strings.ReplaceAll(feature, "-", "")+" "+strings.Join(bd.llcArgs, " ")+" %s -o /dev/null", legal)}
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

// checked wraps a RUN command with the check of the correct outcome: a
// legal case passes without an error; an illegal one is refused with an
// error, by the exit status or only in words (mlir-opt may print an error
// and exit 0), but never by a crash (exit status 128 and above).
func checked(cmd string, legal bool) string {
	if legal {
		return cmd + " 2>&1 | %FileCheck %s --allow-empty"
	}
	return "{ " + cmd + " || test $? -lt 128; } 2>&1 | %FileCheck %s --check-prefix=REFUSED"
}

// mlirRun is the RUN lines of an MLIR bucket: the stage that fails, the
// smallest command as in repro.sh; a legal case the wgmma lowering cannot
// compile runs the chain through llc.
func mlirRun(ctx context.Context, bd Bundle, legal bool) []string {
	obs := bd.Observed
	stage, fault := replayStage(obs.Rule)
	switch {
	case stage == "verify" && fault == "":
		return []string{checked("%mlir_opt %s -o /dev/null", legal)}
	case stage == "lowering" && fault == "" && outcome(obs) != "accept":
		if flag, ok := smallestPipeline(ctx, bd.Dir, mlir.OptSpec, words(obs.Diagnostic)); ok {
			return []string{checked("%mlir_opt "+flag+" %s -o /dev/null", legal)}
		}
	}
	pipeline := "%mlir_opt --pass-pipeline='" + mlir.Pipeline + "' %s"
	if !legal {
		// Legality is the verifier's and the lowering's to check: an
		// illegal case must be refused before it becomes LLVM IR.
		return []string{checked(pipeline+" -o /dev/null", false)}
	}
	t := mlirTarget(bd.Dir, bd.Case.Value.Target())
	return []string{
		checked(pipeline+" -o %t.lowered.mlir", true),
		`awk '/^  gpu.module @/{on=1; print "module {"; next} on && /^  }$/{print "}"; exit} on' %t.lowered.mlir > %t.device.mlir`,
		"%mlir_translate --mlir-to-llvmir %t.device.mlir -o %t.ll",
		checked("%llc19 "+strings.Join(mlir.LLCArgs(t, "%t.ll", "/dev/null"), " "), true),
	}
}

// litHeader says what the test expects and why, and marks the open bug.
func litHeader(bd Bundle, legal bool, feature string) []string {
	want := "the case is illegal: the tool must refuse it, without crashing"
	if legal {
		want = "the case is legal: the tool must accept it, without an error"
	}
	h := []string{
		"",
		fmt.Sprintf("legalfuzz regression test for bucket %s (%s): %s", bd.Bucket.Key, policy.ClassOf(bd.Bucket.Signature), oneLine(bd.Bucket.Title)),
		fmt.Sprintf("case %s (%s), target %s", bd.Case.ID, bd.Case.Domain, targetText(bd.Case)),
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

// litConfig finds the tools (the LEGALFUZZ_* variables legalfuzz reads,
// the project's .oracles/bin, PATH), substitutes them, and names each
// found version as a feature ("mlir-opt-19", "llc-22") for XFAIL.
const litConfig = `# Generated by legalfuzz corpus export: lit configuration for the bucket tests.
#   lit-19 -v DIR            (or: python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v DIR)
# Tools: the LEGALFUZZ_* variables legalfuzz reads, $LEGALFUZZ_ORACLES_DIR/bin,
# the nearest .oracles/bin, then PATH. Each tool found adds the feature
# NAME-MAJOR (mlir-opt-19, llc-22) that XFAIL lines name.
import os, re, shutil, subprocess
import lit.formats

config.name = "legalfuzz"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".ll"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.test_source_root, ".lit")
config.excludes = [".lit", "bundles"]

def bin_dirs():
    dirs = []
    if os.environ.get("LEGALFUZZ_ORACLES_DIR"):
        dirs.append(os.path.join(os.environ["LEGALFUZZ_ORACLES_DIR"], "bin"))
    d = config.test_source_root
    while True:
        if os.path.isdir(os.path.join(d, ".oracles", "bin")):
            dirs.append(os.path.join(d, ".oracles", "bin"))
            break
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    return dirs + ["/usr/lib/llvm-19/bin"]

def find(env, names):
    if os.environ.get(env):
        return os.environ[env]
    for d in bin_dirs():
        for n in names:
            p = os.path.join(d, n)
            if os.access(p, os.X_OK):
                return p
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None

def major(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except OSError:
        return None
    m = re.search(r"LLVM version (\d+)", out)
    return m and m.group(1)

tools = [
    ("%mlir_opt", "mlir-opt", "LEGALFUZZ_MLIR_OPT", ["mlir-opt-19", "mlir-opt"]),
    ("%mlir_translate", "mlir-translate", "LEGALFUZZ_MLIR_TRANSLATE", ["mlir-translate-19", "mlir-translate"]),
    ("%llc19", "llc", "LEGALFUZZ_LLC19", ["llc-19", "llc"]),
    ("%llc22", "llc", "LEGALFUZZ_LLC22", ["llc-22"]),
    ("%FileCheck", "FileCheck", "LEGALFUZZ_FILECHECK", ["FileCheck-19", "FileCheck"]),
]
for sub, name, env, names in tools:
    path = find(env, names)
    if path is None:
        lit_config.warning("%s not found (set %s); its tests fail" % (names[0], env))
        path = names[0]
    else:
        v = major(path)
        if v:
            config.available_features.add("%s-%s" % (name, v))
            lit_config.note("%s: %s (LLVM %s)" % (sub, path, v))
    config.substitutions.append((sub, path))
`
