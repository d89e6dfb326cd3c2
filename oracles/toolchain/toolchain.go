// Package toolchain finds the LLVM installations legalfuzz judges with.
// An installation is data, not code: a folder of LLVM tools, the version
// they print, and where they came from. make oracles installs some
// (releases, and a snapshot of LLVM main), a user names others (their own
// build); each gives the same oracles (mlir@LABEL, llc@LABEL, ...), so a
// new LLVM release or a build of main needs no Go change.
package toolchain

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/diag"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// Trunk is the label of the snapshot of LLVM main that make oracles installs.
const Trunk = "trunk"

// Installation is one LLVM installation.
type Installation struct {
	// Label names the installation in oracle names (mlir@LABEL): the major
	// release ("22"), "trunk" for the installed snapshot of main, or the
	// user's name for their build.
	Label string `json:"label"`
	// Dir is the folder that holds the tools (mlir-opt, llc, ...).
	Dir string `json:"dir"`
	// Version is LLVM's version as the tools print it: "22.1.8", "24.0.0git".
	Version string `json:"version"`
	// Major is the version's major release.
	Major int `json:"major"`
	// Snapshot names the commit of LLVM main a snapshot was built from
	// ("2026-10-25 7e3c57157096"); empty for a release.
	Snapshot string `json:"snapshot,omitempty"`
	// Source says where the installation came from.
	Source string `json:"source"`
	// Named is set for an installation the user named.
	Named bool `json:"named,omitempty"`
}

// Main reports whether the installation is LLVM main rather than a
// release: an installed snapshot, or a build whose version says git.
func (in Installation) Main() bool {
	return in.Snapshot != "" || strings.HasSuffix(in.Version, "git")
}

// String names the installation as a user reads it: "22 (LLVM 22.1.8)",
// "trunk (LLVM 24.0.0, main 2026-10-25 7e3c57157096)".
func (in Installation) String() string {
	s := in.Label + " (LLVM " + in.Version
	if in.Snapshot != "" {
		s += ", main " + in.Snapshot
	}
	return s + ")"
}

// Path is where the installation's tool of that name is.
func (in Installation) Path(name string) string { return filepath.Join(in.Dir, name) }

// Locate finds the installation's tool and checks that it is of the
// installation's version (a folder of mixed tools is refused).
func (in Installation) Locate(ctx context.Context, name string) (tool.Tool, error) {
	path := in.Path(name)
	res, err := tool.Probe(ctx, path, "--version")
	if err != nil {
		return tool.Tool{}, fmt.Errorf("%s of LLVM installation %s: %w", name, in.Label, err)
	}
	v, _, ok := ParseVersion(res.Output())
	if !ok || v != in.Version {
		return tool.Tool{}, fmt.Errorf("%s: version %q, not the installation's %s", path, clip.Text(diag.FirstLine(res.Output())), in.Version)
	}
	return tool.Tool{Name: name, Path: path, Version: v}, nil
}

// Spec finds the installation's tool of that name as a reproducer does:
// where it is, or by its name suffixed with the label (llc-22, as make
// oracles names it in .oracles/bin), of the installation's version.
func (in Installation) Spec(name string) tool.Spec {
	return tool.Spec{Name: name, Files: []string{in.Path(name), name + "-" + in.Label}, VersionArgs: []string{"--version"},
		Install: "the LLVM installation " + in.String() + ", " + in.Source,
		Version: func(out string) (string, bool) {
			v, _, ok := ParseVersion(out)
			return v, ok && v == in.Version
		}}
}

// llvmVersion matches the version line every LLVM tool prints: "LLVM
// version 19.1.7" ("Debian LLVM version 19.1.7" on Debian, "LLVM version
// 24.0.0git" for a build of main).
var llvmVersion = regexp.MustCompile(`LLVM version ((\d+)\.\d+\.\d+\w*)`)

// ParseVersion reads an LLVM tool's --version output: the version and its
// major release.
func ParseVersion(out string) (version string, major int, ok bool) {
	m := llvmVersion.FindStringSubmatch(out)
	if m == nil {
		return "", 0, false
	}
	major, err := strconv.Atoi(m[2])
	return m[1], major, err == nil
}

// Installed is an oracle that runs the tools of an LLVM installation.
type Installed interface {
	oracles.Oracle
	// Installation is the installation discovery gave the oracle.
	Installation() Installation
}

// In is the installation of the oracle named name among orcs: the one
// discovery found, a --toolchain build included, so that a reproducer runs
// the tools that judged, never an installation found again by the label
// in the oracle's name. False when no oracle of orcs is that one or it
// runs no installation.
func In(orcs []oracles.Oracle, name string) (Installation, bool) {
	for _, o := range orcs {
		if i, ok := o.(Installed); ok && o.Name() == name && i.Installation().Dir != "" {
			return i.Installation(), true
		}
	}
	return Installation{}, false
}

