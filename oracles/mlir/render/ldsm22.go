package render

import (
	"fmt"

	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
)

// stmatrixElt22 is MLIR 22's #nvvm.ld_st_matrix_elt_type of a size
// pattern: the PTX types, with the seed's unsigned spellings read as the
// same-width .b type.
var stmatrixElt22 = map[ldsm.Size]string{
	ldsm.U16: "b16", ldsm.B16: "b16", ldsm.U8: "b8", ldsm.B8: "b8",
	ldsm.B6P32: "b8x16.b6x16_p32", ldsm.B4P64: "b8x16.b4x16_p64",
}

// renderStmatrix22 spells stmatrix as MLIR 22's nvvm.stmatrix, which names
// the shape and element type as attributes: the value's are written as
// they are (any m x n, any PTX element type), so MLIR 22's verifier judges
// the combination itself. The op stores one i32 register per matrix, so
// the value's fragment must be rank 1 with the per-lane element count of
// its shape and matrix count.
func renderStmatrix22(v ldsm.Value) (Kernel, error) {
	space, ok := ldsmSpaces[v.Dst]
	if !ok {
		return Kernel{}, unsupported("dst", "not-memory", "nvvm.stmatrix writes through a pointer; a %s destination has no spelling", v.Dst)
	}
	if v.Src != ldsm.Register {
		return Kernel{}, unsupported("src", "not-register", "nvvm.stmatrix always stores registers, not %s", v.Src)
	}
	props, err := ldStMatrixProps("nvvm.stmatrix", v)
	if err != nil {
		return Kernel{}, err
	}
	b := newBody("      ")
	p := b.val("llvm.inttoptr %s : i64 to %s", b.i64(uint64(v.Align)), ptrType(space))
	// The generic form (see genericOp): MLIR after 23 spells the layout,
	// shape and element type as keywords.
	b.op("%s", generic("nvvm.stmatrix", false).args(ptrType(space), p).args("i32", times("%r", int(v.NumMatrices))...).prop(props...))
	// The registers are a kernel parameter, as in MLIR 19's rendering.
	return Kernel{Params: "%r: i32", Body: b.String()}, nil
}

// ldStMatrixProps checks that the value's size has an
// #nvvm.ld_st_matrix_elt_type and that its fragment is the lane's i32
// registers (rank 1, the per-lane element count of its shape and matrix
// count), and returns the layout, shape and element type properties of
// op, nvvm.ldmatrix or nvvm.stmatrix.
func ldStMatrixProps(op string, v ldsm.Value) ([]string, error) {
	elt, ok := stmatrixElt22[v.Size]
	if !ok {
		return nil, unsupported("size", "no-element-type", "MLIR 22's #nvvm.ld_st_matrix_elt_type has no %s", v.Size)
	}
	perLane := ldsm.ElementsPerLane(v.Shape, int(v.NumMatrices))
	if v.ResultRank != 1 || int(v.ResultDim0) != perLane {
		return nil, unsupported("result_rank", "not-one-register-per-matrix", "%s takes the lane's i32 registers: a rank-%d fragment of %d for %d %s matrices (%d per lane) has no spelling",
			op, v.ResultRank, v.ResultDim0, v.NumMatrices, v.Shape, perLane)
	}
	rows, cols := v.Shape.Dims()
	layout := "row"
	if v.Transpose {
		layout = "col"
	}
	return []string{fmt.Sprintf("layout = #nvvm.mma_layout<%s>", layout),
		fmt.Sprintf("shape = #nvvm.ld_st_matrix_shape<m = %d, n = %d>", rows, cols),
		fmt.Sprintf("eltType = #nvvm.ld_st_matrix_elt_type<%s>", elt)}, nil
}
