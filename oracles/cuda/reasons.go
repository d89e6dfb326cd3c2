package cuda

import "github.com/legalfuzz/legalfuzz/oracles"

// Reasons are every reason the CUDA oracles (the driver's encoders and the
// gpu check) give for a case they do not run, declared once as the
// renderers' are (oracles.Reasons): render coverage counts the cases of
// each, and the tests refuse one not declared here. A device or driver
// that lacks the form is the tool's gap; a form the hardware has and no
// check of ours runs or predicts yet is ours.
var Reasons = oracles.Reasons{
	{Field: "target", Class: "other-device", Gap: oracles.ToolLacks},
	{Field: "target", Class: "no-wgmma-on-device", Gap: oracles.ToolLacks},
	{Field: "entry", Class: "driver-lacks", Gap: oracles.ToolLacks},
	{Field: "tensormap", Class: "driver-refused", Gap: oracles.Deferred},
	{Field: "domain", Class: "no-hardware-check", Gap: oracles.OursGap},
	{Field: "shape", Class: "not-m8n8-b16", Gap: oracles.OursGap},
	{Field: "num_matrices", Class: "no-form", Gap: oracles.ToolLacks},
	{Field: "src_dst", Class: "not-shared-registers", Gap: oracles.ToolLacks},
	{Field: "register_count", Class: "not-the-instruction", Gap: oracles.ToolLacks},
	{Field: "box", Class: "beyond-check-memory", Gap: oracles.OursGap},
	{Field: "format", Class: "tcgen05", Gap: oracles.OursGap},
	{Field: "uniform", Class: "differs-across-warpgroup", Gap: oracles.OursGap},
	{Field: "value", Class: "not-predicted", Gap: oracles.OursGap},
}
