package valuecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	wg "github.com/legalfuzz/legalfuzz/fuzz/wgmma"
	"github.com/legalfuzz/legalfuzz/oracles/emitted"
)

// The descriptors a tile-level nvgpu.warpgroup.mma reads are the ones
// nvgpu.warpgroup.generate.descriptor builds, the only op that makes them:
// 128-byte swizzle, SBO 1024 bytes (eight 128-byte rows). In that layout
// (matdesc's reading of the PTX ISA's canonical layouts) a K-major operand
// has one 128-byte row per M or N index, the K elements of one wgmma (32
// bytes, whatever the type) side by side in it; an MN-major operand (.f16
// and .bf16 with a transpose) has one 128-byte row per K index.
var generated = matdesc.Value{Format: matdesc.WGMMA, Swizzle: 1, SBO: 1024}

const (
	wgmmaStepBytes = 32  // the K bytes of one wgmma of any type
	wgmmaMBlock    = 64  // the M rows of one wgmma
	swizzleRow     = 128 // the row of the 128-byte swizzle
)

// wgmmaOperand is A or B of a tile-level wgmma as its instructions read it.
type wgmmaOperand struct {
	name    string
	mnMajor bool
	// rows is the M or N extent one instruction reads; kRows the K rows of
	// one instruction (MN-major); mnBytes the M or N bytes of a K row.
	rows, kRows, mnBytes int
	// arg is the instruction operand holding the descriptor; param the
	// kernel parameter the renderer passes it in.
	arg, param int
}

// footprint is the 16-byte chunks one instruction reads through a
// descriptor starting off bytes after the tile's: distinct steps must read
// distinct data. An MN-major operand's chunks beyond the first swizzle
// row along M or N lie LBO away, which the lowering never changes; they
// are left out.
func (o wgmmaOperand) footprint(off int64) []int64 {
	var chunks []int64
	if o.mnMajor {
		for k := range o.kRows {
			for b := 0; b < min(o.mnBytes, swizzleRow); b += 16 {
				chunks = append(chunks, (off+int64(generated.MNMajorOffset(k, b)))/16)
			}
		}
		return chunks
	}
	for r := range o.rows {
		for b := 0; b < wgmmaStepBytes; b += 16 {
			chunks = append(chunks, (off+int64(generated.KMajorOffset(r, b)))/16)
		}
	}
	return chunks
}

// want is the byte offset step (m block, k step) must read the operand at,
// from the tile's start, where the layout fixes it: within the first
// swizzle row along K (K-major), at K row 16k (MN-major), at row 64m of A.
// A K step past the first row, or another M block of an MN-major A, lies
// where the tile's producer put it: ok is false.
func (o wgmmaOperand) want(m, k int) (int64, bool) {
	switch {
	case o.mnMajor && (o.name == "B" || m == 0):
		kr := k * o.kRows
		return int64(generated.MNMajorOffset(kr, 0)), true
	case o.mnMajor:
		return 0, false
	case k*wgmmaStepBytes >= swizzleRow:
		return 0, false
	case o.name == "A":
		return int64(generated.KMajorOffset(m*wgmmaMBlock, k*wgmmaStepBytes)), true
	}
	return int64(k * wgmmaStepBytes), true
}

// position names the element a byte offset from the tile's start holds:
// "M row 4, K byte 0" (K-major A), "K row 16, N byte 0" (MN-major B).
func (o wgmmaOperand) position(off int64) string {
	mn := map[string]string{"A": "M", "B": "N"}[o.name]
	if o.mnMajor {
		return fmt.Sprintf("K row %d, %s byte %d", off/swizzleRow, mn, off%swizzleRow)
	}
	return fmt.Sprintf("%s row %d, K byte %d", mn, off/swizzleRow, off%swizzleRow)
}

