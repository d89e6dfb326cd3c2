package mlir

import (
	"fmt"
	"strings"

	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles/cuda"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() {
	valueFuncs[tmamode.Name] = typedLowered(checkTMAModeValues)
	valueFuncs[td.Name] = typedLowered(checkTMADescValues)
}

// tmaOperand is an operand a TMA copy must have: a value, or the elements
// of a braced vector or of a tensor operand's coordinates. An unknown
// value is not compared (the mbarrier nvgpu creates is a shared symbol).
type tmaOperand struct {
	// what names it in the instruction's terms: "coordinate 1".
	what string
	v    emitted.Value
	// elems, when set, are compared element by element ("coordinate 0"...).
	elems []emitted.Value
	// effect says what the kernel computes when it differs.
	effect string
}

// The effects of a wrong TMA operand.
const (
	tmaEffectMap    = "the copy reads through another tensor map than the op's: another tensor, box, type or layout"
	tmaEffectCoord  = "the copy moves the box at other coordinates than the op names: other elements of the tensor"
	tmaEffectShared = "the box lands in (or is read from) other shared memory than the op's buffer"
	tmaEffectBar    = "the copy completes on another mbarrier than the op's: a wait on the op's barrier never sees its bytes arrive, or passes before they do"
	tmaEffectOffs   = "the im2col window starts at other offsets than the op's: other pixels of the image"
	tmaEffectMask   = "the box is multicast to other CTAs than the op's mask names"
)

// checkTMAModeValues checks the cp.async.bulk.tensor (or prefetch) an nvvm
// TMA op lowered to: every operand is the kernel parameter the renderer
// passed (render_tmamode*.go), coordinates in the op's order.
func checkTMAModeValues(v tmamode.Value, l lowered) *mismatch {
	ops := l.ops
	in, ok := firstTMA(l.ins)
	if !ok || ops == nil {
		return nil
	}
	n := int(v.Rank)
	if v.Mode == tmamode.Gather4 || v.Mode == tmamode.Scatter4 {
		n = 5
	}
	tensor := tmaOperand{what: "tensor map", v: ops.value("%t"), elems: named(ops, "%c", n), effect: tmaEffectMap}
	var want []tmaOperand
	switch v.Direction {
	case tmamode.Load:
		dst := "%s"
		if _, ok := ops["%sc"]; ok && v.Dst == tmamode.SharedCluster {
			dst = "%sc"
		}
		want = []tmaOperand{{what: "destination", v: ops.value(dst), effect: tmaEffectShared}, tensor,
			{what: "mbarrier", v: ops.value("%mbar"), effect: tmaEffectBar}}
	case tmamode.Store:
		want = []tmaOperand{tensor, {what: "source", v: ops.value("%s"), effect: tmaEffectShared}}
	default:
		want = []tmaOperand{tensor}
	}
	if offs := tmaOffsets(v, ops); offs != nil {
		want = append(want, tmaOperand{what: "im2col offsets", elems: offs, effect: tmaEffectOffs})
	}
	if v.Multicast && v.Direction == tmamode.Load {
		want = append(want, tmaOperand{what: "CTA mask", v: ops.value("%m"), effect: tmaEffectMask})
	}
	return compareTMA(in, ops, want)
}

// tmaOffsets are the im2col operands the op passes: rank-2 offsets
// (%o0...), or im2col::w's wHalo and wOffset as constants; nil without.
func tmaOffsets(v tmamode.Value, ops operands) []emitted.Value {
	switch {
	case v.Mode == tmamode.Im2col && v.Rank > 2 && v.Direction != tmamode.Store:
		return named(ops, "%o", int(v.Rank)-2)
	case v.Mode.IsW():
		return []emitted.Value{emitted.Const(int64(v.WHalo)), emitted.Const(int64(v.WOffset))}
	}
	return nil
}

// checkTMADescValues checks the cp.async.bulk.tensor nvgpu.tma.async.load
// lowered to: the tensor map and the shared box where the renderer placed
// them (render_tmadesc.go: the value's addresses), the coordinates the
// kernel's parameters in the op's order. Its mbarrier is a shared symbol
// the evaluator does not know.
func checkTMADescValues(v td.Value, l lowered) *mismatch {
	if m := checkEncodeCall(v, l.host); m != nil {
		return m
	}
	in, ok := firstTMA(l.ins)
	if !ok || l.ops == nil {
		return nil
	}
	return compareTMA(in, l.ops, []tmaOperand{
		{what: "destination", v: emitted.Const(int64(v.SMemAddress)), effect: tmaEffectShared},
		{what: "tensor map", v: emitted.Const(int64(v.TensorMap)), elems: named(l.ops, "%i", int(v.Rank)), effect: tmaEffectMap},
	})
}

// firstTMA is the entry's first tensor copy or prefetch.
func firstTMA(ins []emitted.Inst) (emitted.Inst, bool) {
	for _, in := range ins {
		if in.Is("cp.async.bulk.tensor") || in.Is("cp.async.bulk.prefetch.tensor") {
			return in, true
		}
	}
	return emitted.Inst{}, false
}

