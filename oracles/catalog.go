package oracles

import "strings"

// The names of the oracles legalfuzz knows. Policies, reports and
// reproducers name oracles by these constants; each oracle package answers
// to its own.
const (
	SpecSeed   = "spec/seed"   // the seed documents' verifiers, as written
	SpecPTXISA = "spec/ptxisa" // the same questions from the PTX ISA and CUDA docs
	FenceProxy = "fenceproxy"  // seed 003's fence inserter, an algorithm under test
	PTXAS      = "ptxas"       // CUDA 12.4's ptxas
	PTXAS13    = "ptxas13"     // CUDA 13's ptxas, on GPU machines
	SASS       = "sass"        // ptxas 12.4's cubin read back by nvdisasm and cuobjdump
	MLIR       = "mlir"        // mlir-opt 19's nvgpu/nvvm verifiers and lowering
	MLIR22     = "mlir22"      // the same with MLIR 22 (mlir-opt-22, llc-22)
	// MLIR's GPU passes beyond the mlir oracles' lowering, one at a time.
	MLIRPasses   = "mlir-passes"
	MLIR22Passes = "mlir22-passes"
	LLC19        = "llc19"       // LLVM 19's NVPTX backend
	LLC22        = "llc22"       // LLVM 22's NVPTX backend
	AMDGPUMC     = "amdgpu-mc"   // llvm-mc 19's AMDGPU assembler
	AMDGPUMC22   = "amdgpu-mc22" // llvm-mc 22's AMDGPU assembler
	CUDADriver   = "cuda-driver" // the CUDA driver's tensor-map encoder
	CUDAJIT      = "cuda-jit"    // the CUDA driver's PTX JIT
	GPU          = "gpu"         // kernels run on the GPU itself
)

// ExecPrefix starts the name of a user's verifier: exec:NAME.
const ExecPrefix = "exec:"

// Info is what legalfuzz says about an oracle wherever it names one: in
// reports, reproducers and policy checks.
type Info struct {
	Name string
	// Family groups the versions of one tool, whose verdicts on the same
	// case say where a bug was found and where it was fixed.
	Family string
	// Where says where the oracle runs and where it comes from.
	Where string
	// GPU is set for oracles that need a GPU machine.
	GPU bool
	// Sampled is set for a judge that looks again, at great cost, at what
	// other judges of the same tool already judged (the cubins ptxas
	// wrote, the IR MLIR's verifier and lowering passed): a campaign gives
	// it the cases it has room for and never waits for it, so it does not
	// slow down the judges it builds on.
	Sampled bool
}

// catalog is the one list of the oracles legalfuzz knows.
var catalog = []Info{
	{Name: SpecSeed, Family: "spec", Where: "legalfuzz itself (oracles/spec, seed rule set)"},
	{Name: SpecPTXISA, Family: "spec", Where: "legalfuzz itself (oracles/spec, PTX ISA rule set)"},
	{Name: FenceProxy, Family: "algo", Where: "legalfuzz itself (seed 003's fence inserter under test)"},
	{Name: PTXAS, Family: "ptxas", Where: "ptxas 12.4 from make oracles; knows sm_90a and older"},
	{Name: SASS, Family: "nvdisasm", Where: "ptxas, nvdisasm and cuobjdump 12.4 from make oracles; the SASS of what ptxas accepts, read back", Sampled: true},
	{Name: PTXAS13, Family: "ptxas", Where: "CUDA 13's ptxas on a GPU machine; knows sm_100a and newer", GPU: true},
	{Name: MLIR, Family: "mlir", Where: "mlir-opt 19 from make oracles"},
	{Name: MLIR22, Family: "mlir", Where: "mlir-opt 22 and LLVM 22 from make oracles (private trixie root)"},
	{Name: MLIRPasses, Family: "mlir-passes", Where: "mlir-opt 19 from make oracles", Sampled: true},
	{Name: MLIR22Passes, Family: "mlir-passes", Where: "mlir-opt 22 from make oracles (private trixie root)", Sampled: true},
	{Name: LLC19, Family: "llc", Where: "LLVM 19 llc from make oracles"},
	{Name: LLC22, Family: "llc", Where: "LLVM 22 llc from make oracles"},
	{Name: AMDGPUMC, Family: "llvm-mc", Where: "llvm-mc 19 from make oracles; gfx9-gfx12 as -mcpu=help lists them"},
	{Name: AMDGPUMC22, Family: "llvm-mc", Where: "llvm-mc 22 from make oracles; gfx9-gfx12 (gfx950, gfx1250 too) as -mcpu=help lists them"},
	{Name: CUDADriver, Family: "cuda", Where: "the CUDA driver on a GPU machine", GPU: true},
	{Name: CUDAJIT, Family: "cuda", Where: "the CUDA driver's JIT on a GPU machine", GPU: true},
	{Name: GPU, Family: "gpu", Where: "the GPU itself, on a GPU machine", GPU: true},
}

// Catalog lists every oracle legalfuzz knows, user verifiers aside.
func Catalog() []Info { return append([]Info(nil), catalog...) }

// Lookup returns what legalfuzz knows about the named oracle. A user's
// exec:NAME verifier is known by its prefix.
func Lookup(name string) (Info, bool) {
	for _, in := range catalog {
		if in.Name == name {
			return in, true
		}
	}
	if strings.HasPrefix(name, ExecPrefix) && len(name) > len(ExecPrefix) {
		return Info{Name: name, Family: name, Where: "your own verifier (--oracle " + name + "=COMMAND)"}, true
	}
	return Info{}, false
}
