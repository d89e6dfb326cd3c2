package mlir

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain/toolchaintest"
)

// TestSpelledCoversRenderers: the probe parses the seeds of every domain
// some release renders.
func TestSpelledCoversRenderers(t *testing.T) {
	all := maps.Clone(renderers)
	for _, sp := range spellings {
		maps.Copy(all, sp.renderers)
	}
	for name := range all {
		if !slices.ContainsFunc(spelled, func(d domain.Domain) bool { return d.Name == name }) {
			t.Errorf("domain %s has a renderer but no seeds in spelled", name)
		}
	}
}

// waitGeneric is legalfuzz's spelling of cp.async's wait.
var waitGeneric = regexp.MustCompile(`"nvgpu.device_async_wait"\((%\w+)\) <\{numGroups = 0 : i32\}> : \(!nvgpu.device.async.token\) -> \(\)`)

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
	got, err := o.parseSeeds(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("MLIR 22 on its own spellings: %v, %v; want every domain parsed", got, err)
	}
	keywords := typed(func(v cpasync.Value) (kernel, error) {
		k, err := renderCPAsync(v)
		k.Body = waitGeneric.ReplaceAllString(k.Body, "nvgpu.device_async_wait $1 numGroups = 0")
		return k, err
	})
	o.spelling.renderers = map[string]renderer{cpasync.Name: keywords}
	got, err = o.parseSeeds(context.Background())
	if err != nil || !strings.Contains(got[cpasync.Name], "does not parse legalfuzz's spelling of cpasync") || len(got) != 1 {
		t.Fatalf("MLIR 22 on a spelling it cannot read: %v, %v", got, err)
	}
}
