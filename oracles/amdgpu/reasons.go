package amdgpu

import "github.com/legalfuzz/legalfuzz/oracles"

// reasons are every reason the llvm-mc oracles give for a case they cannot
// ask llvm-mc about, declared once (oracles.Reasons).
var reasons = oracles.Reasons{
	{Field: "domain", Class: "not-waitcnt", Gap: oracles.ToolLacks},
	{Field: "cpu", Class: "unknown-to-llvm-mc", Gap: oracles.ToolLacks},
	// The seed's lowering gave waits that its own assembly writer cannot
	// place (lower.Asm): our harness's limit, kept visible.
	{Field: "waits", Class: "no-s_waitcnt-spelling", Gap: oracles.OursGap},
}