// layoutWord says how the operand is laid out, for messages.
func (o wgmmaOperand) layoutWord() string {
	if o.mnMajor {
		return "MN-major " + o.name + ", one 128-byte swizzled row per K index"
	}
	return "K-major " + o.name + ", one 128-byte swizzled row per " + map[string]string{"A": "M", "B": "N"}[o.name] + " index"
}

// WGMMA checks every wgmma.mma_async: its types, its scale and transpose
// immediates, and its A and B descriptors. tile says the value was written
// as a tile (nvgpu.warpgroup.mma, which MLIR splits into instructions):
// then each instruction's descriptors must point at its part of the tile,
// within the layout they describe and never at data another instruction
// reads; else they are the kernel's own parameters. It is not one of
// Check's: only the mlir oracle renders a wgmma value, and only it knows
// which form it wrote.
func WGMMA(v wg.Value, tile bool, ins []emitted.Inst) *Mismatch {
	var steps []emitted.Inst
	for _, in := range ins {
		if in.Is("wgmma.mma_async") {
			steps = append(steps, in)
		}
	}
	for _, in := range steps {
		if m := checkWGMMAInst(v, in); m != nil {
			return m
		}
	}
	if !tile {
		for _, in := range steps {
			for i, name := range []string{"A", "B"} {
				if d := in.Values[1+i]; d.Known && (d.Param != i || d.Off != 0) {
					return &Mismatch{Inst: in, What: fmt.Sprintf("%s descriptor is %s, want the op's own (param%d)", name, d, i)}
				}
			}
		}
		return nil
	}
	return checkWGMMATile(v, steps)
}

// wgmmaImmediates names the operands after D, A and B that each type
// family's instruction has.
func wgmmaImmediates(t wg.Type) []string {
	switch t {
	case wg.F16, wg.BF16:
		return []string{"scale-d", "imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"}
	case wg.TF32, wg.E4M3, wg.E5M2:
		return []string{"scale-d", "imm-scale-a", "imm-scale-b"}
	}
	return []string{"scale-d"}
}

// checkWGMMAInst checks one instruction's types and immediates against
// the op.
func checkWGMMAInst(v wg.Value, in emitted.Inst) *Mismatch {
	parts := strings.SplitN(in.Opcode, ".", 6) // wgmma.mma_async.sync.aligned.SHAPE.rest
	if len(parts) < 6 {
		return nil
	}
	head := strings.Join(parts[:5], ".")
	tail := slices.DeleteFunc(OpcodeTail(in.Opcode, head), func(q string) bool { return q == "satfinite" })
	if len(tail) < 3 {
		return nil
	}
	want := []string{v.DType.String(), v.AType.String(), v.BType.String()}
	if v.DType == v.ResultType && !slices.Equal(tail[:3], want) {
		return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma types .%s, want .%s (the op's accumulator, A and B)",
			strings.Join(tail[:3], "."), strings.Join(want, "."))}
	}
	if sat := slices.Contains(OpcodeTail(in.Opcode, head), "satfinite"); sat != v.Satfinite {
		return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma .satfinite %t, want %t", sat, v.Satfinite)}
	}
	if imms := wgmmaImmediates(v.AType); len(imms) < 5 && (v.TransA || v.TransB) {
		return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma .%s has no transpose operand (only .f16 and .bf16 do), but the op transposes %s",
			v.AType, map[bool]string{true: "A", false: "B"}[v.TransA])}
	}
	b2i := map[bool]int64{false: 0, true: 1}
	wants := map[string]int64{"scale-d": b2i[v.ScaleD], "imm-scale-a": int64(v.ScaleA), "imm-scale-b": int64(v.ScaleB),
		"imm-trans-a": b2i[v.TransA], "imm-trans-b": b2i[v.TransB]}
	for i, name := range wgmmaImmediates(v.AType) {
		if 3+i >= len(in.Values) {
			return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma has no %s operand", name)}
		}
		got := in.Values[3+i]
		if got.Known && got.Param < 0 && got.Off != wants[name] {
			return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma %s %d, want %d", name, got.Off, wants[name])}
		}
	}
	return nil
}

