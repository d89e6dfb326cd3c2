package mlir

import (
	"regexp"
	"strconv"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

const install19 = "make oracles (Debian bookworm packages mlir-19-tools and llvm-19)"

func llvm19Spec(name, env string, files ...string) tool.Spec {
	return tool.LLVM(name, env, 19, install19, files...)
}

// The tools the oracle runs. mlir-opt is required; the rest only serve the
// optional lowering.
var (
	OptSpec       = llvm19Spec("mlir-opt", "LEGALFUZZ_MLIR_OPT", "mlir-opt-19", "mlir-opt")
	TranslateSpec = llvm19Spec("mlir-translate", "LEGALFUZZ_MLIR_TRANSLATE", "mlir-translate-19", "mlir-translate")
	LinkSpec      = llvm19Spec("llvm-link", "LEGALFUZZ_LLVM_LINK", "llvm-link-19", "llvm-link")
	LLCSpec       = llvm19Spec("llc", "LEGALFUZZ_LLC19", "llc-19", "llc")
	PtxasSpec     = tool.Spec{Name: "ptxas", Env: "LEGALFUZZ_PTXAS", Files: []string{"ptxas"},
		VersionArgs: []string{"--version"}, Version: ptxasVersion,
		Install: "make oracles (Debian nvidia-cuda-toolkit 12.4 ptxas)"}
)

// ptxasRelease matches "Cuda compilation tools, release 12.4, V12.4.131".
var ptxasRelease = regexp.MustCompile(`release (\d+)\.(\d+), V([\d.]+)`)

func ptxasVersion(out string) (string, bool) {
	m := ptxasRelease.FindStringSubmatch(out)
	if m == nil {
		return "", false
	}
	return m[3], true
}

// ptxasMaxPTX is the newest PTX ISA version a ptxas release accepts (CUDA
// 12.4 → 8.4, 12.5/12.6 → 8.5, 12.8 → 8.7, 12.9 → 8.8, 13.0 → 9.0).
func ptxasMaxPTX(version string) target.PTX {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(version)
	if m == nil {
		return 0
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	switch {
	case major >= 13:
		return 90
	case major == 12 && minor >= 9:
		return 88
	case major == 12 && minor >= 7:
		return 87
	case major == 12 && minor >= 5:
		return 85
	case major == 12:
		return target.PTX(80 + minor)
	}
	return 78
}
