package mlir

import (
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
	"github.com/legalfuzz/legalfuzz/oracles/mlir/render"
	"github.com/legalfuzz/legalfuzz/oracles/valuecheck"
)

// checkValues reports the first value mismatch (package valuecheck) in
// the entry's PTX or the host code: params are the kernel's parameters as
// rendered (render.Kernel.Params). A wrong type, qualifier, immediate, descriptor
// or operand is a silent miscompile, "ptx/value".
func checkValues(c domain.Case, params, host, entry string) error {
	if entry == "" {
		return nil
	}
	k := valuecheck.Kernel{Params: paramsOf(params), Insts: emitted.Eval(entry), Host: host}
	m := valuecheck.Check(c, k)
	if v, ok := c.Value.(wg.Value); ok && m == nil {
		m = valuecheck.WGMMA(v, render.TileLevel(v), k.Insts)
	}
	if m == nil {
		return nil
	}
	return &faultError{stage: oracles.Stage{Name: stagePTX, Fault: oracles.WrongValue}, msg: m.Diagnostic()}
}

// paramsOf reads a gpu.func's parameter list, "%tmap: !llvm.ptr, %x0:
// i32", into each parameter's place by name ("tmap"): nil where a memref
// parameter, which the lowering expands into several, leaves the places
// unknown.
func paramsOf(params string) map[string]int {
	out := map[string]int{}
	for i, p := range strings.Split(params, ", %") {
		name, typ, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(p), "%"), ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(typ), "memref") {
			return nil
		}
		out[name] = i
	}
	return out
}
