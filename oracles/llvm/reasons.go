package llvm

import (
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/intrinsic"
)

// reasons are every reason the llc oracle gives for a case it cannot ask
// llc about, declared once (oracles.Reasons): render coverage counts the
// cases of each, and a reason not here fails the renderers' tests. Those
// of a value no intrinsic spells are intrinsic.Reasons.
var reasons = append(oracles.Reasons{
	{Field: "domain", Class: "no-renderer", Gap: oracles.ToolLacks},
	{Field: "domain", Class: "not-in-release", Gap: oracles.ToolLacks},
	{Field: "target", Class: "unknown-to-llc", Gap: oracles.ToolLacks},
	// llc compiled an llvm.* call as an external function: the release
	// has no intrinsic of that name (mma.sp in LLVM 19, a layout other
	// than row.col).
	{Field: "intrinsic", Class: "not-in-release", Gap: oracles.ToolLacks},
	{Field: "ashift", Class: "a-in-shared", Gap: oracles.ToolLacks},
	{Field: "bit_op", Class: "sparse", Gap: oracles.ToolLacks},
	{Field: "block_scale", Class: "ashift-or-scale-input", Gap: oracles.ToolLacks},
	{Field: "block_scale", Class: "kind-without", Gap: oracles.ToolLacks},
	{Field: "block_scale", Class: "not-block-scaled-kind", Gap: oracles.ToolLacks},
	{Field: "cache", Class: "not-ca-or-cg", Gap: oracles.ToolLacks},
	{Field: "cache_hint", Class: "any", Gap: oracles.ToolLacks},
	{Field: "cta_group", Class: "not-g2s", Gap: oracles.ToolLacks},
	{Field: "dst", Class: "not-for-direction", Gap: oracles.ToolLacks},
	{Field: "fragment", Class: "no-intrinsic", Gap: oracles.ToolLacks},
	{Field: "ignore_src", Class: "any", Gap: oracles.ToolLacks},
	{Field: "im2col_w", Class: "not-im2col-w-mode", Gap: oracles.ToolLacks},
	{Field: "kind", Class: "reserved-6", Gap: oracles.ToolLacks},
	{Field: "mode", Class: "not-for-direction", Gap: oracles.ToolLacks},
	{Field: "multicast", Class: "not-g2s", Gap: oracles.ToolLacks},
	{Field: "num_matrices", Class: "not-1-2-4", Gap: oracles.ToolLacks},
	{Field: "prefetch", Class: "any", Gap: oracles.ToolLacks},
	{Field: "shape", Class: "m8n32", Gap: oracles.ToolLacks},
	{Field: "shape_rank", Class: "below-3", Gap: oracles.ToolLacks},
	{Field: "size", Class: "cg-not-16", Gap: oracles.ToolLacks},
	{Field: "size", Class: "no-intrinsic", Gap: oracles.ToolLacks},
	{Field: "size", Class: "not-4-8-16", Gap: oracles.ToolLacks},
	{Field: "space", Class: "not-shared-register", Gap: oracles.ToolLacks},
	{Field: "tensor_map", Class: "box-dim1-interleave", Gap: oracles.ToolLacks},
	{Field: "tf32", Class: "not-f32-operands", Gap: oracles.ToolLacks},
	{Field: "types", Class: "a-type", Gap: oracles.ToolLacks},
	{Field: "types", Class: "c-d-fixed", Gap: oracles.ToolLacks},
	{Field: "types", Class: "f16-a-other-b", Gap: oracles.ToolLacks},
	{Field: "types", Class: "f16-c-d", Gap: oracles.ToolLacks},
	{Field: "ws", Class: "block-scale", Gap: oracles.ToolLacks},
	{Field: "ws", Class: "collector-a", Gap: oracles.ToolLacks},
	{Field: "ws", Class: "cta-group-2", Gap: oracles.ToolLacks},
	{Field: "ws", Class: "scale-or-ashift", Gap: oracles.ToolLacks},
}, intrinsic.Reasons...)

// The rules of Unsupported verdicts read from llc's own output.
var (
	// ruleUnknown: llc warned it does not know the CPU or feature.
	ruleUnknown = reasons.New("target", "unknown-to-llc", "").Rule()
	// ruleNoIntrinsic: llc compiled an llvm.* call as an external function.
	ruleNoIntrinsic = reasons.New("intrinsic", "not-in-release", "").Rule()
)
