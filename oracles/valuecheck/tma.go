package valuecheck

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	td "github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

func init() {
	checks[tmamode.Name] = typedKernel(checkTMAModeValues)
	checks[td.Name] = typedKernel(checkTMADescValues)
}

// The effects of a wrong TMA operand.
const (
	tmaEffectMap    = "the copy reads through another tensor map than the op's: another tensor, box, type or layout"
	tmaEffectCoord  = "the copy moves the box at other coordinates than the op names: other elements of the tensor"
	tmaEffectShared = "the box lands in (or is read from) other shared memory than the op's buffer"
	tmaEffectBar    = "the copy completes on another mbarrier than the op's: a wait on the op's barrier never sees its bytes arrive, or passes before they do"
	tmaEffectOffs   = "the im2col window starts at other offsets than the op's: other pixels of the image"
	tmaEffectMask   = "the box is multicast to other CTAs than the op's mask names"
	tmaEffectPolicy = "the copy evicts from L2 by another cache policy than the op's"
)

// TMA kernels name their parameters by role, as the renderers of both
// oracles do: the tensor map "tmap", the shared buffer "dst" (a load's) or
// "src" (a store's), the mbarrier "mbar", coordinates "x0".., im2col
// offsets "off0".., the CTA mask "cta_mask", the L2 cache policy
// "cache_hint".

// checkTMAModeValues checks the cp.async.bulk.tensor (or prefetch) a TMA
// op or intrinsic compiled to: every operand is the kernel parameter of
// its role, coordinates and offsets in the op's order.
func checkTMAModeValues(v tmamode.Value, k Kernel) *Mismatch {
	in, ok := firstTMA(k.Insts)
	if !ok || k.Params == nil {
		return nil
	}
	n := int(v.Rank)
	if v.Mode == tmamode.Gather4 || v.Mode == tmamode.Scatter4 {
		n = 5
	}
	p := k.Params
	tensor := operand{what: "tensor map", v: value(p, "tmap"), effect: tmaEffectMap,
		elem: "coordinate", elems: named(p, "x", n), elemEffect: tmaEffectCoord}
	var want []operand
	switch v.Direction {
	case tmamode.Load:
		want = []operand{{what: "destination", v: value(p, "dst"), effect: tmaEffectShared}, tensor,
			{what: "mbarrier", v: value(p, "mbar"), effect: tmaEffectBar}}
	case tmamode.Store:
		want = []operand{tensor, {what: "source", v: value(p, "src"), effect: tmaEffectShared}}
	default:
		want = []operand{tensor}
	}
	if offs := tmaOffsets(v, p); offs != nil {
		want = append(want, operand{what: "im2col offsets", elem: "im2col offset", elems: offs, elemEffect: tmaEffectOffs})
	}
	if v.Multicast && v.Direction == tmamode.Load {
		want = append(want, operand{what: "CTA mask", v: value(p, "cta_mask"), effect: tmaEffectMask})
	}
	if v.CacheHint {
		want = append(want, operand{what: "cache policy", v: value(p, "cache_hint"), effect: tmaEffectPolicy})
	}
	return compareOperands(in, tmaOpName(in.Opcode), p, want)
}

// tmaOffsets are the im2col operands the op passes: rank-2 offsets
// (off0...), or im2col::w's wHalo and wOffset as constants; nil without.
func tmaOffsets(v tmamode.Value, p map[string]int) []emitted.Value {
	switch {
	case v.Mode == tmamode.Im2col && v.Rank > 2 && v.Direction != tmamode.Store:
		return named(p, "off", int(v.Rank)-2)
	case v.Mode.IsW():
		return []emitted.Value{emitted.Const(int64(v.WHalo)), emitted.Const(int64(v.WOffset))}
	}
	return nil
}

