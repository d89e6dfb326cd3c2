package mlir

import (
	"slices"

	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
)

// reasons are the renderers' reasons (render.Reasons) and those of the
// oracles themselves: a domain the installation's parser does not read
// (probe.go), and the passes oracle's deference to the mlir oracle.
var reasons = slices.Concat(render.Reasons, oracles.Reasons{
	{Field: "domain", Class: "release-does-not-parse", Gap: oracles.OursGap},
	// The passes oracle defers to the mlir oracle's verdict on what its
	// verifier or chain does not pass: judged there.
	{Field: "verdict", Class: "mlir-verify", Gap: oracles.Deferred},
	{Field: "verdict", Class: "mlir-chain", Gap: oracles.Deferred},
	{Field: "verdict", Class: "mlir-lowering", Gap: oracles.Deferred},
})
