package registry

import (
	"strings"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/amdgpu"
	"github.com/legalfuzz/legalfuzz/oracles/cuda"
	"github.com/legalfuzz/legalfuzz/oracles/exec"
	"github.com/legalfuzz/legalfuzz/oracles/llvm"
	"github.com/legalfuzz/legalfuzz/oracles/mlir"
	"github.com/legalfuzz/legalfuzz/oracles/ptxas"
	"github.com/legalfuzz/legalfuzz/oracles/sass"
	"github.com/legalfuzz/legalfuzz/oracles/spec"
)

// reproducers are the oracle families' reproducers, by family (the
// catalog's): how a bundle replays their verdicts by hand.
var reproducers = map[string]oracles.Reproducer{
	"spec":        spec.Reproducer{},
	"ptxas":       ptxas.Reproducer{},
	"nvdisasm":    sass.Reproducer{},
	"mlir":        mlir.Reproducer{},
	"mlir-nvvm":   mlir.Reproducer{},
	"mlir-passes": mlir.PassesReproducer{},
	"llc":         llvm.Reproducer{},
	"llvm-mc":     amdgpu.Reproducer{},
	"cuda":        cuda.Reproducer{},
	"gpu":         cuda.GPUReproducer{},
}

// Reproducer is the reproducer of the named oracle's family; false for an
// oracle judged in process with no input of its own (a seed's algorithm
// under test), which legalfuzz check replays.
func Reproducer(name string) (oracles.Reproducer, bool) {
	if strings.HasPrefix(name, oracles.ExecPrefix) {
		return exec.Reproducer{}, true
	}
	in, ok := oracles.Lookup(name)
	if !ok {
		return nil, false
	}
	r, ok := reproducers[in.Family]
	return r, ok
}
