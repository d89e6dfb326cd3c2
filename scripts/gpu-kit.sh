#!/bin/sh
# Builds what a GPU machine's check runs (legalfuzz gpu-check, docs/gpu-worker.md)
# into one folder, default gpu-kit/: the legalfuzz binary, the GPU package's
# test binary and the fuzz engine. Built without cgo and stripped, so the three
# travel to a machine that has no Go in well under 64 MiB.
set -eu
kit=${1:-gpu-kit}
go=${GO:-go}
mkdir -p "$kit"
export CGO_ENABLED=0
"$go" build -buildvcs=auto -ldflags='-s -w' -o "$kit/legalfuzz" ./cmd/legalfuzz
"$go" test -c -ldflags='-s -w' -o "$kit/cuda.test" ./oracles/cuda
"$go" test -c -fuzz=. -ldflags='-s -w' -o "$kit/fuzz.test" ./fuzz