// named is the values of the parameters prefix0..prefix(n-1).
func named(ops operands, prefix string, n int) []emitted.Value {
	out := make([]emitted.Value, n)
	for i := range out {
		out[i] = ops.value(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// compareTMA names the first operand of in that differs from want, in the
// op's terms ("%c1", not the PTX parameter's place).
func compareTMA(in emitted.Inst, ops operands, want []tmaOperand) *mismatch {
	op := tmaOpName(in.Opcode)
	for i, w := range want {
		if i >= len(in.Args) {
			return &mismatch{inst: in, what: fmt.Sprintf("%s has no %s, want %s", op, w.what, ops.spell(w.v)), effect: w.effect}
		}
		if differs(in.Values[i], w.v) {
			return &mismatch{inst: in, what: fmt.Sprintf("%s %s %s, want %s", op, w.what, ops.spell(in.Values[i]), ops.spell(w.v)), effect: w.effect}
		}
		if w.elems == nil {
			continue
		}
		got := in.Coords(i)
		what := strings.TrimSuffix(w.what, "s")
		if w.what == "tensor map" {
			what = "coordinate"
		}
		if len(got) != len(w.elems) {
			return &mismatch{inst: in, what: fmt.Sprintf("%s %d %ss, want %d", op, len(got), what, len(w.elems)), effect: tmaEffectCoord}
		}
		for j := range got {
			if differs(got[j], w.elems[j]) {
				effect := w.effect
				if what == "coordinate" {
					effect = tmaEffectCoord
				}
				return &mismatch{inst: in, what: fmt.Sprintf("%s %s %d %s, want %s", op, what, j, ops.spell(got[j]), ops.spell(w.elems[j])), effect: effect}
			}
		}
	}
	return nil
}

// differs reports two known values that are not the same.
func differs(got, want emitted.Value) bool {
	return got.Known && want.Known && got != want
}

// tmaOpName is the opcode up to its dimension: "cp.async.bulk.tensor.3d".
func tmaOpName(opcode string) string {
	q := strings.Split(opcode, ".")
	for i, p := range q {
		if len(p) == 2 && p[1] == 'd' && p[0] >= '0' && p[0] <= '9' {
			return strings.Join(q[:i+1], ".")
		}
	}
	return opcode
}

// encodeCallee is the runtime function nvgpu.tma.create.descriptor lowers
// to (mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp). It is passed the
// rank and the memref's descriptor (run-time values), the data type,
// interleave, swizzle, L2 promotion and OOB fill as the driver's enums,
// and an array of box dimensions, outermost first. It computes the rest
// itself: global dimensions and byte strides from the descriptor's sizes
// and strides (innermost first, strides times the data type's size),
// element strides all 1, and the box reversed; then it calls
// cuTensorMapEncodeTiled.
const encodeCallee = "mgpuTensorMapEncodeTiledMemref"

// encodeEnums are the encode call's enum arguments, by place.
var encodeEnums = []struct {
	arg          int
	what, effect string
	want         func(cuda.TensorMapCall) uint32
}{
	{2, "data type", "the map reads elements of another type or size than the tensor's: every element past the first lands elsewhere, or is converted",
		func(c cuda.TensorMapCall) uint32 { return c.DataType }},
	{3, "interleave", "the map reads the tensor in another interleaved layout than it has", func(c cuda.TensorMapCall) uint32 { return c.Interleave }},
	{4, "swizzle", "the box lands in shared memory in another swizzle pattern than the one its readers (wgmma descriptors, ldmatrix addresses) assume",
		func(c cuda.TensorMapCall) uint32 { return c.Swizzle }},
	{5, "L2 promotion", "the copy promotes other L2 sectors: only the speed differs", func(c cuda.TensorMapCall) uint32 { return c.L2Promotion }},
	{6, "OOB fill", "out-of-bounds elements are filled otherwise (zero or NaN) than the op asked", func(c cuda.TensorMapCall) uint32 { return c.OOBFill }},
}

// checkEncodeCall checks the arguments of the encode call the host code
// lowered to against the driver call the value means (cuda's model, the
// one the gpu oracle hands the driver): the enums, and the box, which the
// runtime reverses into the driver's innermost-first order.
func checkEncodeCall(v td.Value, host string) *mismatch {
	call, ok := emitted.HostCall(host, encodeCallee)
	if !ok || len(call.Args) != 8 {
		return nil
	}
	want := cuda.NewTensorMapCall(v)
	for _, e := range encodeEnums {
		if got, w := call.Args[e.arg], int64(e.want(want)); got.Known && got.Off != w {
			return &mismatch{call: &call, what: fmt.Sprintf("%s %s %d, want %d", encodeCallee, e.what, got.Off, w), effect: e.effect}
		}
	}
	box := call.Stored[7]
	if len(box) < int(v.Rank) {
		return &mismatch{call: &call, what: fmt.Sprintf("%s box has %d dimensions, want %d", encodeCallee, len(box), v.Rank),
			effect: tmaEffectBox}
	}
	for i := range int(v.Rank) {
		d, w := int(v.Rank)-1-i, int64(1)
		if d < v.Dims() {
			w = int64(want.BoxDim[d])
		}
		if box[i].Known && box[i].Off != w {
			return &mismatch{call: &call, what: fmt.Sprintf("%s box[%d] %d, want %d (box dimension %d)", encodeCallee, i, box[i].Off, w, d),
				effect: tmaEffectBox}
		}
	}
	return nil
}

// tmaEffectBox is the effect of a wrong box dimension.
const tmaEffectBox = "the copy moves a box of another shape than the op's: its elements land elsewhere in the shared buffer, or past it"
