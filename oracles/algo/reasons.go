package algo

import "github.com/legalfuzz/legalfuzz/oracles"

// reasons are every reason the fenceproxy judge gives for a case it does
// not judge, declared once (oracles.Reasons).
var reasons = oracles.Reasons{
	{Field: "domain", Class: "not-schedule", Gap: oracles.ToolLacks},
	// InjectFenceProxy's output holds more than the schedule IR does (more
	// ops per role): our representation's limit, not the algorithm's.
	{Field: "output", Class: "beyond-schedule-ir", Gap: oracles.OursGap},
	// The model checker gave up on the output (its state bound).
	{Field: "output", Class: "model-bound", Gap: oracles.OursGap},
}