// checkWGMMATile checks the descriptors of a tile's instructions. Steps
// are named in the order MLIR emits them (M blocks outer, K steps inner);
// an instruction whose offset is another step's wanted one is taken as a
// reordering, not a fault.
func checkWGMMATile(v wg.Value, steps []emitted.Inst) *Mismatch {
	k := int(wg.NaturalK(v.AType, false))
	if k == 0 || len(steps) == 0 {
		return nil
	}
	kSteps := max((int(v.K)+k-1)/k, 1)
	bytes := func(t wg.Type) int { return max(t.Bits(), 8) / 8 }
	ops := []wgmmaOperand{
		{name: "A", mnMajor: v.TransA, rows: wgmmaMBlock, kRows: k, mnBytes: wgmmaMBlock * bytes(v.AType), arg: 1, param: 0},
		{name: "B", mnMajor: v.TransB, rows: int(v.N), kRows: k, mnBytes: int(v.N) * bytes(v.BType), arg: 2, param: 1},
	}
	for _, o := range ops {
		if m := checkOperandSteps(o, steps, kSteps); m != nil {
			return m
		}
	}
	return nil
}

// checkOperandSteps checks one operand's descriptor across the steps:
// each at its wanted offset where the layout fixes one, and no two steps
// of different parts of the tile reading the same data.
func checkOperandSteps(o wgmmaOperand, steps []emitted.Inst, kSteps int) *Mismatch {
	offs := make([]int64, len(steps))
	wanted := map[int64]bool{}
	for n := range steps {
		if w, ok := o.want(n/kSteps, n%kSteps); ok {
			wanted[w] = true
		}
	}
	for n, in := range steps {
		d := in.Values[o.arg]
		if !d.Known {
			return nil
		}
		if d.Param != o.param {
			return &Mismatch{Inst: in, What: fmt.Sprintf("wgmma %s descriptor is %s, want the op's %s descriptor (param%d) plus an offset", o.name, d, o.name, o.param)}
		}
		offs[n] = d.Off * 16
		if w, ok := o.want(n/kSteps, n%kSteps); ok && offs[n] != w && !wanted[offs[n]] {
			return &Mismatch{Inst: in, What: fmt.Sprintf("%s: %s descriptor +%d bytes, want +%d (%s)",
				stepName(n, kSteps), o.name, offs[n], w, o.layoutWord()),
				Effect: fmt.Sprintf("the instruction reads %s from %s on, where its part of the tile starts at %s",
					o.name, o.position(offs[n]), o.position(w))}
		}
	}
	return overlap(o, steps, offs, kSteps)
}

// overlap names two steps that read some of the same operand data
// although they compute different parts of the tile. B is shared by the M
// blocks: steps with the same K and the same offset read it together.
func overlap(o wgmmaOperand, steps []emitted.Inst, offs []int64, kSteps int) *Mismatch {
	owner := map[int64]int{}
	for n := range steps {
		if o.name == "B" && n >= kSteps && offs[n] == offs[n%kSteps] {
			continue
		}
		for _, c := range o.footprint(offs[n]) {
			prev, seen := owner[c]
			if !seen {
				owner[c] = n
				continue
			}
			if o.name == "B" && prev%kSteps == n%kSteps {
				continue
			}
			return &Mismatch{Inst: steps[n], What: fmt.Sprintf("%s: %s descriptor +%d bytes reads %s data %s (+%d bytes) reads (%s)",
				stepName(n, kSteps), o.name, offs[n], o.name, stepName(prev, kSteps), offs[prev], o.layoutWord())}
		}
	}
	return nil
}

// stepName names the n-th instruction of a tile: "step 3 (M block 1, K step 0)".
func stepName(n, kSteps int) string {
	return fmt.Sprintf("step %d (M block %d, K step %d)", n+1, n/kSteps, n%kSteps)
}