// checkTMADescValues checks what nvgpu.tma.create.descriptor and
// nvgpu.tma.async.load lowered to: the host's encode call, and the
// cp.async.bulk.tensor reading through the tensor map and into the shared
// box where the mlir renderer placed them (the value's addresses), at the
// coordinates x0.. in the op's order. Its mbarrier is a shared symbol the
// evaluator does not know.
func checkTMADescValues(v td.Value, k Kernel) *Mismatch {
	if m := checkEncodeCall(v, k.Host); m != nil {
		return m
	}
	in, ok := firstTMA(k.Insts)
	if !ok || k.Params == nil {
		return nil
	}
	return compareOperands(in, tmaOpName(in.Opcode), k.Params, []operand{
		{what: "destination", v: emitted.Const(int64(v.SMemAddress)), effect: tmaEffectShared},
		{what: "tensor map", v: emitted.Const(int64(v.TensorMap)), effect: tmaEffectMap,
			elem: "coordinate", elems: named(k.Params, "x", int(v.Rank)), elemEffect: tmaEffectCoord},
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
func named(p map[string]int, prefix string, n int) []emitted.Value {
	out := make([]emitted.Value, n)
	for i := range out {
		out[i] = value(p, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
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

// encodeEnums are the encode call's enum arguments, by place, with the
// names of the driver's values (the tmadesc domain's enums are indexed by
// them) for the effect line.
var encodeEnums = []struct {
	arg          int
	what, effect string
	names        domain.Enum
	want         func(td.Value) uint32
}{
	{2, "data type", "the map reads elements of another type or size than the tensor's: every element past the first lands elsewhere, or is converted",
		td.DTypes, func(v td.Value) uint32 { return uint32(v.DType) }},
	{3, "interleave", "the map reads the tensor in another interleaved layout than it has", td.Interleaves,
		func(v td.Value) uint32 { return uint32(v.Interleave) }},
	{4, "swizzle", "the box lands in shared memory in another swizzle pattern than the one its readers (wgmma descriptors, ldmatrix addresses) assume",
		td.Swizzles, func(v td.Value) uint32 { return uint32(v.Swizzle) }},
	{5, "L2 promotion", "the copy promotes other L2 sectors: only the speed differs", td.L2Promotions,
		func(v td.Value) uint32 { return uint32(v.L2Promotion) }},
	{6, "OOB fill", "out-of-bounds elements are filled otherwise (zero or NaN) than the op asked", td.OOBFills,
		func(v td.Value) uint32 { return uint32(v.OOBFill) }},
}

// checkEncodeCall checks the arguments of the encode call the host code
// lowered to against the driver call the value means: the normalized
// value, whose enums are numbered as the driver's (what the gpu oracle
// hands the driver, cuda.NewTensorMapCall), and its box, which the runtime
// reverses into the driver's innermost-first order.
func checkEncodeCall(v td.Value, host string) *Mismatch {
	call, ok := emitted.HostCall(host, encodeCallee)
	if !ok || len(call.Args) != 8 {
		return nil
	}
	want := td.Normalize(v)
	for _, e := range encodeEnums {
		if got, w := call.Args[e.arg], int64(e.want(want)); got.Known && got.Off != w {
			// The names go to the effect line: the title (digits made N)
			// keeps one bucket for one wrong enum, whatever its values.
			return &Mismatch{Call: &call, What: fmt.Sprintf("%s %s %d, want %d", encodeCallee, e.what, got.Off, w),
				Effect: fmt.Sprintf("%s %s, not %s: %s", e.what, e.names.Name(int(got.Off)), e.names.Name(int(w)), e.effect)}
		}
	}
	box := call.Stored[7]
	if len(box) < int(v.Rank) {
		return &Mismatch{Call: &call, What: fmt.Sprintf("%s box has %d dimensions, want %d", encodeCallee, len(box), v.Rank),
			Effect: tmaEffectBox}
	}
	for i := range int(v.Rank) {
		d, w := int(v.Rank)-1-i, int64(1)
		if d < v.Dims() {
			w = int64(want.BoxDim[d])
		}
		if box[i].Known && box[i].Off != w {
			return &Mismatch{Call: &call, What: fmt.Sprintf("%s box[%d] %d, want %d (box dimension %d)", encodeCallee, i, box[i].Off, w, d),
				Effect: tmaEffectBox}
		}
	}
	return nil
}

// tmaEffectBox is the effect of a wrong box dimension.
const tmaEffectBox = "the copy moves a box of another shape than the op's: its elements land elsewhere in the shared buffer, or past it"
