#!/bin/bash
# capture.sh re-runs the real tools on the inputs in input/ and writes each
# golden file's first part: "# cmd: COMMAND" and the raw output (stdout and
# stderr together). Then `go test ./oracles/diag -update` writes the expected
# Normalize and Title parts. {in} is the input copied to a temporary
# directory, as the oracles do, so paths vary like theirs. Stack dumps stay
# unsymbolized, as in the oracles' batch runs.
# Usage: PATH=/path/to/oracles/bin:$PATH ./capture.sh [NAME...]
set -euo pipefail
cd "$(dirname "$0")"
captures=(
	"ptxas-12.4-unknown-modifier|ptxas -arch=sm_80 {in}/unknown-modifier.ptx -o /dev/null"
	"ptxas-12.4-arguments-mismatch|ptxas -arch=sm_80 {in}/arguments-mismatch.ptx -o /dev/null"
	"ptxas-12.4-version-too-old-sm90a|ptxas -arch=sm_90a {in}/version-sm90a.ptx -o /dev/null"
	"ptxas-12.4-version-too-old-sm86|ptxas -arch=sm_86 {in}/version-sm86.ptx -o /dev/null"
	"ptxas-12.4-requires-sm90-on-sm80|ptxas -arch=sm_80 {in}/fence-proxy-sm_80.ptx -o /dev/null"
	"ptxas-12.4-cp-async-size|ptxas -v -arch=sm_80 {in}/cp-async-size.ptx -o /dev/null"
	"ptxas-12.4-ldmatrix-x3|ptxas -v -arch=sm_80 {in}/ldmatrix-x3.ptx -o /dev/null"
	"nvdisasm-12.4-invalid-elf|nvdisasm -c {in}/truncated.cubin"
	"cuobjdump-12.4-no-device-code|cuobjdump -sass {in}/truncated.cubin"
	"mlir-opt-19-mma-bad-shape|mlir-opt-19 {in}/mma-bad-shape.mlir"
	"mlir-opt-22-mma-bad-shape|mlir-opt-22 {in}/mma-bad-shape.mlir"
	"mlir-opt-22-mma-sp-bad-shape|mlir-opt-22 {in}/mma-sp-bad-shape.mlir"
	"mlir-opt-19-mma-sp-e4m3|mlir-opt-19 {in}/mma-sp-e4m3.mlir -o /dev/null"
	"mlir-opt-19-mma-e4m3|mlir-opt-19 {in}/mma-e4m3.mlir -o /dev/null"
	"mlir-opt-19-wgmma-e4m3-e4m3|mlir-opt-19 {in}/wgmma-e4m3-e4m3.mlir -o /dev/null"
	"mlir-opt-19-wgmma-e5m2-e4m3|mlir-opt-19 {in}/wgmma-e5m2-e4m3.mlir -o /dev/null"
	"mlir-opt-19-mma-split|mlir-opt-19 --split-input-file {in}/mma-split.mlir -o /dev/null"
	"mlir-opt-22-mma-split|mlir-opt-22 --split-input-file {in}/mma-split.mlir -o /dev/null"
	"mlir-opt-22-tcgen05-mma-sm103a|mlir-opt-22 {in}/tcgen05-mma-sm103a.mlir -o /dev/null"
	"mlir-opt-22-tcgen05-mma-sp-block-scale-sm100f|mlir-opt-22 {in}/tcgen05-mma-sp-block-scale-sm100f.mlir -o /dev/null"
	"mlir-opt-19-ldmatrix-numtiles|mlir-opt-19 {in}/ldmatrix-numtiles.mlir"
	"mlir-opt-22-ldmatrix-numtiles|mlir-opt-22 {in}/ldmatrix-numtiles.mlir"
	"mlir-opt-19-nvvm-ldmatrix-num|mlir-opt-19 --convert-nvgpu-to-nvvm {in}/ldmatrix-numtiles3.mlir -o /dev/null"
	"mlir-opt-22-nvvm-ldmatrix-num|mlir-opt-22 --convert-nvgpu-to-nvvm {in}/ldmatrix-numtiles3.mlir -o /dev/null"
	"llc-19-cannot-select-cp-async|llc-19 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_60 -o /dev/null < {in}/cp-async-wait.ll"
	"llc-22-cannot-select-cp-async|llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_60 -o /dev/null < {in}/cp-async-wait.ll"
	"llc-22-cannot-select-wgmma-fence|llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 -mattr=+ptx80 -o /dev/null < {in}/wgmma-fence.ll"
	"llc-22-ptx-version-sm90a|llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx70 -o /dev/null < {in}/empty.ll"
	"llc-22-ptx-version-sm86|llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_86 -mattr=+ptx60 -o /dev/null < {in}/empty.ll"
	"llc-19-immarg|llc-19 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a -mattr=+ptx80 -o /dev/null < {in}/immarg.ll"
	"llc-22-unknown-processor|llc-22 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_200 -o /dev/null < {in}/wgmma-fence.ll"
	"mlir-opt-trunk-nvvm-op-requires-sm|mlir-opt-trunk {in}/nvvm-op-cluster-wait-sm_80.mlir -o /dev/null"
	"mlir-translate-trunk-nvvm-op-immarg|mlir-translate-trunk --mlir-to-llvmir {in}/nvvm-op-fence-proxy-acquire.mlir -o /dev/null"
	"llc-trunk-cannot-select-elect-sync|llc-trunk -march=nvptx64 -mcpu=sm_80 -mattr=+ptx70 -o /dev/null < {in}/nvvm-op-elect-sync.ll"
	"llvm-mc-19-waitcnt-vmcnt-gfx900|echo 's_waitcnt vmcnt(64)' | llvm-mc-19 -arch=amdgcn -mcpu=gfx900 -show-encoding -o /dev/null"
	"llvm-mc-22-waitcnt-vmcnt-gfx900|echo 's_waitcnt vmcnt(64)' | llvm-mc-22 -arch=amdgcn -mcpu=gfx900 -show-encoding -o /dev/null"
	"llvm-mc-22-waitcnt-lgkmcnt-gfx1100|echo 's_waitcnt lgkmcnt(99)' | llvm-mc-22 -arch=amdgcn -mcpu=gfx1100 -show-encoding -o /dev/null"
	"llvm-mc-19-not-supported-gfx900|echo 'v_dot2_f32_bf16 v0, v1, v2, v3' | llvm-mc-19 -arch=amdgcn -mcpu=gfx900 -show-encoding -o /dev/null"
)
export LLVM_DISABLE_SYMBOLIZATION=1
tmp=$(mktemp -d /tmp/legalfuzz-diag-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp input/* "$tmp"/
for c in "${captures[@]}"; do
	name=${c%%|*} cmd=${c#*|}
	if [ $# -gt 0 ] && [[ ! " $* " =~ " $name " ]]; then
		continue
	fi
	{
		echo "# cmd: $cmd"
		# exec: the tool's own output only, no shell report of its death
		run=${cmd//\{in\}/$tmp}
		[[ $run == *"|"* ]] || run="exec $run"
		bash -c "$run" 2>&1 || true
	} >"$name.txt"
	echo "$name.txt"
done
