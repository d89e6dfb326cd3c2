package mlir

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
)

// spelled are the domains some release spells, whose seeds the probe
// parses (package fuzz lists every domain, but its tests import this
// package).
var spelled = []domain.Domain{blockscale.Domain, cpasync.Domain, kindword.Domain, ldsm.Domain, matdesc.Domain,
	mma.Domain, tmadesc.Domain, tmamode.Domain, wgmma.Domain}

// parseOnly is mlir-opt's flag to parse without verifying (MLIR 20 and
// later); with it, an error is the parser refusing our text.
const parseOnly = "--mlir-very-unsafe-disable-verifier-on-parsing"

// printGeneric makes mlir-opt print what it parsed in the generic form.
// The probe passes it because the printer otherwise verifies each op
// before choosing its custom form, so a verifier that crashes (22, 23 and
// trunk on a rank-0 nvgpu.tma.async.load) would crash the parse-only run
// too and count as the parser refusing the seed.
const printGeneric = "--mlir-print-op-generic"

// probed remembers each mlir-opt's probe by its cache key (probeKey): the
// mlir and mlir-passes oracles of one installation share it.
var probed sync.Map

// unspelled parses every domain's seeds, as the oracle spells them, with
// the installation's mlir-opt and the verifier off, and returns the
// domains whose spelling it cannot read, each with the parser's words: a
// release that spells an op otherwise (MLIR after 23 writes inherent
// attributes as keywords) must not turn every case into a parse error
// that reads as a verdict. A domain is unspelled when most of its seeds do
// not parse; a few that do not are values the release cannot hold (an
// enum case it lacks), which its verdicts say. A release without the flag
// (MLIR 19, whose spelling the renderers start from) is not probed.
//
// The answer is kept with the tool's probes (batch.Probes, on disk under
// the cache directory) keyed by the tool's build (tool.Tool.Stamp) and a
// hash of the rendered seeds, so a later discovery of the same mlir-opt
// runs nothing, while a rebuilt tool or a renderer that writes a seed
// otherwise is probed again.
func (o *Oracle) unspelled(ctx context.Context) (map[string]string, error) {
	texts, parses := o.seedTexts()
	key := o.probeKey(texts)
	if m, ok := probed.Load(key); ok {
		return m.(map[string]string), nil
	}
	probes := batch.OpenProbes("mlir-opt-parse", o.Opt.Version, o.Opt.Path)
	out := map[string]string{}
	if probes.Get(key, &out) {
		probed.Store(key, out)
		return out, nil
	}
	help, err := o.Opt.Probe(ctx, "--help")
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(help.Stdout), parseOnly) {
		if out, err = o.parseSeeds(ctx, texts, parses); err != nil {
			return nil, err
		}
	}
	probes.Put(key, out)
	probes.Save()
	probed.Store(key, out)
	return out, nil
}

// probeKey is the cache key of the parse probe: what the tool is (path,
// version, build stamp), how it is asked, and what it is given.
func (o *Oracle) probeKey(texts []string) string {
	h := sha256.New()
	for _, s := range append([]string{o.Opt.Path, o.Opt.Version, o.Opt.Stamp(), parseOnly, printGeneric}, texts...) {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return "parse " + hex.EncodeToString(h.Sum(nil))
}

// parseSeeds parses the rendered seeds and says which domains mostly fail.
func (o *Oracle) parseSeeds(ctx context.Context, texts []string, parses []seedParse) (map[string]string, error) {
	parses, err := o.parseEachSeed(ctx, texts, parses)
	if err != nil {
		return nil, err
	}
	seeds, refused, first := map[string]int{}, map[string]int{}, map[string]string{}
	for _, p := range parses {
		d := p.c.Domain
		seeds[d]++
		if p.refused != "" {
			refused[d]++
			if first[d] == "" {
				first[d] = p.refused
			}
		}
	}
	out := map[string]string{}
	for d, n := range refused {
		if 2*n > seeds[d] {
			out[d] = fmt.Sprintf("mlir-opt %s does not parse legalfuzz's spelling of %s (%d of %d seeds; first: %s)",
				o.Opt.Version, d, n, seeds[d], first[d])
		}
	}
	return out, nil
}

// seedParse is one seed as the parser read it.
type seedParse struct {
	c domain.Case
	// refused is the parser's first error, or "" when it read the seed.
	refused string
}

// seedTexts renders every seed of every domain the oracle judges, with
// the seed each text is of.
func (o *Oracle) seedTexts() ([]string, []seedParse) {
	var texts []string
	var parses []seedParse
	for _, d := range spelled {
		if !o.Judges(d.Name) {
			continue
		}
		for _, v := range d.Seeds() {
			c := domain.NewCase(d.Name, v)
			text, _, err := o.render(c)
			if err == nil {
				texts, parses = append(texts, text), append(parses, seedParse{c: c})
			}
		}
	}
	return texts, parses
}

// parseEachSeed parses the rendered seeds (seedTexts) with the verifier
// off and records on each parse what the parser refused.
func (o *Oracle) parseEachSeed(ctx context.Context, texts []string, parses []seedParse) ([]seedParse, error) {
	res, err := o.runSplit(ctx, stage{name: stageVerify, tool: o.Opt, args: []string{parseOnly, printGeneric}}, texts)
	if err != nil {
		return nil, fmt.Errorf("parse the seeds with %s: %w", o.Opt.Path, err)
	}
	parses = slices.Clone(parses)
	for i, r := range res {
		if r.outcome != passed {
			parses[i].refused = cmp.Or(firstError(r.diag), "refused")
		}
	}
	return parses, nil
}

// firstError is the words of a diagnostic's first error, without the
// location before them.
func firstError(d string) string {
	for _, l := range strings.Split(d, "\n") {
		if _, words, ok := strings.Cut(l, "error: "); ok {
			return words
		}
	}
	return strings.TrimSpace(strings.SplitN(d, "\n", 2)[0])
}