// Find returns the installation an installed oracle's label names, among
// those make oracles installed and those the options name.
func Find(ctx context.Context, opts Options, label string) (Installation, bool) {
	found, _, err := Discover(ctx, opts)
	if err != nil {
		return Installation{}, false
	}
	i := slices.IndexFunc(found, func(in Installation) bool { return in.Label == label })
	if i < 0 {
		return Installation{}, false
	}
	return found[i], true
}

// probeTools are the tools whose --version says an installation's version,
// tried in order: an installation may hold only some of them.
var probeTools = []string{"llc", "mlir-opt", "llvm-mc"}

// Open reads the installation in dir (the folder of its tools, or one with
// a bin/ folder of them), its version from the tools themselves; label
// names it, or is derived from the version ("22"; "24git" for a build of
// main).
func Open(ctx context.Context, label, dir string) (Installation, error) {
	if label != "" && !oracles.ValidLabel(label) {
		return Installation{}, fmt.Errorf("label %q: use letters, digits, '.', '_' and '-'", label)
	}
	if b := filepath.Join(dir, "bin"); isDir(b) {
		dir = b
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Installation{}, err
	}
	probes := probeVersions(ctx, abs)
	var tried []string
	for i, name := range probeTools {
		res, err := probes[i].res, probes[i].err
		if errors.Is(err, tool.ErrStart) {
			continue // an installation may hold only some of them
		}
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		v, major, ok := ParseVersion(res.Output())
		if !ok {
			tried = append(tried, fmt.Sprintf("%s --version: %q", name, clip.Text(diag.FirstLine(res.Output()))))
			continue
		}
		in := Installation{Label: label, Dir: abs, Version: v, Major: major, Source: abs}
		if in.Label == "" {
			in.Label = strconv.Itoa(major) + strings.TrimLeft(v, "0123456789.")
		}
		return in, nil
	}
	if len(tried) == 0 {
		return Installation{}, fmt.Errorf("no LLVM tool (%s) runs in %s", strings.Join(probeTools, ", "), abs)
	}
	return Installation{}, fmt.Errorf("%s holds no LLVM tools: %s", abs, strings.Join(tried, "; "))
}

// probed is one tool's answer to --version.
type probed struct {
	res tool.Result
	err error
}

// probeVersions asks each of probeTools in dir for its version, all at
// once: a folder of tools that hang costs one tool.ProbeTimeout, not one
// per tool.
func probeVersions(ctx context.Context, dir string) []probed {
	out := make([]probed, len(probeTools))
	var wg sync.WaitGroup
	for i, name := range probeTools {
		wg.Go(func() { out[i].res, out[i].err = tool.Probe(ctx, filepath.Join(dir, name), "--version") })
	}
	wg.Wait()
	return out
}

// readInfo reads the `key: value` file make oracles writes beside an
// installation's bin/ (label, version, source, snapshot).
func readInfo(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return info, sc.Err()
}

// Options say which installations to find besides the installed ones.
type Options struct {
	// Named are the user's installations, "[LABEL=]DIR" each: DIR is an
	// LLVM build or install folder (or its bin/).
	Named []string
	// File is a toolchains file: one "[LABEL=]DIR" a line, # comments.
	File string
}

// Discover finds the installations make oracles made (each folder of
// .oracles/llvm, see tool.OraclesBinDirs) and those the user names,
// oldest first. An installed one that does not run is left out with its
// reason in skipped; a named one that does not run, or a label given
// twice, is the user's error.
func Discover(ctx context.Context, opts Options) (found []Installation, skipped []error, err error) {
	named, err := opts.specs()
	if err != nil {
		return nil, nil, err
	}
	for _, s := range named {
		label, dir, ok := strings.Cut(s, "=")
		if !ok {
			label, dir = "", s
		}
		in, err := Open(ctx, label, dir)
		if err != nil {
			return nil, nil, fmt.Errorf("--toolchain %s: %w", s, err)
		}
		in.Named = true
		if i := slices.IndexFunc(found, func(o Installation) bool { return o.Label == in.Label }); i >= 0 {
			return nil, nil, fmt.Errorf("two LLVM installations labelled %s (%s and %s): name one with --toolchain LABEL=DIR", in.Label, found[i].Dir, in.Dir)
		}
		found = append(found, in)
	}
	for _, in := range installed(ctx, &skipped) {
		if !slices.ContainsFunc(found, func(o Installation) bool { return o.Label == in.Label }) {
			found = append(found, in)
		}
	}
	slices.SortStableFunc(found, compare)
	return found, skipped, nil
}

// specs gathers the named installations of the flags and the file.
func (o Options) specs() ([]string, error) {
	specs := slices.Clone(o.Named)
	if o.File == "" {
		return specs, nil
	}
	data, err := os.ReadFile(o.File)
	if err != nil {
		return nil, fmt.Errorf("toolchains file: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			specs = append(specs, line)
		}
	}
	return specs, nil
}

