package render

import (
	"fmt"
	"strings"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

func init() { renderers[ldsm.Name] = ldsmRenderer(renderLdmatrix, renderStmatrix) }

// ldsmSpaces are the memref memory spaces of the operand spaces; registers
// have none.
var ldsmSpaces = map[ldsm.Space]int{ldsm.Shared: 3, ldsm.Global: 1, ldsm.Local: 5}

// ldsmRenderer spells ldmatrix with load (nvgpu.ldmatrix, or nvvm.ldmatrix
// for the nvvm entry point) and stmatrix with store, the release's
// nvvm.stmatrix (whose attributes changed after MLIR 19).
// nvgpu.ldmatrix knows only .m8n8 moving 16-bit data (it also takes 8-bit
// elements, which it moves as .b16); the shared operand sits at the
// address Align, so its alignment is the value's. Seed 001's register
// bookkeeping (RegisterCount, Cosize) has no MLIR counterpart: the vector
// type carries the fragment, so only a consistent pair is spelled.
func ldsmRenderer(load, store func(ldsm.Value) (Kernel, error)) Renderer {
	return typed(func(v ldsm.Value) (Kernel, error) {
		if v.RegisterCount != v.Cosize {
			return Kernel{}, unsupported("register_count", "not-cosize", "MLIR has no register layout apart from the fragment type: register count %d vs cosize %d has no spelling",
				v.RegisterCount, v.Cosize)
		}
		if v.Op == ldsm.Load {
			return load(v)
		}
		return store(v)
	})
}

// ldsmElems are the memref element types of 16- and 8-bit matrices
// (spelledAs picks one): ldmatrix moves bits, and the lowering counts the
// elements per register by the type's width, so every type of a width
// must load alike. The kernel stores an element with llvm.store, which
// takes no signed, unsigned or FP8 type; nvgpu.ldmatrix has no 8-bit
// shape, so its 8-bit cases are refused whatever the type.
var ldsmElems = map[int][]string{16: {"i16", "f16", "bf16"}, 8: {"i8"}}

// ldsmElem is the MLIR element type of a value's size pattern.
func ldsmElem(v ldsm.Value) (string, int, error) {
	switch v.Size {
	case ldsm.U16, ldsm.B16:
		return spelledAs(v, ldsmElems[16]), 16, nil
	case ldsm.U8, ldsm.B8:
		return spelledAs(v, ldsmElems[8]), 8, nil
	}
	return "", 0, unsupported("size", "conversion", "nvgpu.ldmatrix has no source format conversion: %s has no spelling", v.Size)
}

func renderLdmatrix(v ldsm.Value) (Kernel, error) {
	space, ok := ldsmSpaces[v.Src]
	switch {
	case !ok:
		return Kernel{}, unsupported("src", "not-memory", "nvgpu.ldmatrix reads a memref; a %s source has no spelling", v.Src)
	case v.Dst != ldsm.Register:
		return Kernel{}, unsupported("dst", "not-register", "nvgpu.ldmatrix always loads into registers, not %s", v.Dst)
	case v.Shape != ldsm.M8N8:
		return Kernel{}, unsupported("shape", "not-m8n8", "nvgpu.ldmatrix has only .m8n8, not .%s", v.Shape)
	}
	elem, bits, err := ldsmElem(v)
	if err != nil {
		return Kernel{}, err
	}
	if v.ResultRank == 2 && v.ResultDim0 == v.NumMatrices {
		// vector<tiles x per> is how nvgpu spells every whole fragment: the
		// rank-2 form and the rank-1 one of .num x 2 elements are one type,
		// so MLIR cannot be asked about the rank the PTX ISA rule checks.
		return Kernel{}, unsupported("result_rank", "rank-2-fragment", "nvgpu.ldmatrix's vector<%dx%dx%s> is the fragment of either rank: a rank-2 fragment has no spelling of its own",
			v.NumMatrices, 32/bits, elem)
	}
	res, rank := fragmentType(int(v.ResultRank), int(v.ResultDim0), 32/bits, elem)
	b := newBody("      ")
	src, srcType := b.memrefAt(uint64(v.Align), []int64{64, 64}, elem, space)
	c0 := b.index(0)
	// The generic form (see genericOp): MLIR after 23 spells the attributes
	// as keywords.
	r := b.val("%s", generic("nvgpu.ldmatrix", false).args(srcType, src).args("index", c0, c0).
		prop(fmt.Sprintf("numTiles = %d : i32", v.NumMatrices), fmt.Sprintf("transpose = %t", v.Transpose)).returns(res))
	pos := strings.TrimSuffix(strings.Repeat("0, ", rank), ", ")
	e := b.val("vector.extract %s[%s] : %s from %s", r, pos, elem, res)
	b.op("llvm.store %s, %%out : %s, !llvm.ptr<1>", e, elem)
	return Kernel{Params: "%out: !llvm.ptr<1>", Body: b.String()}, nil
}

// fragmentType spells a per-lane fragment of the value's rank and first
// dimension as nvgpu's [tiles x elements-per-32-bit] vector: a rank-1
// fragment of n elements is n/per tiles when whole (else a 1-D vector the
// verifier refuses), a rank-2 one has dim0 tiles, a rank-3 one an extra
// unit dimension, and rank 0 a 0-D vector. It returns the type and its rank.
func fragmentType(rank, dim0, per int, elem string) (string, int) {
	switch {
	case rank == 0:
		return fmt.Sprintf("vector<%s>", elem), 0
	case rank == 1 && dim0 > 0 && dim0%per == 0:
		return fmt.Sprintf("vector<%dx%dx%s>", dim0/per, per, elem), 2
	case rank == 1:
		return fmt.Sprintf("vector<%dx%s>", dim0, elem), 1
	case rank == 2:
		return fmt.Sprintf("vector<%dx%dx%s>", dim0, per, elem), 2
	}
	return fmt.Sprintf("vector<%dx%dx1x%s>", dim0, per, elem), 3
}

// renderStmatrix spells stmatrix as LLVM 19's nvvm.stmatrix: .m8n8 .b16
// only, one i32 register per matrix.
func renderStmatrix(v ldsm.Value) (Kernel, error) {
	space, ok := ldsmSpaces[v.Dst]
	switch {
	case !ok:
		return Kernel{}, unsupported("dst", "not-memory", "nvvm.stmatrix writes through a pointer; a %s destination has no spelling", v.Dst)
	case v.Src != ldsm.Register:
		return Kernel{}, unsupported("src", "not-register", "nvvm.stmatrix always stores registers, not %s", v.Src)
	case v.Shape != ldsm.M8N8:
		return Kernel{}, unsupported("shape", "not-m8n8", "nvvm.stmatrix of LLVM 19 has only .m8n8, not .%s", v.Shape)
	case v.Size != ldsm.U16 && v.Size != ldsm.B16:
		return Kernel{}, unsupported("size", "not-b16", "nvvm.stmatrix of LLVM 19 stores .b16 only, not %s", v.Size)
	case v.ResultRank != 1 || int(v.ResultDim0) != 2*int(v.NumMatrices):
		return Kernel{}, unsupported("result_rank", "not-one-register-per-matrix", "nvvm.stmatrix takes one i32 register (two b16) per matrix: a rank-%d fragment of %d for %d matrices has no spelling",
			v.ResultRank, v.ResultDim0, v.NumMatrices)
	}
	b := newBody("      ")
	p := b.val("llvm.inttoptr %s : i64 to %s", b.i64(uint64(v.Align)), ptrType(space))
	regs := strings.TrimSuffix(strings.Repeat("%r, ", int(v.NumMatrices)), ", ")
	types := strings.TrimSuffix(strings.Repeat("i32, ", int(v.NumMatrices)), ", ")
	layout := "row"
	if v.Transpose {
		layout = "col"
	}
	if regs == "" {
		b.op("nvvm.stmatrix %s {layout = #nvvm.mma_layout<%s>} : %s", p, layout, ptrType(space))
	} else {
		b.op("nvvm.stmatrix %s, %s {layout = #nvvm.mma_layout<%s>} : %s, %s", p, regs, layout, ptrType(space), types)
	}
	// The registers are a kernel parameter: LLVM 19 would turn constant
	// sources into "n" immediates stmatrix does not take.
	return Kernel{Params: "%r: i32", Body: b.String()}, nil
}
