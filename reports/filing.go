package reports

import (
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/policy"
	"github.com/legalfuzz/legalfuzz/coordinator/store"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// The filing column's words: what a reader does with a bucket.
const (
	FileUpstream  = "file upstream"
	FixedUpstream = "fixed upstream: do not file"
	Limitation    = "limitation: do not file"
	Ours          = "ours"
)

// trackers name where each tool family's bugs are filed.
var trackers = map[string]string{
	"mlir": "LLVM", "mlir-nvvm": "LLVM", "mlir-passes": "LLVM", "llc": "LLVM", "llvm-mc": "LLVM",
	"ptxas": "NVIDIA", "nvdisasm": "NVIDIA", "cuda": "NVIDIA", "gpu": "NVIDIA",
}

// filing says what to do with a bucket: file it upstream (with the
// tracker: LLVM or NVIDIA), not file it because the newest installation
// replayed no longer shows it or the tool states a limitation, or fix it
// here (ours: legalfuzz's own rules, or evidence about a seed algorithm).
func filing(b store.Bucket, class policy.Class) string {
	in, _ := oracles.Lookup(b.Signature.Tool)
	switch {
	case class == policy.SeedEvidence || in.Family == "spec" || in.Family == "algo":
		return Ours
	case class == policy.Limitation:
		return Limitation
	case b.FixedUpstream() || newestFixed(b):
		return FixedUpstream
	}
	if t := trackers[in.Family]; t != "" {
		return FileUpstream + ": " + t
	}
	if strings.HasPrefix(b.Signature.Tool, oracles.ExecPrefix) {
		return FileUpstream + ": the verifier's owner"
	}
	return FileUpstream
}

// newestFixed reports whether the newest installation whose replay could
// judge the bucket's case found it fixed.
func newestFixed(b store.Bucket) bool {
	for i := len(b.Versions) - 1; i >= 0; i-- {
		if b.Versions[i].Outcome != store.CannotJudge {
			return b.Versions[i].Outcome == store.Fixed
		}
	}
	return false
}