// systemRoots is where Debian's and apt.llvm.org's LLVM packages install
// each release.
const systemRoots = "/usr/lib/llvm-*/bin"

// installed reads the installations under each .oracles/llvm folder or,
// when there is none (a binary run away from its checkout), the system's
// LLVM releases (systemRoots).
func installed(ctx context.Context, skipped *[]error) []Installation {
	var out []Installation
	add := func(in Installation) {
		if !slices.ContainsFunc(out, func(o Installation) bool { return o.Label == in.Label }) {
			out = append(out, in)
		}
	}
	for _, bin := range tool.OraclesBinDirs() {
		dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "llvm", "*", "toolchain"))
		for _, file := range dirs {
			in, err := openInstalled(ctx, filepath.Dir(file))
			if err != nil {
				*skipped = append(*skipped, err)
				continue
			}
			add(in)
		}
	}
	if len(out) > 0 {
		return out
	}
	bins, _ := filepath.Glob(systemRoots)
	for _, bin := range bins {
		if in, err := Open(ctx, "", bin); err == nil && !in.Main() {
			in.Source = "the system's " + filepath.Dir(bin)
			add(in)
		}
	}
	return out
}

// openInstalled opens one installation make oracles made.
func openInstalled(ctx context.Context, dir string) (Installation, error) {
	info, err := readInfo(filepath.Join(dir, "toolchain"))
	if err != nil {
		return Installation{}, err
	}
	in, err := Open(ctx, cmp.Or(info["label"], filepath.Base(dir)), filepath.Join(dir, "bin"))
	if err != nil {
		return Installation{}, fmt.Errorf("installed LLVM %s: %w", filepath.Base(dir), err)
	}
	in.Snapshot, in.Source = info["snapshot"], cmp.Or(info["source"], in.Source)
	if v := info["version"]; v != "" {
		in.Source += " " + v
	}
	return in, nil
}

// compare orders installations oldest first: by major release, a release
// before main of the same major, then by label.
func compare(a, b Installation) int {
	return cmp.Or(cmp.Compare(a.Major, b.Major), boolCmp(a.Main(), b.Main()), cmp.Compare(a.Label, b.Label))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Judging picks the installations a campaign judges with by default: the
// newest release, every build of main and every installation the user
// named. The older releases stay for replaying buckets (found-in).
func Judging(ins []Installation) []Installation {
	newest := -1
	for _, in := range ins {
		if !in.Main() {
			newest = max(newest, in.Major)
		}
	}
	var out []Installation
	for _, in := range ins {
		if in.Main() || in.Named || in.Major == newest {
			out = append(out, in)
		}
	}
	return out
}

// SampleOneIn is the share of the cases a sampled installation judges:
// one in SampleOneIn (oracles.InSample).
const SampleOneIn = 4

// Sampling picks, among the installations a campaign judges with
// (Judging), those that judge a sample of the cases: the newest release,
// when a build of main judges too and the user did not name the release.
// Beside main, a release mostly says what main says, and every bucket is
// replayed on every installation anyway (found-in); its CPU goes to main
// judging more distinct cases. A domain main does not judge (its parser
// does not read our spelling), the release still judges in full.
func Sampling(ins []Installation) []Installation {
	judging := Judging(ins)
	if !slices.ContainsFunc(judging, Installation.Main) {
		return nil
	}
	var out []Installation
	for _, in := range judging {
		if !in.Main() && !in.Named {
			out = append(out, in)
		}
	}
	return out
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Oldest finds the oldest installed release that has the named tool: the
// one the code that writes a corpus in one release's spelling (MLIR's
// lit tests) asks, since newer releases read most of what older ones
// wrote.
func Oldest(ctx context.Context, name string) (Installation, tool.Tool, error) {
	found, skipped, err := Discover(ctx, Options{})
	if err != nil {
		return Installation{}, tool.Tool{}, err
	}
	var errs []error
	for _, in := range found {
		if in.Main() {
			continue
		}
		t, err := in.Locate(ctx, name)
		if err == nil {
			return in, t, nil
		}
		errs = append(errs, err)
	}
	return Installation{}, tool.Tool{}, errors.Join(append([]error{fmt.Errorf("no installed LLVM release has %s (run make oracles)", name)}, append(errs, skipped...)...)...)
}

// Release finds the installed release of an LLVM major version, for code
// that asks about one release's behaviour (known answers in tests).
func Release(ctx context.Context, major int) (Installation, error) {
	found, skipped, err := Discover(ctx, Options{})
	if err != nil {
		return Installation{}, err
	}
	for _, in := range found {
		if in.Major == major && !in.Main() {
			return in, nil
		}
	}
	return Installation{}, errors.Join(append([]error{fmt.Errorf("no LLVM %d installation (run make oracles)", major)}, skipped...)...)
}
