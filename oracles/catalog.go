package oracles

import (
	"regexp"
	"strconv"
	"strings"
)

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
	CUDADriver = "cuda-driver" // the CUDA driver's tensor-map encoder
	CUDAJIT    = "cuda-jit"    // the CUDA driver's PTX JIT
	GPU        = "gpu"         // kernels run on the GPU itself
)

// The oracles an LLVM installation (package toolchain) provides: one
// implementation each, one oracle per installation, named BASE@LABEL
// ("mlir@22", "llc@trunk"). A policy that names a base speaks of every
// installation's oracle of it.
const (
	MLIR       = "mlir"        // mlir-opt's nvgpu/nvvm verifiers and lowering
	MLIRNVVM   = "mlir-nvvm"   // the same cases spelled with the nvvm ops the nvgpu ops lower to
	MLIRPasses = "mlir-passes" // MLIR's GPU passes beyond the mlir oracle's lowering, one at a time
	LLC        = "llc"         // llc's NVPTX backend
	AMDGPUMC   = "amdgpu-mc"   // llvm-mc's AMDGPU assembler
	NVVMOp     = "nvvm-op"     // single NVVM ops: mlir-opt's verifier for the case's target, then mlir-translate and llc
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
	// other judges already judged (the cubins ptxas wrote, the IR MLIR's
	// verifier and lowering passed, the maps and modules the CUDA driver
	// made, run on the GPU): a campaign gives it the cases it has room for
	// and never waits for it, so it does not slow down the judges it
	// builds on.
	Sampled bool
	// Installed is set for the bases of the oracles LLVM installations
	// provide: the oracle itself is BASE@LABEL.
	Installed bool
}

// catalog is the one list of the oracles legalfuzz knows.
var catalog = []Info{
	{Name: SpecSeed, Family: "spec", Where: "legalfuzz itself (oracles/spec, seed rule set)"},
	{Name: SpecPTXISA, Family: "spec", Where: "legalfuzz itself (oracles/spec, PTX ISA rule set)"},
	{Name: FenceProxy, Family: "algo", Where: "legalfuzz itself (seed 003's fence inserter under test)"},
	{Name: PTXAS, Family: "ptxas", Where: "ptxas 12.4 from make oracles; knows sm_90a and older"},
	{Name: SASS, Family: "nvdisasm", Where: "ptxas, nvdisasm and cuobjdump 12.4 from make oracles; the SASS of what ptxas accepts, read back", Sampled: true},
	{Name: PTXAS13, Family: "ptxas", Where: "CUDA 13's ptxas on a GPU machine; knows sm_100a and newer", GPU: true},
	{Name: MLIR, Family: "mlir", Installed: true, Where: "mlir-opt, mlir-translate, llvm-link and llc of an LLVM installation"},
	{Name: MLIRNVVM, Family: "mlir-nvvm", Installed: true, Where: "mlir-opt, mlir-translate, llvm-link and llc of an LLVM installation (22 or later), given the nvvm ops directly"},
	{Name: MLIRPasses, Family: "mlir-passes", Installed: true, Sampled: true, Where: "mlir-opt of an LLVM installation"},
	{Name: LLC, Family: "llc", Installed: true, Where: "llc of an LLVM installation"},
	{Name: NVVMOp, Family: "nvvm-op", Installed: true, Where: "mlir-opt, mlir-translate and llc of an LLVM installation with its NVVM TableGen sources (make oracles keeps them for 22, 23 and trunk)"},
	{Name: AMDGPUMC, Family: "llvm-mc", Installed: true, Where: "llvm-mc of an LLVM installation; gfx9-gfx12 as -mcpu=help lists them"},
	{Name: CUDADriver, Family: "cuda", Where: "the CUDA driver on a GPU machine", GPU: true},
	{Name: CUDAJIT, Family: "cuda", Where: "the CUDA driver's JIT on a GPU machine", GPU: true},
	{Name: GPU, Family: "gpu", Where: "the GPU itself, on a GPU machine", GPU: true, Sampled: true},
}

// Catalog lists every oracle legalfuzz knows, user verifiers aside; an
// installed oracle is listed by its base.
func Catalog() []Info { return append([]Info(nil), catalog...) }

// Lookup returns what legalfuzz knows about the named oracle: a catalog
// entry, an installation's oracle BASE@LABEL, or a user's exec:NAME
// verifier.
func Lookup(name string) (Info, bool) {
	base, label, installed := strings.Cut(name, "@")
	for _, in := range catalog {
		switch {
		case in.Name == name:
			return in, true
		case installed && in.Installed && in.Name == base && ValidLabel(label):
			in.Name, in.Where = name, in.Where+" ("+label+")"
			return in, true
		}
	}
	if strings.HasPrefix(name, ExecPrefix) && len(name) > len(ExecPrefix) {
		return Info{Name: name, Family: name, Where: "your own verifier (--oracle " + name + "=COMMAND)"}, true
	}
	return Info{}, false
}

// validLabel is a label that reads well in an oracle's name, a file name
// and a lit substitution.
var validLabel = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidLabel reports whether an LLVM installation may be labelled so.
func ValidLabel(label string) bool { return validLabel.MatchString(label) }

// Installed names the oracle of base that the installation labelled label
// provides: "mlir@22".
func Installed(base, label string) string { return base + "@" + label }

// Base is the base of an installed oracle's name ("mlir" for "mlir@22"),
// and the name itself for any other oracle.
func Base(name string) string {
	base, _, _ := strings.Cut(name, "@")
	return base
}

// Label is the installation label of an installed oracle's name ("22" for
// "mlir@22"), empty for any other oracle.
func Label(name string) string {
	_, label, _ := strings.Cut(name, "@")
	return label
}

// Tool is the tool an oracle asks, named by its first entry point: MLIR's
// nvvm ops are another way into the installation its nvgpu ops enter
// ("mlir@22" for "mlir-nvvm@22"); any other oracle is its own tool.
func Tool(name string) string {
	if Base(name) == MLIRNVVM {
		return Installed(MLIR, Label(name))
	}
	return name
}

// Matches reports whether a name in a policy (an oracle's name, or the
// base of installed oracles) names the oracle.
func Matches(pattern, oracle string) bool {
	return pattern == oracle || !strings.Contains(pattern, "@") && Label(oracle) != "" && Base(oracle) == pattern
}

// firstNumber finds a version's major release.
var firstNumber = regexp.MustCompile(`\d+`)

// Major is the major release of the tool a verdict's version names: the
// first number in it ("mlir-opt 22.1.8 +lowering" is 22); 0 when it has
// none.
func Major(version string) int {
	n, _ := strconv.Atoi(firstNumber.FindString(version))
	return n
}
