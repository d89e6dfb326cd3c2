package ptxas

import (
	"context"
	"os"
	"path/filepath"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// cudaHomes are where CUDA toolkits install, in the order they are tried
// after LEGALFUZZ_PTXAS13, .oracles/bin and PATH: $CUDA_HOME, $CUDA_PATH,
// /usr/local/cuda (the GPU machines' CUDA 13).
func cudaHomes() []string {
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := os.Getenv(env); d != "" {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, "/usr/local/cuda")
}

// PTXAS13Config is PTXAS13 extended to find the toolkit's ptxas in
// the CUDA install folders too (tool.Locate looks a name up on PATH, and
// an absolute name is looked up as is). The version check still decides:
// a CUDA 12 toolkit there is skipped with its version in the reason.
func PTXAS13Config() Config {
	cfg := PTXAS13
	files := append([]string(nil), cfg.Spec.Files...)
	for _, home := range cudaHomes() {
		files = append(files, filepath.Join(home, "bin", "ptxas"))
	}
	cfg.Spec.Files = files
	return cfg
}

// DiscoverPTXAS13 finds CUDA 13's ptxas: LEGALFUZZ_PTXAS13, .oracles/bin,
// PATH, then the CUDA install folders. It is ptxas 12.4's oracle with
// another Config, so ptxas13 and ptxas judge alike and batch alike.
func DiscoverPTXAS13(ctx context.Context) (*Oracle, oracles.Status) {
	return DiscoverConfig(ctx, PTXAS13Config())
}
