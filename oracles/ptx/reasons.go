package ptx

import "github.com/legalfuzz/legalfuzz/oracles"

// Reasons are every reason the PTX spellers (the renderers here, and the
// oracles that read their PTX: ptxas, the CUDA JIT, the SASS round trip)
// give for a case they cannot judge, declared once (oracles.Reasons):
// render coverage counts the cases of each, and a reason not here fails
// the renderers' tests. PTX spells every value the ISA names, so each is
// the tool's: a reserved field value, a target or version it lacks.
var Reasons = oracles.Reasons{
	{Field: "domain", Class: "no-renderer", Gap: oracles.ToolLacks},
	{Field: "target", Class: "unknown-to-ptxas", Gap: oracles.ToolLacks},
	{Field: "ptx", Class: "beyond-ptxas", Gap: oracles.ToolLacks},
	{Field: "target", Class: "not-loadable-on-device", Gap: oracles.ToolLacks},
	{Field: "ptx", Class: "beyond-jit", Gap: oracles.ToolLacks},
	{Field: "b_k", Class: "differs", Gap: oracles.ToolLacks},
	{Field: "cta_group", Class: "reserved", Gap: oracles.ToolLacks},
	{Field: "kind", Class: "reserved-6", Gap: oracles.ToolLacks},
	{Field: "mode", Class: "reserved", Gap: oracles.ToolLacks},
	{Field: "rank", Class: "not-2", Gap: oracles.ToolLacks},
	{Field: "result_type", Class: "differs", Gap: oracles.ToolLacks},
	{Field: "scale_vec", Class: "reserved-3", Gap: oracles.ToolLacks},
	{Field: "scale_vec_size", Class: "not-whole-scale-vec", Gap: oracles.ToolLacks},
	{Field: "sf_type", Class: "placeholder", Gap: oracles.ToolLacks},
	{Field: "shape_rank", Class: "not-3", Gap: oracles.ToolLacks},
	{Field: "size", Class: "reserved", Gap: oracles.ToolLacks},
	{Field: "tf32", Class: "not-f32-operands", Gap: oracles.ToolLacks},
	{Field: "type", Class: "placeholder", Gap: oracles.ToolLacks},
}
