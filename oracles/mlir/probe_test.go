package mlir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestSpelledCoversRenderers: the probe parses the seeds of every domain
// some release renders.
func TestSpelledCoversRenderers(t *testing.T) {
	all := map[string]bool{}
	for _, sp := range render.Spellings() {
		for _, d := range sp.Domains() {
			all[d] = true
		}
	}
	for name := range all {
		if !slices.ContainsFunc(spelled, func(d domain.Domain) bool { return d.Name == name }) {
			t.Errorf("domain %s has a renderer but no seeds in spelled", name)
		}
	}
}

// waitGeneric is legalfuzz's spelling of cp.async's wait.
var waitGeneric = regexp.MustCompile(`"nvgpu.device_async_wait"\((%\w+)\) <\{numGroups = 0 : i32\}> : \(!nvgpu.device.async.token\) -> \(\)`)

// keywordWait is the spelling with cp.async's wait in the custom form
// MLIR 22 does not parse (numGroups as a keyword).
func keywordWait(sp render.Spelling) render.Spelling {
	return sp.With(cpasync.Name, func(v domain.Value) (render.Kernel, error) {
		_, k, err := sp.Render(domain.NewCase(cpasync.Name, v))
		k.Body = waitGeneric.ReplaceAllString(k.Body, "nvgpu.device_async_wait $1 numGroups = 0")
		return k, err
	})
}

// TestProbeFindsUnparsedSpelling: MLIR 22 reads legalfuzz's spellings of
// every domain it judges; given cp.async written as MLIR after 23 writes
// it (the wait's numGroups as a keyword), it cannot, and the domain is
// unspelled with the parser's words, not judged.
func TestProbeFindsUnparsedSpelling(t *testing.T) {
	in := toolchaintest.Release(t, 22)
	opt, err := in.Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skip(err)
	}
	o := NewRelease("mlir@22", 22, opt)
	texts, parses := o.seedTexts()
	got, err := o.parseSeeds(context.Background(), texts, parses)
	if err != nil || len(got) != 0 {
		t.Fatalf("MLIR 22 on its own spellings: %v, %v; want every domain parsed", got, err)
	}
	o.spelling = keywordWait(o.spelling)
	texts, parses = o.seedTexts()
	got, err = o.parseSeeds(context.Background(), texts, parses)
	if err != nil || !strings.Contains(got[cpasync.Name], "does not parse legalfuzz's spelling of cpasync") || len(got) != 1 {
		t.Fatalf("MLIR 22 on a spelling it cannot read: %v, %v", got, err)
	}
}

// TestSeedsParseOnEveryRelease: every installed release parses, with the
// verifier off, every seed of every domain it judges as legalfuzz spells
// it for that release: a seed it cannot parse would be judged a parse
// error (a bogus reject), which the probe's majority rule does not catch
// when only some of a domain's ops are spelled in a way the release does
// not read. The one refusal allowed is a value the release's enums cannot
// hold (blockscale's scale_vec::8X: "expected ::mlir::NVVM::ScaleVecSize
// to be one of: x1, x2, x4"), which is the release's answer about the
// value. MLIR 19 cannot parse without verifying and is skipped (its
// spelling is MLIR 19's own, which TestKnownAnswers judges).
func TestSeedsParseOnEveryRelease(t *testing.T) {
	ctx := context.Background()
	found, skipped, err := toolchain.Discover(ctx, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"19", "22", "23", toolchain.Trunk}
	for _, in := range found {
		if !slices.Contains(labels, in.Label) {
			labels = append(labels, in.Label)
		}
	}
	for _, label := range labels {
		t.Run(label, func(t *testing.T) {
			i := slices.IndexFunc(found, func(in toolchain.Installation) bool { return in.Label == label })
			if i < 0 {
				t.Skipf("LLVM %s not installed (make oracles): %v", label, skipped)
			}
			in := found[i]
			opt, err := in.Locate(ctx, "mlir-opt")
			if err != nil {
				t.Skip(err)
			}
			help, err := opt.Run(ctx, time.Minute, nil, "--help")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(help.Stdout), parseOnly) {
				t.Skipf("mlir-opt %s cannot parse without verifying (no %s)", opt.Version, parseOnly)
			}
			o := NewRelease("mlir@"+label, in.Major, opt)
			texts, seeds := o.seedTexts()
			parses, err := o.parseEachSeed(ctx, texts, seeds)
			if err != nil {
				t.Fatal(err)
			}
			perDomain := map[string]int{}
			for _, p := range parses {
				perDomain[p.c.Domain]++
				switch {
				case p.refused == "":
				case enumLacks.MatchString(p.refused):
					t.Logf("%s seed %v: a value MLIR %s cannot hold: %s", p.c.Domain, p.c.Value, opt.Version, p.refused)
				default:
					t.Errorf("mlir-opt %s does not parse legalfuzz's spelling of %s seed %v: %s", opt.Version, p.c.Domain, p.c.Value, p.refused)
				}
			}
			if len(parses) == 0 {
				t.Fatalf("no seed has a spelling in MLIR %s", opt.Version)
			}
			t.Logf("seeds rendered per domain: %v", perDomain)
		})
	}
}

// enumLacks is the parser refusing an enum case the release lacks.
var enumLacks = regexp.MustCompile(`^expected ::mlir::NVVM::\w+ to be one of: `)

// TestProbeCachedByBuild: the parse probe's answer is kept on disk, so a
// second discovery of the same mlir-opt (a new process: the in-memory map
// forgotten) runs nothing, while a renderer that writes a seed otherwise,
// or the tool rebuilt in place, is probed again.
func TestProbeCachedByBuild(t *testing.T) {
	in := toolchaintest.Release(t, 22)
	opt, err := in.Locate(context.Background(), "mlir-opt")
	if err != nil {
		t.Skip(err)
	}
	t.Setenv(batch.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	wrapper := filepath.Join(dir, "mlir-opt")
	script := fmt.Sprintf("#!/bin/sh\necho run >> \"%s\"\nexec '%s' \"$@\"\n", runs, opt.Path)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	counted := opt
	counted.Path = wrapper
	ran := func() int {
		data, _ := os.ReadFile(runs)
		return strings.Count(string(data), "run\n")
	}
	discover := func(o *Oracle) map[string]string {
		t.Helper()
		probed.Clear() // a new process
		got, err := o.unspelled(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	if got := discover(NewRelease("mlir@22", 22, counted)); len(got) != 0 || ran() == 0 {
		t.Fatalf("first discovery: unspelled %v after %d runs; want every domain read, and the tool run", got, ran())
	}
	before := ran()
	if got := discover(NewRelease("mlir@22", 22, counted)); len(got) != 0 || ran() != before {
		t.Fatalf("second discovery: unspelled %v, %d runs more; want the cached answer and no run", got, ran()-before)
	}

	changed := NewRelease("mlir@22", 22, counted)
	changed.spelling = keywordWait(changed.spelling)
	if got := discover(changed); got[cpasync.Name] == "" || ran() == before {
		t.Fatalf("a changed rendering: unspelled %v, %d runs more; want it probed again", got, ran()-before)
	}

	before = ran()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(wrapper, later, later); err != nil {
		t.Fatal(err)
	}
	if discover(NewRelease("mlir@22", 22, counted)); ran() == before {
		t.Fatal("the tool rebuilt in place: probed from the cache; want it probed again")
	}
}
