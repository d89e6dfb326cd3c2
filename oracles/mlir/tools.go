package mlir

import (
	"regexp"
	"strconv"

	"github.com/legalfuzz/legalfuzz/fuzz/target"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
)

// PtxasSpec finds the ptxas that assembles the lowering's PTX.
var (
	PtxasSpec = tool.Spec{Name: "ptxas", Env: "LEGALFUZZ_PTXAS", Files: []string{"ptxas"},
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
